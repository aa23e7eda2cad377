package codetools

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
)

// buildBase reads the snapshot and the function table and joins them. It
// never panics: a failure of either source is recorded and the other one
// is served.
func (c *Catalog) buildBase() (b *baseIndex) {
	start := time.Now()
	alloc0 := allocatedBytes()
	b = &baseIndex{Base: &index.Base{}}
	defer func() {
		if r := recover(); r != nil {
			*b = baseIndex{Base: &index.Base{RuntimeErr: fmt.Errorf("building the catalog: %v", r)}}
		}
		c.finish(b, start, alloc0)
	}()
	in := snapshot.Interner{}
	a := &index.Attributor{Mods: c.build.mods, MainMod: c.build.info.MainModule.Path, Std: true, In: in}
	if sel := c.opts.Packages; sel != nil {
		a.Include, a.Std = sel.Includes, sel.Std
	}
	// The function table is read, and its names parsed, while the
	// snapshot is; the main package's path, which parsing needs, is known
	// before the snapshot is read unless the build does not record it.
	early := c.mainPackage(nil)
	earlyOK := early != "" && early != "command-line-arguments"
	if earlyOK {
		a.MainPkg = early
	}
	type table struct {
		rt  *index.RuntimeTable
		err error
	}
	tables := make(chan table, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				tables <- table{nil, fmt.Errorf("reading the function table: %v", r)}
			}
		}()
		rt, err := c.loadRuntime()
		if rt != nil && earlyOK {
			a.Prepare(rt)
		}
		tables <- table{rt, err}
	}()
	var entries []index.Entry
	var err error
	var decls index.SnapDecls
	var words, docs []string
	var include func(pkg, mod string, main bool) bool
	if sel := c.opts.Packages; sel != nil {
		include = sel.Includes
	}
	if c.opts.Snapshot != nil {
		var l *index.SnapLoad
		l, err = index.LoadSnapshot(c.opts.Snapshot, in, include, DefaultMaxEntries, 0)
		if l != nil {
			b.Snap, entries, words, docs, decls, b.Pre, b.SearchErr = l.Snap, l.Entries, l.Words, l.Docs, l.Decls, l.Pre, l.SearchErr
		}
		switch {
		case err != nil:
			b.SnapshotErr = &snapshot.Error{Err: err}
		case b.Snap.Warning != nil:
			b.SnapshotErr = b.Snap.Warning
		}
	}
	t := <-tables
	rt := t.rt
	b.RuntimeErr = t.err
	if rt == nil {
		rt = &index.RuntimeTable{}
	}
	a.Snap, a.Decls, a.Entries = b.Snap, decls, entries
	if main := c.mainPackage(b.Snap); main != a.MainPkg {
		a.MainPkg = main // Run parses the names again
		a.Prepare(rt)
	}
	a.Run(rt)
	b.stats.RuntimeFunctions, b.stats.InlinedFunctions = len(rt.Funcs), len(rt.Inlined)
	b.stats.UnattributedFunctions = a.Unresolved
	rt = nil
	entries = a.Entries
	for p := range a.RtPkgs {
		if b.Snap == nil || !b.Snap.Pkgs[p] {
			b.NoSource = append(b.NoSource, p)
		}
	}
	sort.Strings(b.NoSource)
	if !slices.ContainsFunc(words, func(w string) bool { return w != "" }) {
		words = nil
	}
	if !slices.ContainsFunc(docs, func(d string) bool { return d != "" }) {
		docs = nil
	}
	// The attributor appends the entries it adds: words and documentation
	// stay aligned.
	b.Entries, b.Words, docs = index.SortByID(entries, words, docs)
	b.SetDocs(docs)
	b.Aliases, b.InlInto, b.Dirs, b.RtFiles = a.Aliases, a.InlInto, a.DirPkg, a.RtFiles
	if b.Snap != nil {
		b.stats.SnapshotFiles = b.Snap.GoFiles
		b.stats.SnapshotDeclarations = len(decls)
		n := 0
		for _, d := range decls {
			n += int(d[1] - d[0])
		}
		b.stats.SnapshotDeclarations = n
	}
	b.modules = c.checkModules(b.Snap, a.Evidence)
	b.Lazy = index.NewLazyWords(b.Snap)
	return b
}

// finish records the build's cost and logs it.
func (c *Catalog) finish(b *baseIndex, start time.Time, alloc0 uint64) {
	st := &b.stats
	st.Entries = len(b.Entries)
	st.Duration = time.Since(start)
	st.AllocatedBytes = allocatedBytes() - alloc0
	b.docsAtBuild = b.DocsSize()
	st.RetainedBytes = b.retained() + b.docsAtBuild
	if b.SnapshotErr != nil {
		st.SnapshotError = b.SnapshotErr.Error()
	}
	if b.RuntimeErr != nil {
		st.RuntimeError = b.RuntimeErr.Error()
	}
	attrs := []any{"entries", st.Entries, "duration", st.Duration.Round(time.Millisecond),
		"allocatedBytes", st.AllocatedBytes, "retainedBytes", st.RetainedBytes}
	c.logger.Info("codetools: catalog sources built", attrs...)
	if b.SnapshotErr != nil {
		var se *snapshot.Error
		if errors.As(b.SnapshotErr, &se) {
			c.logger.Warn("codetools: source snapshot ignored; answers come from the binary alone", "error", b.SnapshotErr)
		} else {
			c.logger.Warn("codetools: some snapshot files were left out", "error", b.SnapshotErr)
		}
	}
	if b.RuntimeErr != nil {
		c.logger.Warn("codetools: the function table could not be read", "error", b.RuntimeErr)
	}
	if b.SearchErr != nil {
		c.logger.Warn("codetools: the snapshot's search file is not used; the search index is built at run time", "error", b.SearchErr)
	}
}

