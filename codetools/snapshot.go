package codetools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"

	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// snapshot is a loaded source snapshot. It keeps the file system, the
// manifest and a table of files; declarations become catalog entries that
// address the source by byte spans. Nothing is parsed: the declarations
// come from the index mcpsnapshot wrote.
type snapshot struct {
	fsys    fs.FS
	man     codesnap.Manifest
	files   []snapFile
	mods    []modInfo
	mainMod string
	// modOf maps an import path to its module in man.Modules.
	modOf map[string]int
	pkgs  map[string]bool
	// byKey maps importpath/name to the index of a Go file.
	byKey map[string]int32
	// byPath maps the location of a file in fsys to its index.
	byPath map[string]int32
	// goFiles counts the Go files, which come first in files; other
	// files (assembly, C, go.mod) follow.
	goFiles int
	// modFiles marks the modules of man.Modules with selected packages,
	// whose own files (go.mod) the catalog serves.
	modFiles map[int]bool
	// warning reports files that were left out; warn collects them
	// while the snapshot is read.
	warning error
	warn    []error
	// words reports an index with search words (codeindex.Words): the
	// term index reads no source.
	words bool
}

type snapFile struct {
	path    string // location in fsys
	display string // display path
	pkg     string
	name    string
	sha256  string
	size    int64
	// checked is 1 once the file's content was found to match sha256,
	// 2 if it did not.
	checked atomic.Uint32
}

// maxWarnings bounds the file errors a snapshot warning lists.
const maxWarnings = 5

// snapDecls locates the entries of each snapshot file in the entry slice
// built by loadSnapshot (before it is sorted), for attribution.
type snapDecls [][2]int32

// snapshotError is why a snapshot was not used.
type snapshotError struct{ err error }

func (e *snapshotError) Error() string { return "snapshot not used: " + e.err.Error() }
func (e *snapshotError) Unwrap() error { return e.err }

// loadSnapshot reads the manifest and the index of fsys and returns an
// entry for every declaration of the selected packages. A bad manifest
// or index is an error (the catalog then serves the binary alone); files
// whose content does not fit the index are left out and reported in
// s.warning.
//
// The entry slice has room for extra more entries.
func loadSnapshot(fsys fs.FS, in interner, sel *Selection, extra int) (s *snapshot, entries []entry, decls snapDecls, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, entries, decls, err = nil, nil, nil, fmt.Errorf("reading snapshot: %v", r)
		}
	}()
	var include func(pkg, mod string, main bool) bool
	if sel != nil {
		include = sel.Includes
	}
	s, err = openSnapshot(fsys, in, include)
	if err != nil {
		return nil, nil, nil, err
	}
	decls = make(snapDecls, len(s.files))
	pkgEntry := map[string]int{}
	var scratch []byte
	cur := int32(-1)
	sized := func(n int) {
		// The count sizes the table; a damaged index cannot make it huge.
		entries = make([]entry, 0, min(n, 4*DefaultMaxEntries)+extra)
	}
	err = s.readDecls(sized, func(fi int32, d *codeindex.Decl, buf []byte) {
		if fi != cur {
			cur = fi
			decls[fi][0] = int32(len(entries))
		}
		sf := &s.files[fi]
		if (d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod) && isStdPkg(sf.pkg) {
			return // members of the standard library: not worth their memory (members.go)
		}
		e := entry{pkg: sf.pkg, file: sf.display, kind: declKind(d.Kind), sources: srcSnapshot, snap: fi,
			start: d.Start, end: d.End, line: d.Line, endLine: d.EndLine, reg: -1, bodyless: d.Bodyless, words: d.Words,
			member: d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod}
		if isStdPkg(sf.pkg) {
			e.words = "" // the search index takes no source words of the standard library (buildTerms)
		}
		if d.DocEnd > d.DocStart {
			e.docBeg, e.docEnd = d.DocStart, d.DocEnd
			e.doc, scratch = docString(buf[d.DocStart:d.DocEnd], maxIndexedDoc, scratch)
		}
		if d.Kind == codeindex.Package {
			e.id = sf.pkg
			if j, seen := pkgEntry[sf.pkg]; seen {
				if entries[j].docEnd == 0 {
					entries[j] = e
				}
				return
			}
			pkgEntry[sf.pkg] = len(entries)
		} else {
			e.id = declID(sf.pkg, d.Name)
		}
		entries = append(entries, e)
		decls[fi][1] = int32(len(entries))
	})
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range decls {
		if decls[i][1] < decls[i][0] {
			decls[i][1] = decls[i][0]
		}
	}
	return s, entries, decls, nil
}

