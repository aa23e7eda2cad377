package codetools

import (
	"context"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"runtime/metrics"
	"time"
	"unsafe"
)

// BuildStats is the cost of building a catalog from the function table
// and the snapshot, as Warm reports it.
type BuildStats struct {
	// Entries is the number of catalog entries built.
	Entries int `json:"entries"`
	// RuntimeFunctions is the number of functions of the function table,
	// InlinedFunctions the number of distinct functions inlined into
	// them, and UnattributedFunctions the number of closures or wrappers
	// whose declaration could not be told (they make no entry).
	RuntimeFunctions      int `json:"runtimeFunctions"`
	InlinedFunctions      int `json:"inlinedFunctions"`
	UnattributedFunctions int `json:"unattributedFunctions"`
	// SnapshotFiles and SnapshotDeclarations count what was read from the
	// snapshot.
	SnapshotFiles        int `json:"snapshotFiles"`
	SnapshotDeclarations int `json:"snapshotDeclarations"`
	// Duration is the wall time of the build: the sources, then the
	// search index over them; IndexDuration is the part of the index.
	Duration      time.Duration `json:"duration"`
	IndexDuration time.Duration `json:"indexDuration"`
	// AllocatedBytes is the heap allocated by the process while the
	// catalog was built (runtime/metrics /gc/heap/allocs:bytes), which
	// includes what other goroutines allocated meanwhile.
	AllocatedBytes uint64 `json:"allocatedBytes"`
	// RetainedBytes estimates the heap the catalog keeps: entries,
	// strings and tables of its sources, its search index and, once a
	// code_references call loaded them, the snapshot's references.
	RetainedBytes uint64 `json:"retainedBytes"`
	// SourceWordPackages counts, over a snapshot written without search
	// words (by an earlier mcpsnapshot), the packages whose words the
	// catalog built from their source, and FirstWordPackages those the
	// first search index waited for (the host's own); both are 0 over a
	// snapshot with the words.
	SourceWordPackages int `json:"sourceWordPackages,omitempty"`
	FirstWordPackages  int `json:"firstWordPackages,omitempty"`
	// SnapshotError and RuntimeError say why a source was not (fully)
	// used.
	SnapshotError string `json:"snapshotError,omitempty"`
	RuntimeError  string `json:"runtimeError,omitempty"`
}

// Warm builds the catalog now, if it was not built yet, and returns the
// cost of the build. Call it at start-up (in a goroutine, if start-up
// must not wait) so that the first code_search or code_definition does
// not pay for it. Concurrent calls, and the first queries, wait for the
// same build; if ctx ends first, Warm returns ctx's error and the build
// goes on. Over a snapshot from an mcpsnapshot that did not write the
// search words, Warm also waits until the catalog has built them, which
// it does per package (the first search waits for the host's own
// packages only).
func (c *Catalog) Warm(ctx context.Context) (BuildStats, error) {
	x, err := c.index(ctx)
	if err != nil {
		return BuildStats{}, err
	}
	if err := c.wordsDone(ctx, x); err != nil {
		return BuildStats{}, err
	}
	st := c.base.stats
	c.mu.Lock()
	ic := c.indexCost
	c.mu.Unlock()
	st.Duration += ic.d
	st.IndexDuration = ic.d
	st.AllocatedBytes += ic.alloc
	// The documentation as it is now: the haystack holds it once built.
	st.RetainedBytes += x.Index.Size() - x.base.docsAtBuild + x.base.DocsSize()
	if t := x.base.loadedRefs(); t != nil { // loaded on first use, counted once loaded
		st.RetainedBytes += t.Size()
	}
	if l := x.base.Lazy; l != nil {
		st.SourceWordPackages, st.FirstWordPackages = l.Count()
	}
	return st, nil
}

// allocatedBytes returns the cumulative bytes the process allocated on
// the heap.
func allocatedBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// retained estimates the heap b keeps: slices at their capacity, strings
// at their length (interned strings once), maps at about twice their
// keys and values.
func (b *baseIndex) retained() uint64 {
	n := uint64(cap(b.Entries)) * uint64(unsafe.Sizeof(index.Entry{}))
	seen := map[string]bool{}
	str := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			n += uint64(len(s))
		}
	}
	var pkg, file string // entries of a package are mostly next to each other: not looked up again
	for i := range b.Entries {
		e := &b.Entries[i]
		n += uint64(len(e.ID))
		if e.Pkg != pkg {
			pkg = e.Pkg
			str(pkg)
		}
		if f := b.FileOf(e); f != file {
			file = f
			str(file)
		}
	}
	if b.Pre != nil {
		n += 4 * uint64(cap(b.Pre.ByName)) // the term index itself is the search index's (Index.Size)
	}
	n += 16 * uint64(cap(b.RtFiles))
	for _, f := range b.RtFiles {
		str(f)
	}
	n += 16 * uint64(cap(b.Words))
	for _, w := range b.Words {
		n += uint64(len(w))
	}
	const mapEntry = 2 * 2 * 16 // two string headers, twice over
	for k, v := range b.Aliases {
		n += mapEntry + uint64(len(k)) + uint64(len(v))
	}
	for _, v := range b.InlInto {
		n += mapEntry
		str(v)
	}
	if s := b.Snap; s != nil {
		n += uint64(cap(s.Files)) * uint64(unsafe.Sizeof(snapshot.File{}))
		for i := range s.Files {
			f := &s.Files[i]
			n += uint64(len(f.Path) + len(f.Name) + len(f.SHA256))
			str(f.Display)
		}
		n += uint64(len(s.ByKey)+len(s.ModOf)+len(s.Pkgs)) * mapEntry
	}
	n += uint64(len(b.NoSource)) * 16
	return n
}

// Search words of an older snapshot. mcpsnapshot writes each
// declaration's search words into the index ("w" records, see
// codeindex.Words); a snapshot written before it did has none, and the
// catalog computes them from the source, the same way, one package at a
// time:
//
//   - the first search index takes the words of the host's main module,
//     which it builds then (a query is most often about the host's code);
//   - the other packages (dependencies, by prior: those the host requires
//     directly first) are built by one goroutine that starts then, after
//     which the catalog builds its search index again, now the same as
//     over a snapshot with the words;
//   - until then, a dependency's declarations are found by their names,
//     documentation, package and file, not by the words of their source.
//
// Warm waits for the whole build. The standard library's declarations
// have no source words in either case.

// continueWords starts, once, the build of the words of the packages
// that index x was built without; when they are all built, the catalog
// builds its index again.
func (c *Catalog) continueWords(x *catalogIndex) {
	l := x.base.Lazy
	if l == nil {
		return
	}
	l.ContinueAll(x.Index, func() {
		c.mu.Lock()
		c.dirty = true
		c.mu.Unlock()
		c.index(context.Background()) // a background context does not end
	})
}

// wordsDone waits until the words of an older snapshot are all built and
// indexed, or ctx ends.
func (c *Catalog) wordsDone(ctx context.Context, x *catalogIndex) error {
	if l := x.base.Lazy; l != nil {
		return l.Wait(ctx)
	}
	return nil
}

// keepWatch keeps the stop function of a watch Register started.
func (c *Catalog) keepWatch(stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stops = append(c.stops, stop)
}

// Close stops keeping the catalog's tool entries in step with the
// ToolSets it was registered in (Register): they stay as they were. The
// catalog goes on answering. Close returns nil; calling it again does
// nothing.
func (c *Catalog) Close() error {
	c.mu.Lock()
	stops := c.stops
	c.stops = nil
	c.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	return nil
}
