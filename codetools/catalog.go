package codetools

import (
	"context"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/nav"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"io/fs"
	"log/slog"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures a Catalog. The zero value is a catalog of the
// running binary alone.
type Options struct {
	// Snapshot is the source snapshot written by mcpsnapshot, rooted at
	// the directory holding manifest.json (use fs.Sub on an embed.FS).
	// Nil disables the snapshot source. A snapshot that cannot be read,
	// or of another format, is ignored: the catalog serves the binary
	// alone, every answer's limitations say why, and Logger warns once.
	Snapshot fs.FS
	// Packages limits the runtime and snapshot entries to the packages
	// the selection covers (as mcpsnapshot's flags limit a snapshot). Nil
	// covers every package: the main module, its dependencies and the
	// standard library. A selection with a malformed pattern is not
	// applied, and coverage.registeredError says so.
	Packages *Selection
	// Docs are registered documentation entries, as if passed to Register.
	// Invalid entries are reported by the first Search or Definition.
	Docs []Doc
	// MaxEntries bounds the catalog's entries, to bound its memory; 0 or
	// values above DefaultMaxEntries mean DefaultMaxEntries. When the
	// bound drops entries, the order of the Coverage's TruncationRule
	// picks the kept ones (registered, then the host's main module, then
	// the linked functions, ...), Logger warns, every search answer says
	// how many were dropped, and code_definition and code_references
	// answer a dropped name with ErrDroppedName.
	MaxEntries int
	// Server names the server in results.
	Server string
	// Logger receives one line when the catalog is built, and a warning
	// if the snapshot or the function table cannot be used. Nil discards.
	Logger *slog.Logger
	// BuildInfo overrides debug.ReadBuildInfo (useful in tests).
	BuildInfo *debug.BuildInfo
	// Now overrides time.Now for observedAt.
	Now func() time.Time
	// Embedder, when set, fuses the ranking of a code_search phrase by
	// words with the entries whose vectors are nearest to the query's
	// (see Embedder). Nil, the default, ranks by words alone.
	Embedder Embedder
}

// Catalog is the code catalog behind the code tools (code_search,
// code_definition, code_references, code_file). It is safe for concurrent
// use. The runtime and snapshot sources are built once, by Warm or on
// first use (concurrent first calls wait for the same build); registered
// entries may change at any time and the search index is rebuilt on the
// next query after a change.
type Catalog struct {
	opts   Options
	max    int
	build  *buildState
	logger *slog.Logger
	// loadRuntime reads the function table; tests replace it.
	loadRuntime func() (*index.RuntimeTable, error)

	baseOnce sync.Once
	baseDone chan struct{}
	base     *baseIndex

	mu        sync.Mutex
	indexCost indexCost // of the first search index
	docs      map[string]regDoc
	tools     []regDoc
	optErr    error
	routes    []nav.Route // routes.go
	dirty     bool
	// warnedBound records that Logger was told of dropped entries.
	warnedBound bool
	current     *catalogIndex
	stops       []func() // Register's watches; Close calls them (warm.go)
}

// NewCatalog returns a catalog configured by opts, which may be nil. It
// does no work until Warm or the first query.
func NewCatalog(opts *Options) *Catalog {
	var o Options
	if opts != nil {
		o = *opts
	}
	return newCatalog(o)
}

func newCatalog(opts Options) *Catalog {
	bi := opts.BuildInfo
	if bi == nil {
		bi, _ = debug.ReadBuildInfo()
	}
	c := &Catalog{opts: opts, max: opts.MaxEntries, build: newBuildState(bi), logger: opts.Logger,
		loadRuntime: index.ReadRuntime, docs: map[string]regDoc{}, dirty: true, baseDone: make(chan struct{})}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.max <= 0 || c.max > DefaultMaxEntries {
		c.max = DefaultMaxEntries
	}
	if opts.Packages != nil {
		if err := opts.Packages.Validate(); err != nil {
			// Not applied: the catalog covers every package, and says why.
			c.opts.Packages = nil
			c.optErr = fmt.Errorf("the package selection (Options.Packages) is not applied: %w", err)
		}
	}
	for _, d := range opts.Docs {
		if err := c.Register(d); err != nil && c.optErr == nil {
			c.optErr = err
		}
	}
	return c
}

// Register adds or replaces a registered documentation entry. It returns
// an error wrapping ErrInvalidArgument if d is invalid.
func (c *Catalog) Register(d Doc) error {
	r, err := c.validateDoc(d)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.docs[r.id] = r
	c.dirty = true
	return nil
}

// SetTools replaces the registered tool entries.
func (c *Catalog) SetTools(tools []ToolDoc) {
	regs := make([]regDoc, 0, len(tools))
	for _, t := range tools {
		if t.Name != "" {
			regs = append(regs, toolDoc(t))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tools = regs
	c.dirty = true
}

// indexCost is what building a search index took.
type indexCost struct {
	d     time.Duration
	alloc uint64
}

// baseIndex holds the runtime and snapshot sources, built once: what the
// index reads of them (indexBase) and what the tools report of them.
type baseIndex struct {
	*index.Base
	// modules holds the consistency of each snapshot module, by module
	// path ("std" for the standard library).
	modules map[string]*moduleCheck
	stats   BuildStats
	// docsAtBuild is the heap the documentation kept when the sources were
	// built (Base.DocsSize), counted in stats.RetainedBytes.
	docsAtBuild uint64
	// refs are the snapshot's references, read on first use (references.go).
	refsOnce   sync.Once
	refsLoaded atomic.Bool // refsOnce has run
	refs       *nav.RefTable
	refsErr    error
	// pre are the snapshot's precomputed vectors, read on the first
	// phrase searched with an Embedder (embedder.go).
	pre search.PreVectors
}

// catalogIndex is an immutable search index over all sources: the
// entries and their search structures (coreIndex), with the registered
// documents, the coverage and the vectors the tools answer with.
type catalogIndex struct {
	*index.Index
	base    *baseIndex
	regs    []regDoc
	cov     Coverage
	dropped []string     // ids left out by the entry bound, sorted (truncate)
	dense   search.Dense // an Embedder's vectors of entries (package search)
}

// renderer builds the answers of the tools (SearchHit, Reference,
// Definition) from the entries of an index.
type renderer struct{ *catalogIndex }

// baseIndex returns the runtime and snapshot sources, starting their
// build if needed, or ctx's error if ctx ends first. The build itself is
// not bound to any caller's context: it runs once, for all of them.
func (c *Catalog) baseIndex(ctx context.Context) (*baseIndex, error) {
	c.baseOnce.Do(func() {
		go func() {
			defer close(c.baseDone)
			c.base = c.buildBase()
		}()
	})
	select {
	case <-c.baseDone:
		return c.base, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// index returns the current index, building it if needed.
func (c *Catalog) index(ctx context.Context) (*catalogIndex, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	base, err := c.baseIndex(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty && c.current != nil {
		return c.current, nil
	}
	regs := make([]regDoc, 0, len(c.docs)+len(c.tools))
	for _, r := range c.docs {
		regs = append(regs, r)
	}
	regs = append(regs, c.tools...)
	sort.Slice(regs, func(i, j int) bool { return regs[i].id < regs[j].id })
	first := c.current == nil
	start, alloc0 := time.Now(), allocatedBytes()
	c.current = newIndex(base, regs, c.max, c.build)
	if first {
		c.indexCost = indexCost{time.Since(start), allocatedBytes() - alloc0}
	}
	c.continueWords(c.current)
	if c.current.cov.Truncated && !c.warnedBound {
		c.warnedBound = true
		c.logger.Warn("codetools: entries left out of the catalog by Options.MaxEntries",
			"entries", len(c.current.Entries), "dropped", c.current.cov.DroppedEntries, "maxEntries", c.max,
			"rule", truncationRule)
	}
	if c.optErr != nil {
		c.current.cov.RegisteredError = c.optErr.Error()
	}
	c.dirty = false
	return c.current, nil
}

// mainPackage returns the import path of the main package, for symbols
// of package "main".
func (c *Catalog) mainPackage(s *snapshot.Snapshot) string {
	if p := c.build.mainPkg; p != "" && p != "command-line-arguments" {
		return p
	}
	if s != nil {
		return s.Manifest.MainPackage
	}
	return c.build.mainPkg
}

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

// resolve finds the entry for a name pasted by an agent.
func (c *Catalog) resolve(x *catalogIndex, name string) (*index.Entry, bool) {
	if e, ok := x.Lookup(name); ok {
		return e, true
	}
	if e, ok := x.LookupSymbol(name); ok {
		return e, true
	}
	isPkg := func(p string) bool {
		return c.build.isModulePath(p) || (x.base.Snap != nil && strings.IndexByte(p, '.') >= 0 && x.base.Snap.Pkgs[p])
	}
	mainPkgs := []string{c.build.mainPkg}
	if s := x.base.Snap; s != nil && s.Manifest.MainPackage != c.build.mainPkg {
		mainPkgs = append(mainPkgs, s.Manifest.MainPackage)
	}
	for _, mp := range mainPkgs {
		sym, ok := index.ParseSymbol(name, mp, isPkg)
		if !ok {
			continue
		}
		if e, ok := x.Lookup(sym.ID()); ok {
			return e, true
		}
		if alt := sym.AltID(); alt != "" {
			if e, ok := x.Lookup(alt); ok {
				return e, true
			}
		}
		if sym.Recv != "" && !sym.Ptr && sym.Closure {
			// F.G.func1 is also a closure of G inlined into function F,
			// as the compiler names it (strings.FieldsSeq's iterator
			// inlined into a caller): the code is F's.
			if e, ok := x.Lookup(sym.Pkg + "." + sym.Recv); ok && e.Kind == index.KindFunc {
				return e, true
			}
		}
	}
	return nil, false
}

// maxErrorText bounds the error text an answer repeats.
const maxErrorText = 400

// sourceLimitations adds to b why a source is missing or partial.
func (b *baseIndex) sourceLimitations(w *strings.Builder) {
	if b.SnapshotErr != nil {
		var se *snapshot.Error
		if errors.As(b.SnapshotErr, &se) {
			w.WriteString(" The embedded source snapshot is not used, so answers come from the binary alone: ")
		} else {
			w.WriteString(" Some files of the source snapshot were left out: ")
		}
		w.WriteString(search.Clip(b.SnapshotErr.Error(), maxErrorText))
		w.WriteString(".")
	}
	if b.RuntimeErr != nil {
		w.WriteString(" The function table of the binary could not be read: ")
		w.WriteString(search.Clip(b.RuntimeErr.Error(), maxErrorText))
		w.WriteString(".")
	}
}

// limitations returns text followed by why a source is missing.
func (b *baseIndex) limitations(text string) string {
	if b.SnapshotErr == nil && b.RuntimeErr == nil {
		return text
	}
	var w strings.Builder
	w.WriteString(text)
	b.sourceLimitations(&w)
	return w.String()
}

// Kinds of catalog entries.
const (
	KindFunc    = "func"
	KindMethod  = "method"
	KindType    = "type"
	KindConst   = "const"
	KindVar     = "var"
	KindPackage = "package"
	KindTool    = "tool"
	KindDoc     = "doc"
	// KindField is a field of a struct type (id pkg.Type.Field); its
	// definition is the struct's.
	KindField = "field"
)

// Sources of catalog entries.
const (
	SourceRuntime    = "runtime"
	SourceSnapshot   = "snapshot"
	SourceRegistered = "registered"
	// SourceReferences marks a declaration of a package outside the
	// snapshot, known only because the snapshot's code refers to it.
	SourceReferences = "references"
)

// searchInput returns the input of the search engine of x, built with st.
func (x *catalogIndex) searchInput(st *buildState) *index.SearchInput {
	return &index.SearchInput{Entries: x.Entries, Snap: x.base.Snap, MainMod: st.info.MainModule.Path,
		Mods: st.mods, MainPkg: st.mainPkg, Words: x.WordsOf, Doc: x.DocOf, File: x.FileOf, Pre: x.base.Pre}
}
