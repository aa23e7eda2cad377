package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
	"io"
	"io/fs"
	"math/bits"
	"sync/atomic"
)

// Snapshot is a loaded source snapshot. It keeps the file system, the
// manifest and a table of files; declarations become catalog entries that
// address the source by byte spans. Nothing is parsed: the declarations
// come from the index mcpsnapshot wrote.
type Snapshot struct {
	FS       fs.FS
	Manifest codesnap.Manifest
	Files    []File
	Mods     []Module
	MainMod  string
	// ModOf maps an import path to its module in Manifest.Modules.
	ModOf map[string]int
	Pkgs  map[string]bool
	// ByKey maps importpath/name to the index of a Go file.
	ByKey map[string]int32
	// ByPath maps the location of a file in FS to its index.
	ByPath map[string]int32
	// GoFiles counts the Go files, which come first in Files; other
	// files (assembly, C, go.mod) follow.
	GoFiles int
	// modFiles marks the modules of Manifest.Modules with selected packages,
	// whose own files (go.mod) the catalog serves.
	modFiles map[int]bool
	// Warning reports files that were left out; warn collects them
	// while the snapshot is read.
	Warning error
	warn    []error
	// ManifestSum hashes the manifest's bytes (as DeclSum hashes a
	// string).
	ManifestSum uint64
	// Words reports an index with search words (codeindex.Words): the
	// term index reads no source.
	Words bool
	// onPrefetch, if set, is told how many files ReadDecls found read
	// ahead and how many it read itself.
	onPrefetch func(hits, misses int)
}

// File is a file of the snapshot.
type File struct {
	Path    string // location in fsys
	Display string // display path
	Pkg     string
	Name    string
	SHA256  string
	size    int64
	// checked is 1 once the file's content was found to match SHA256,
	// 2 if it did not.
	checked atomic.Uint32
}

// maxWarnings bounds the file errors a snapshot warning lists.
const maxWarnings = 5

// Error is why a snapshot was not used.
type Error struct{ Err error }

// Error returns why the snapshot was not used.
func (e *Error) Error() string { return "snapshot not used: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Open reads the manifest of fsys and the table of the files of
// the packages include selects (nil selects all). Files stored compressed
// (codesnap.CompressedSuffix) are read decompressed, through a small
// cache.
func Open(fsys fs.FS, in Interner, include func(pkg, mod string, main bool) bool) (*Snapshot, error) {
	fsys = NewFS(fsys)
	data, err := fs.ReadFile(fsys, codesnap.ManifestName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no snapshot generated yet (no %s): run mcpsnapshot, e.g. through go generate, and build again: %w", codesnap.ManifestName, err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", codesnap.ManifestName, err)
	}
	var probe struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", codesnap.ManifestName, err)
	}
	if probe.Format != codesnap.Format {
		return nil, fmt.Errorf("%s has format %.80q, this catalog reads %q: regenerate the snapshot with this version's mcpsnapshot", codesnap.ManifestName, probe.Format, codesnap.Format)
	}
	s := &Snapshot{FS: fsys, ModOf: map[string]int{}, Pkgs: map[string]bool{}, ByKey: map[string]int32{}, modFiles: map[int]bool{}}
	ms := NewDeclSum()
	ms.str(string(data))
	s.ManifestSum = ms.Sum()
	if err := json.Unmarshal(data, &s.Manifest); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", codesnap.ManifestName, err)
	}
	for _, m := range s.Manifest.Modules {
		s.Mods = append(s.Mods, Module{m.Path, m.Version})
		if m.Main {
			s.MainMod = m.Path
		}
	}
	byPath := map[string]int32{}
	s.ByPath = byPath
	// addFile adds a file of package (or module) pkg; std reports the
	// standard library.
	addFile := func(mf codesnap.File, pkg string, std bool) (int32, bool) {
		if _, dup := byPath[mf.Path]; dup || mf.Size < 0 || mf.Size > 1<<31-1 {
			s.warn = append(s.warn, fmt.Errorf("%s: listed twice or with a bad size", mf.Path))
			return -1, false
		}
		display := in.Get(DisplayPath("/"+mf.Name, pkg, s.Mods, s.MainMod))
		if std {
			display = in.Get("$GOROOT/src/" + pkg + "/" + mf.Name)
		}
		fi := int32(len(s.Files))
		byPath[mf.Path] = fi
		s.Files = append(s.Files, File{Path: mf.Path, Display: display, Pkg: pkg, Name: mf.Name, SHA256: mf.SHA256, size: mf.Size})
		return fi, true
	}
	type other struct {
		f   codesnap.File
		pkg string
		std bool
	}
	var others []other // files other than Go, added after the Go files
	for _, p := range s.Manifest.Packages {
		mi := -1
		if m, ok := ModuleFor(s.Mods, p.ImportPath); ok && !p.Standard {
			for i := range s.Manifest.Modules {
				if s.Manifest.Modules[i].Path == m.Path {
					mi = i
				}
			}
		}
		if include != nil {
			mod, main := "", false
			if mi >= 0 {
				mod, main = s.Manifest.Modules[mi].Path, s.Manifest.Modules[mi].Main
			}
			if !include(p.ImportPath, mod, main) {
				continue
			}
		}
		if mi >= 0 {
			s.ModOf[p.ImportPath] = mi
		}
		pkg := in.Get(p.ImportPath)
		s.Pkgs[pkg] = true
		for _, mf := range p.Files {
			if fi, ok := addFile(mf, pkg, p.Standard); ok {
				s.ByKey[pkg+"/"+mf.Name] = fi
			}
		}
		for _, mf := range p.OtherFiles {
			others = append(others, other{mf, pkg, p.Standard})
		}
		if mi >= 0 {
			s.modFiles[mi] = true
		}
	}
	s.GoFiles = len(s.Files)
	for _, o := range others {
		addFile(o.f, o.pkg, o.std)
	}
	for mi, m := range s.Manifest.Modules {
		if s.modFiles[mi] {
			for _, mf := range m.Files {
				addFile(mf, in.Get(m.Path), false)
			}
		}
	}
	return s, nil
}

