package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/embedmcp/mcp/codetools/internal/index"

	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// markerName is the file that marks a directory as written by
// mcpsnapshot. Its leading dot keeps //go:embed (without all:) from
// embedding it.
const markerName = ".mcpsnapshot"

const markerText = "This directory is written by mcpsnapshot (github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot).\n" +
	"It rewrites manifest.json, index.txt.gz, search.bin.gz, vectors.bin and the src/ files its manifest lists (stored compressed, .gz), and removes no other file.\n"

// errNotOurs reports an output directory mcpsnapshot did not create.
var errNotOurs = errors.New("was not created by mcpsnapshot")

// prepare makes dir ready for the go command and for writing: it creates
// the directory (with the marker and an empty but valid snapshot, so that
// a //go:embed of it matches before the first snapshot is written), or
// checks that an existing one is mcpsnapshot's.
func prepare(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	case err != nil:
		return err
	case len(entries) > 0 && !owned(dir):
		return fmt.Errorf("output directory %s already holds files and %w (no %s marker): choose another -o, or empty it",
			dir, errNotOurs, markerName)
	}
	if err := writeIfChanged(filepath.Join(dir, markerName), []byte(markerText)); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, codesnap.ManifestName)); errors.Is(err, fs.ErrNotExist) {
		empty, _ := json.MarshalIndent(codesnap.Manifest{Format: codesnap.Format}, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, codesnap.IndexName+codesnap.CompressedSuffix), gzipped([]byte(codeindex.Header+"\n")), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, codesnap.ManifestName), append(empty, '\n'), 0o644)
	}
	return nil
}

// owned reports whether dir holds the marker, or the manifest of a
// snapshot written by an earlier mcpsnapshot.
func owned(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, markerName)); err == nil {
		return true
	}
	data, err := os.ReadFile(filepath.Join(dir, codesnap.ManifestName))
	if err != nil {
		return false
	}
	var m struct {
		Format string `json:"format"`
	}
	return json.Unmarshal(data, &m) == nil && strings.HasPrefix(m.Format, "embedmcp-codetools-snapshot/")
}

// previous returns the files an earlier run wrote into dir: those its
// manifest lists, stored plain or compressed, or, if it cannot be read,
// every src/ file with the source suffix.
func previous(dir string) map[string]bool {
	old := map[string]bool{codesnap.ManifestName: true, codesnap.IndexName: true, codesnap.VectorsName: true,
		codesnap.IndexName + codesnap.CompressedSuffix: true, codesnap.SearchName: true,
		codesnap.SearchName + codesnap.CompressedSuffix: true}
	var m codesnap.Manifest
	data, err := os.ReadFile(filepath.Join(dir, codesnap.ManifestName))
	if err == nil && json.Unmarshal(data, &m) == nil && strings.HasPrefix(m.Format, "embedmcp-codetools-snapshot/") {
		var files []codesnap.File
		for _, p := range m.Packages {
			files = append(append(files, p.Files...), p.OtherFiles...)
		}
		for _, mm := range m.Modules {
			files = append(files, mm.Files...)
		}
		for _, f := range files {
			if p := path.Clean(f.Path); strings.HasPrefix(p, "src/") {
				old[p] = true
				old[p+codesnap.CompressedSuffix] = true
			}
		}
		return old
	}
	src := filepath.Join(dir, "src")
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, codesnap.SourceSuffix) || strings.HasSuffix(p, codesnap.SourceSuffix+codesnap.CompressedSuffix)) {
			if rel, err := filepath.Rel(dir, p); err == nil {
				old[filepath.ToSlash(rel)] = true
			}
		}
		return nil
	})
	return old
}

