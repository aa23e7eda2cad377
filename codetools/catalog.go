package codetools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/nav"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
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