// ReadDecls reads the declarations the index lists for the files of the
// snapshot, calling fn with each and the content of its file: sized first
// with the count the index announces, then fn in file order. Files whose
// content does not fit the index are left out and reported in s.Warning.
func (s *Snapshot) ReadDecls(sized func(n int), fn func(fi int32, d codeindex.Decl, src []byte)) error {
	_, err := s.ReadIndex(sized, func(fi int32, _ int, d codeindex.Decl, src []byte) { fn(fi, d, src) }, true)
	return err
}

// ReadIndex reads the declarations of the index as ReadDecls does, and
// also gives fn the ordinal of each declaration among all those the index
// lists (selected or not). Without source, it reads no file of the
// snapshot (src is nil): what a declaration needs of its file comes from
// elsewhere (the search file), and only the manifest's sizes are checked.
// It returns the DeclSum of the declarations the index lists.
func (s *Snapshot) ReadIndex(sized func(n int), fn func(fi int32, k int, d codeindex.Decl, src []byte), source bool) (uint64, error) {
	f, err := s.FS.Open(codesnap.IndexName)
	if err != nil {
		return 0, fmt.Errorf("opening %s: %w", codesnap.IndexName, err)
	}
	defer f.Close()
	r, err := codeindex.NewReader(f)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", codesnap.IndexName, err)
	}
	if r.Decls > 0 {
		sized(r.Decls)
	}
	sum := NewDeclSum()
	err = s.readDecls(func() (string, codeindex.Decl, error) {
		path, d, err := r.Next()
		if err == nil {
			sum.Add(path, &d)
			s.Words = s.Words || r.Words || d.Words != ""
		}
		return path, d, err
	}, fn, source)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", codesnap.IndexName, err)
	}
	return sum.Sum(), nil
}

// ReadDeclList reads declarations from next, as ReadIndex reads those of
// the index without source: next returns each with the location of its
// file, then io.EOF; words reports declarations with search words.
func (s *Snapshot) ReadDeclList(next func() (string, codeindex.Decl, error), words bool, fn func(fi int32, k int, d codeindex.Decl, src []byte)) error {
	s.Words = s.Words || words
	return s.readDecls(next, fn, false)
}

// readDecls calls fn with the declarations next returns whose file is
// selected, checking their spans against the file sizes and, with
// source, reading each file (left out, and reported in s.Warning, when it
// does not fit).
func (s *Snapshot) readDecls(next func() (string, codeindex.Decl, error), fn func(fi int32, k int, d codeindex.Decl, src []byte), source bool) error {
	warn := s.warn
	var buf []byte
	cur, bad := int32(-1), false
	var pf *prefetcher
	if source {
		pf = s.prefetch()
		defer pf.stop()
		if s.onPrefetch != nil {
			defer func() { s.onPrefetch(pf.hits, pf.misses) }()
		}
	}
	for k := 0; ; k++ {
		path, d, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		fi, ok := s.ByPath[path]
		if !ok {
			continue // a file of an unselected package
		}
		if fi != cur {
			cur = fi
			if source {
				buf, err = pf.read(fi, buf)
				bad = err != nil
				if bad {
					warn = append(warn, err)
				}
			}
		}
		if bad {
			continue
		}
		sf := &s.Files[fi]
		if int64(d.End) > sf.size || int64(d.DocEnd) > sf.size {
			warn = append(warn, fmt.Errorf("%s: declaration %.80s lies past the end of the file", sf.Path, d.Name))
			continue
		}
		fn(fi, k, d, buf)
	}
	if len(warn) > maxWarnings {
		warn = append(warn[:maxWarnings], fmt.Errorf("and %d more", len(warn)-maxWarnings))
	}
	s.warn = nil
	s.Warning = errors.Join(warn...)
	return nil
}