// openSnapshot reads the manifest of fsys and the table of the files of
// the packages include selects (nil selects all).
func openSnapshot(fsys fs.FS, in interner, include func(pkg, mod string, main bool) bool) (*snapshot, error) {
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
	s := &snapshot{fsys: fsys, modOf: map[string]int{}, pkgs: map[string]bool{}, byKey: map[string]int32{}, modFiles: map[int]bool{}}
	if err := json.Unmarshal(data, &s.man); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", codesnap.ManifestName, err)
	}
	for _, m := range s.man.Modules {
		s.mods = append(s.mods, modInfo{m.Path, m.Version})
		if m.Main {
			s.mainMod = m.Path
		}
	}
	byPath := map[string]int32{}
	s.byPath = byPath
	// addFile adds a file of package (or module) pkg; std reports the
	// standard library.
	addFile := func(mf codesnap.File, pkg string, std bool) (int32, bool) {
		if _, dup := byPath[mf.Path]; dup || mf.Size < 0 || mf.Size > 1<<31-1 {
			s.warn = append(s.warn, fmt.Errorf("%s: listed twice or with a bad size", mf.Path))
			return -1, false
		}
		display := in.get(displayPath("/"+mf.Name, pkg, s.mods, s.mainMod))
		if std {
			display = in.get("$GOROOT/src/" + pkg + "/" + mf.Name)
		}
		fi := int32(len(s.files))
		byPath[mf.Path] = fi
		s.files = append(s.files, snapFile{path: mf.Path, display: display, pkg: pkg, name: mf.Name, sha256: mf.SHA256, size: mf.Size})
		return fi, true
	}
	type other struct {
		f   codesnap.File
		pkg string
		std bool
	}
	var others []other // files other than Go, added after the Go files
	for _, p := range s.man.Packages {
		mi := -1
		if m, ok := moduleFor(s.mods, p.ImportPath); ok && !p.Standard {
			for i := range s.man.Modules {
				if s.man.Modules[i].Path == m.path {
					mi = i
				}
			}
		}
		if include != nil {
			mod, main := "", false
			if mi >= 0 {
				mod, main = s.man.Modules[mi].Path, s.man.Modules[mi].Main
			}
			if !include(p.ImportPath, mod, main) {
				continue
			}
		}
		if mi >= 0 {
			s.modOf[p.ImportPath] = mi
		}
		pkg := in.get(p.ImportPath)
		s.pkgs[pkg] = true
		for _, mf := range p.Files {
			if fi, ok := addFile(mf, pkg, p.Standard); ok {
				s.byKey[pkg+"/"+mf.Name] = fi
			}
		}
		for _, mf := range p.OtherFiles {
			others = append(others, other{mf, pkg, p.Standard})
		}
		if mi >= 0 {
			s.modFiles[mi] = true
		}
	}
	s.goFiles = len(s.files)
	for _, o := range others {
		addFile(o.f, o.pkg, o.std)
	}
	for mi, m := range s.man.Modules {
		if s.modFiles[mi] {
			for _, mf := range m.Files {
				addFile(mf, in.get(m.Path), false)
			}
		}
	}
	return s, nil
}

// readDecls reads the declarations the index lists for the files of the
// snapshot, calling fn with each and the content of its file: sized first
// with the count the index announces, then fn in file order. Files whose
// content does not fit the index are left out and reported in s.warning.
func (s *snapshot) readDecls(sized func(n int), fn func(fi int32, d *codeindex.Decl, src []byte)) error {
	f, err := s.fsys.Open(codesnap.IndexName)
	if err != nil {
		return fmt.Errorf("opening %s: %w", codesnap.IndexName, err)
	}
	defer f.Close()
	r, err := codeindex.NewReader(f)
	if err != nil {
		return fmt.Errorf("reading %s: %w", codesnap.IndexName, err)
	}
	if r.Decls > 0 {
		sized(r.Decls)
	}
	warn := s.warn
	var buf []byte
	cur, bad := int32(-1), false
	for {
		path, d, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", codesnap.IndexName, err)
		}
		fi, ok := s.byPath[path]
		if !ok {
			continue // a file of an unselected package
		}
		if fi != cur {
			cur = fi
			buf, err = s.readFile(fi, buf)
			bad = err != nil
			if bad {
				warn = append(warn, err)
			}
		}
		if bad {
			continue
		}
		sf := &s.files[fi]
		if int64(d.End) > sf.size || int64(d.DocEnd) > sf.size {
			warn = append(warn, fmt.Errorf("%s: declaration %.80s lies past the end of the file", sf.path, d.Name))
			continue
		}
		s.words = s.words || r.Words || d.Words != ""
		fn(fi, &d, buf)
	}
	if len(warn) > maxWarnings {
		warn = append(warn[:maxWarnings], fmt.Errorf("and %d more", len(warn)-maxWarnings))
	}
	s.warn = nil
	s.warning = errors.Join(warn...)
	return nil
}

func declKind(k codeindex.Kind) kind {
	switch k {
	case codeindex.Method, codeindex.InterfaceMethod:
		return kMethod
	case codeindex.Field:
		return kField
	case codeindex.Type:
		return kType
	case codeindex.Const:
		return kConst
	case codeindex.Var:
		return kVar
	case codeindex.Package:
		return kPackage
	default:
		return kFunc
	}
}

// readFile reads file fi into buf, checking its size.
func (s *snapshot) readFile(fi int32, buf []byte) ([]byte, error) {
	sf := &s.files[fi]
	f, err := s.fsys.Open(sf.path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	if int64(cap(buf)) < sf.size+1 {
		buf = make([]byte, sf.size+1)
	}
	buf = buf[:sf.size+1]
	n, err := io.ReadFull(f, buf)
	if !(err == io.ErrUnexpectedEOF || err == io.EOF) || int64(n) != sf.size {
		return buf, fmt.Errorf("%s: size differs from the manifest's %d bytes", sf.path, sf.size)
	}
	return buf[:n], nil
}

// verify reports whether file fi's content matches its manifest sha256,
// hashing it on first use.
func (s *snapshot) verify(fi int32) bool {
	sf := &s.files[fi]
	switch sf.checked.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	ok := false
	if f, err := s.fsys.Open(sf.path); err == nil {
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		ok = err == nil && hex.EncodeToString(h.Sum(nil)) == sf.sha256
	}
	if ok {
		sf.checked.Store(1)
	} else {
		sf.checked.Store(2)
	}
	return ok
}

// readSpan reads bytes [start, end) of a snapshot file.
func (s *snapshot) readSpan(fi, start, end int32) (string, error) {
	if end <= start {
		return "", nil
	}
	f, err := s.fsys.Open(s.files[fi].path)
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
		return "", fmt.Errorf("reading %s: %w", s.files[fi].path, err)
	}
	return string(buf), nil
}