// write writes out into dir, touching only files whose content changes,
// and removes the files of the previous snapshot that are gone, and the
// src/ directories that this leaves empty.
func write(dir string, out *snapshotFiles) (changed int, err error) {
	old := previous(dir)
	names := make([]string, 0, len(out.files))
	for name := range out.files {
		names = append(names, name)
	}
	// Sources first, the manifest last: an interrupted run leaves the old
	// manifest, which still describes what is there or fails to load.
	sort.Slice(names, func(i, j int) bool {
		return rank(names[i]) < rank(names[j]) || rank(names[i]) == rank(names[j]) && names[i] < names[j]
	})
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, out.files[name]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return changed, err
		}
		if err := os.WriteFile(p, out.files[name], 0o644); err != nil {
			return changed, err
		}
		changed++
	}
	var dirs []string
	for name := range old {
		if _, keep := out.files[name]; keep {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.Remove(p); err == nil {
			changed++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return changed, err
		}
		for d := path.Dir(name); strings.HasPrefix(d, "src"); d = path.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	// Deepest first; os.Remove fails on directories that are not empty.
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, d := range dirs {
		_ = os.Remove(filepath.Join(dir, filepath.FromSlash(d)))
	}
	return changed, nil
}

func rank(name string) int {
	switch name {
	case codesnap.ManifestName:
		return 2
	case codesnap.IndexName, codesnap.IndexName + codesnap.CompressedSuffix, codesnap.VectorsName,
		codesnap.SearchName, codesnap.SearchName + codesnap.CompressedSuffix:
		return 1
	}
	return 0
}

// check compares dir with out and returns what write would change.
func check(dir string, out *snapshotFiles) []string {
	var diffs []string
	for name, data := range out.files {
		cur, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		switch {
		case err != nil:
			diffs = append(diffs, "missing "+name)
		case !bytes.Equal(cur, data):
			diffs = append(diffs, "differs "+name)
		}
	}
	for name := range previous(dir) {
		if _, keep := out.files[name]; !keep {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
				diffs = append(diffs, "stale   "+name)
			}
		}
	}
	sort.Strings(diffs)
	return diffs
}

func writeIfChanged(p string, data []byte) error {
	if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, data) {
		return nil
	}
	return os.WriteFile(p, data, 0o644)
}

// compress adds the search file (codesnap.SearchName) to out, and
// replaces it, the index and the files under src/ of out by their
// compressed form (codesnap.CompressedSuffix), which a catalog reads as it
// reads them plain: the snapshot then adds a fraction of their size to
// the binary. A search file that cannot be made is left out, said on
// warn.
func compress(out *snapshotFiles, warn io.Writer) {
	addSearchFile(out, warn)
	var names []string
	for name := range out.files {
		if name == codesnap.IndexName || name == codesnap.SearchName || strings.HasPrefix(name, "src/") {
			names = append(names, name)
		}
	}
	zipped := make([][]byte, len(names))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				zipped[i] = gzipped(out.files[names[i]])
			}
		})
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, name := range names {
		delete(out.files, name)
		out.files[name+codesnap.CompressedSuffix] = zipped[i]
	}
}

// addSearchFile adds the search file of the snapshot out holds: the
// documentation and term index a catalog would otherwise compute from the
// source when it builds. Without it the snapshot is complete, only slower
// to load; a failure to make it is reported on warn and leaves it out.
func addSearchFile(out *snapshotFiles, warn io.Writer) {
	if _, ok := out.files[codesnap.ManifestName]; !ok {
		return
	}
	fsys := fstest.MapFS{}
	for name, data := range out.files {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	data, err := index.WriteSearchFile(fsys)
	if err != nil {
		if warn == nil {
			warn = io.Discard
		}
		fmt.Fprintf(warn, "mcpsnapshot: the search file is left out (the catalog will build its index at run time): %v\n", err)
		return
	}
	out.files[codesnap.SearchName] = data
}

// gzipped compresses data with no name or time in the header, so that the
// same content compresses to the same bytes.
func gzipped(data []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression) // a valid level
	_, _ = zw.Write(data)                                     // a bytes.Buffer does not fail
	_ = zw.Close()
	return b.Bytes()
}