// DeclSum hashes the declarations of an index as ReadIndex reads them
// (FNV-1a over each one's file, name, words, kind and spans), so that a file
// derived from the index can tell whether it was derived from this one.
type DeclSum struct{ h uint64 }

// NewDeclSum returns an empty DeclSum.
func NewDeclSum() DeclSum { return DeclSum{h: 14695981039346656037} }

// Add adds declaration d of the file at path.
func (s *DeclSum) Add(path string, d *codeindex.Decl) {
	s.str(path)
	s.str(d.Name)
	s.str(d.Words)
	for _, v := range [...]int32{int32(d.Kind), d.Start, d.End, d.DocStart, d.DocEnd, d.Line, d.EndLine} {
		s.h = (s.h ^ uint64(uint32(v))) * 1099511628211
	}
}

func (s *DeclSum) str(v string) {
	for i := 0; i < len(v); i++ {
		s.h = (s.h ^ uint64(v[i])) * 1099511628211
	}
	s.h = (s.h ^ 0xff) * 1099511628211
}

// Sum returns the hash.
func (s *DeclSum) Sum() uint64 { return s.h }

// ReadFile reads file fi into buf, checking its size. With buf nil (a
// file read on demand, not one of all the files read in turn), a file
// stored compressed is read through the snapshot's cache, and copied: the
// caller may reuse the content as buf.
func (s *Snapshot) ReadFile(fi int32, buf []byte) ([]byte, error) {
	sf := &s.Files[fi]
	if buf == nil {
		data, err := Inflate(s.FS, sf.Path)
		if err != nil {
			return nil, err
		}
		if int64(len(data)) != sf.size {
			return nil, fmt.Errorf("%s: size differs from the manifest's %d bytes", sf.Path, sf.size)
		}
		return bytes.Clone(data), nil
	}
	f, err := s.FS.Open(sf.Path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	if int64(cap(buf)) < sf.size+1 {
		// Grown in powers of two: a buffer reused over the files of a
		// snapshot is reallocated a few times, not at every larger file.
		buf = make([]byte, sf.size+1, max(4<<10, 1<<bits.Len64(uint64(sf.size))))
	}
	buf = buf[:sf.size+1]
	n, err := io.ReadFull(f, buf)
	if !(err == io.ErrUnexpectedEOF || err == io.EOF) || int64(n) != sf.size {
		return buf, fmt.Errorf("%s: size differs from the manifest's %d bytes", sf.Path, sf.size)
	}
	return buf[:n], nil
}

// Verify reports whether file fi's content matches its manifest sha256,
// hashing it on first use.
func (s *Snapshot) Verify(fi int32) bool {
	sf := &s.Files[fi]
	switch sf.checked.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	ok := false
	if f, err := s.FS.Open(sf.Path); err == nil {
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		ok = err == nil && hex.EncodeToString(h.Sum(nil)) == sf.SHA256
	}
	if ok {
		sf.checked.Store(1)
	} else {
		sf.checked.Store(2)
	}
	return ok
}

// ReadSpan reads bytes [start, end) of a snapshot file.
func (s *Snapshot) ReadSpan(fi, start, end int32) (string, error) {
	if end <= start {
		return "", nil
	}
	if _, ok := s.FS.(*gzFS); ok {
		data, err := Inflate(s.FS, s.Files[fi].Path)
		if err != nil {
			return "", err
		}
		if int(end) > len(data) || start < 0 {
			return "", fmt.Errorf("reading %s: bytes %d-%d lie past its end", s.Files[fi].Path, start, end)
		}
		return string(data[start:end]), nil
	}
	f, err := s.FS.Open(s.Files[fi].Path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, end-start)
	n := 0
	if ra, ok := f.(io.ReaderAt); ok {
		n, err = ra.ReadAt(buf, int64(start))
		if n == len(buf) {
			err = nil
		}
	} else if sk, ok := f.(io.Seeker); ok {
		if _, err = sk.Seek(int64(start), io.SeekStart); err == nil {
			_, err = io.ReadFull(f, buf)
		}
	} else if _, err = io.CopyN(io.Discard, f, int64(start)); err == nil {
		_, err = io.ReadFull(f, buf)
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", s.Files[fi].Path, err)
	}
	return string(buf), nil
}