// dedupSorted drops later entries with an id equal to the previous one.
func dedupSorted(es []index.Entry) []index.Entry {
	out := es[:0]
	for i := range es {
		if len(out) > 0 && out[len(out)-1].ID == es[i].ID {
			continue
		}
		out = append(out, es[i])
	}
	return out[:len(out):len(out)]
}

// newIndex merges registered documents into the base entries, applies the
// entry bound and builds the search text.
func newIndex(b *baseIndex, regs []regDoc, max int, st *buildState) *catalogIndex {
	x := &catalogIndex{Index: &index.Index{Base: b.Base}, base: b, regs: regs}
	entries := b.Entries
	if len(regs) > 0 {
		x.RegDocs = make([]string, len(regs))
		x.RegFiles = make([]string, len(regs))
		for ri, r := range regs {
			x.RegFiles[ri] = r.File
			if r.Documentation != "" {
				x.RegDocs[ri] = index.DocPrefix(r.Documentation, index.MaxIndexedRegisteredDoc)
			}
		}
		entries = make([]index.Entry, len(b.Entries), len(b.Entries)+len(regs))
		copy(entries, b.Entries)
		added := false
		for ri, r := range regs {
			i := sort.Search(len(b.Entries), func(i int) bool { return b.Entries[i].ID >= r.id })
			if i < len(b.Entries) && b.Entries[i].ID == r.id {
				e := &entries[i]
				e.Sources |= index.SrcRegistered
				e.Reg = int32(ri)
				if r.hasK {
					e.Kind = r.kind
				}
				continue
			}
			k := index.KindDoc
			if r.hasK {
				k = r.kind
			}
			entries = append(entries, index.Entry{ID: r.id, Pkg: r.Package, Line: int32(r.Line),
				Kind: k, Sources: index.SrcRegistered, Snap: -1, Reg: int32(ri)})
			added = true
		}
		if added {
			sort.SliceStable(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
			entries = dedupSorted(entries)
		}
	}
	x.cov.TruncationRule = truncationRule
	if len(entries) > max {
		entries, x.dropped = truncate(entries, max, st.info.MainModule.Path)
		x.cov.Truncated = true
		x.cov.DroppedEntries = len(x.dropped)
	}
	x.Entries = entries
	// The haystack and the search structures read the entries alone: they
	// are built side by side.
	var wg sync.WaitGroup
	wg.Go(x.BuildHaystack)
	x.Search = index.BuildSearch(x.searchInput(st))
	wg.Wait()
	if x.SharesBase() {
		x.Base.ReleaseDocs() // the haystack holds the documentation
	}
	x.fillCoverage()
	return x
}

// truncationRule documents the entry bound, which only
// Options.MaxEntries lowered below the catalog's size applies.
const truncationRule = "when the catalog exceeds maxEntries (Options.MaxEntries), entries are kept in this order until " +
	"the bound is reached: registered tools and documents, then the host's main module, then the functions linked " +
	"into the binary from other modules, then the other declarations of other modules, then the linked functions of " +
	"the standard library, then its other declarations; ties are broken by id length, then id. code_definition and " +
	"code_references name a dropped entry as dropped, never as unknown or not linked"

// truncate keeps max entries of es (sorted by id) in the order of
// truncationRule; it returns them sorted by id, and the ids of the
// others, sorted.
func truncate(es []index.Entry, max int, mainMod string) (kept []index.Entry, dropped []string) {
	order := make([]int32, len(es))
	ranks := make([]uint8, len(es))
	for i := range es {
		order[i] = int32(i)
		ranks[i] = rank(&es[i], mainMod)
	}
	sort.SliceStable(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if ranks[i] != ranks[j] {
			return ranks[i] < ranks[j]
		}
		return len(es[i].ID) < len(es[j].ID) // es is sorted by id: stability breaks the remaining ties
	})
	keep := make([]bool, len(es))
	for _, i := range order[:max] {
		keep[i] = true
	}
	kept = make([]index.Entry, 0, max)
	dropped = make([]string, 0, len(es)-max)
	for i := range es {
		if keep[i] {
			kept = append(kept, es[i])
		} else {
			dropped = append(dropped, es[i].ID)
		}
	}
	return kept, dropped
}

// rank orders entries for truncation; lower ranks are kept first.
func rank(e *index.Entry, mainMod string) uint8 {
	std := snapshot.IsStdPkg(e.Pkg)
	linked := e.Sources&index.SrcRuntime != 0
	switch {
	case e.Sources&index.SrcRegistered != 0:
		return 0
	case mainMod != "" && !std && (e.Pkg == mainMod || strings.HasPrefix(e.Pkg, mainMod+"/")):
		return 1
	case !std && linked:
		return 2
	case !std:
		return 3
	case linked:
		return 4
	default:
		return 5
	}
}
