package codetools

import (
	"context"
	"io/fs"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
)

// Options configures a Catalog. The zero value is a catalog of the
// running binary alone.
type Options struct {
	// Snapshot is the source snapshot written by mcpsnapshot, rooted at
	// the directory holding manifest.json (use fs.Sub on an embed.FS).
	// Nil disables the snapshot source.
	Snapshot fs.FS
	// Docs are registered documentation entries, as if passed to Register.
	// Invalid entries are reported by the first Search or Definition.
	Docs []Doc
	// MaxEntries bounds the catalog; 0 or values above DefaultMaxEntries
	// mean DefaultMaxEntries.
	MaxEntries int
	// Server names the server in results.
	Server string
	// BuildInfo overrides debug.ReadBuildInfo (useful in tests).
	BuildInfo *debug.BuildInfo
	// Now overrides time.Now for observedAt.
	Now func() time.Time
}

// Catalog is the code catalog behind code_search and code_definition. It
// is safe for concurrent use. The runtime and snapshot sources are built
// once, on first use; registered entries may change at any time and the
// search index is rebuilt on the next query after a change.
type Catalog struct {
	opts  Options
	max   int
	build *buildState
	// loadRuntime reads the function table; tests replace it.
	loadRuntime func() ([]runtimeFunc, error)

	baseOnce sync.Once
	base     *baseIndex

	mu      sync.Mutex
	docs    map[string]regDoc
	tools   []regDoc
	optErr  error
	dirty   bool
	current *index
}

// NewCatalog returns a catalog configured by opts, which may be nil. It
// does no work until the first Search or Definition.
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
	c := &Catalog{opts: opts, max: opts.MaxEntries, build: newBuildState(bi),
		loadRuntime: readFuncTable, docs: map[string]regDoc{}, dirty: true}
	if c.max <= 0 || c.max > DefaultMaxEntries {
		c.max = DefaultMaxEntries
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

// baseIndex holds the runtime and snapshot sources, built once.
type baseIndex struct {
	entries     []entry // sorted by id
	snap        *snapshot
	runtimeErr  error
	snapshotErr error
	noSource    []string // packages with runtime entries but no snapshot source
	runtimeN    int
	buildTime   time.Duration
}

// index is an immutable search index over all sources.
type index struct {
	base    *baseIndex
	entries []entry     // sorted by id
	hay     string      // lower-cased id and documentation of each entry
	offs    []uint32    // entry i occupies hay[offs[i]:offs[i+1]]
	freq    [256]uint32 // byte frequencies of hay
	regs    []regDoc
	cov     Coverage
}

// index returns the current index, building it if needed.
func (c *Catalog) index(ctx context.Context) (*index, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.baseOnce.Do(func() { c.base = c.buildBase() })
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
	c.current = newIndex(c.base, regs, c.max, c.build)
	if c.optErr != nil {
		c.current.cov.RegisteredError = c.optErr.Error()
	}
	c.dirty = false
	return c.current, nil
}

// buildBase reads the runtime function table and the snapshot.
func (c *Catalog) buildBase() *baseIndex {
	start := time.Now()
	b := &baseIndex{}
	in := interner{}
	var snapEntries []entry
	if c.opts.Snapshot != nil {
		b.snap, snapEntries, b.snapshotErr = loadSnapshot(c.opts.Snapshot, in)
		if b.snap != nil && b.snap.warning != nil {
			b.snapshotErr = b.snap.warning
		}
	}
	isPkg := func(p string) bool {
		return c.build.isModulePath(p) || (b.snap != nil && strings.IndexByte(p, '.') >= 0 && b.snap.pkgs[p])
	}
	byID := make(map[string]int, len(snapEntries))
	entries := snapEntries
	for i := range entries {
		if _, dup := byID[entries[i].id]; !dup {
			byID[entries[i].id] = i
		}
	}
	funcs, err := c.loadRuntime()
	b.runtimeErr = err
	rtPkgs := map[string]bool{}
	for _, f := range funcs {
		if f.file == "<autogenerated>" {
			continue
		}
		sym, ok := parseSymbol(f.name, c.build.mainPkg, isPkg)
		if !ok {
			continue
		}
		id := sym.id()
		i, seen := byID[id]
		if !seen {
			k := kFunc
			if sym.recv != "" {
				k = kMethod
			}
			pkg := in.get(sym.pkg)
			i = len(entries)
			byID[id] = i
			entries = append(entries, entry{id: id, pkg: pkg, kind: k, snap: -1, reg: -1})
			rtPkgs[pkg] = true
		}
		e := &entries[i]
		better := e.sources&srcRuntime == 0 || (!e.rtExact && !sym.closure) ||
			(e.rtExact == !sym.closure && int32(f.line) < e.rtLine)
		if better {
			e.rtExact = !sym.closure
			e.rtLine = int32(f.line)
			e.rtFile = in.get(displayPath(f.file, sym.pkg, c.build.mods, c.build.info.MainModule.Path))
			if e.sources&srcSnapshot == 0 {
				e.file, e.line = e.rtFile, e.rtLine
			}
		}
		if e.sources&srcRuntime == 0 {
			b.runtimeN++
		}
		e.sources |= srcRuntime
	}
	for p := range rtPkgs {
		if b.snap == nil || !b.snap.pkgs[p] {
			b.noSource = append(b.noSource, p)
		}
	}
	sort.Strings(b.noSource)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].id < entries[j].id })
	b.entries = dedupSorted(entries)
	b.buildTime = time.Since(start)
	return b
}

// dedupSorted drops later entries with an id equal to the previous one.
func dedupSorted(es []entry) []entry {
	out := es[:0]
	for i := range es {
		if len(out) > 0 && out[len(out)-1].id == es[i].id {
			continue
		}
		out = append(out, es[i])
	}
	return out[:len(out):len(out)]
}

// newIndex merges registered documents into the base entries, applies the
// entry bound and builds the search text.
func newIndex(b *baseIndex, regs []regDoc, max int, st *buildState) *index {
	x := &index{base: b, regs: regs}
	entries := b.entries
	if len(regs) > 0 {
		entries = make([]entry, len(b.entries), len(b.entries)+len(regs))
		copy(entries, b.entries)
		added := false
		for ri, r := range regs {
			i := sort.Search(len(b.entries), func(i int) bool { return b.entries[i].id >= r.id })
			if i < len(b.entries) && b.entries[i].id == r.id {
				e := &entries[i]
				e.sources |= srcRegistered
				e.reg = int32(ri)
				if r.Documentation != "" {
					e.doc = docPrefix(r.Documentation, maxIndexedRegisteredDoc)
				}
				if r.hasK {
					e.kind = r.kind
				}
				continue
			}
			k := kDoc
			if r.hasK {
				k = r.kind
			}
			entries = append(entries, entry{id: r.id, pkg: r.Package, file: r.File, line: int32(r.Line),
				doc: docPrefix(r.Documentation, maxIndexedRegisteredDoc), kind: k, sources: srcRegistered, snap: -1, reg: int32(ri)})
			added = true
		}
		if added {
			sort.SliceStable(entries, func(i, j int) bool { return entries[i].id < entries[j].id })
			entries = dedupSorted(entries)
		}
	}
	x.cov.TruncationRule = truncationRule
	if len(entries) > max {
		kept := make([]entry, len(entries))
		copy(kept, entries)
		mainMod := st.info.MainModule.Path
		sort.SliceStable(kept, func(i, j int) bool {
			ri, rj := rank(&kept[i], mainMod), rank(&kept[j], mainMod)
			if ri != rj {
				return ri < rj
			}
			return kept[i].id < kept[j].id
		})
		x.cov.Truncated = true
		x.cov.DroppedEntries = len(kept) - max
		kept = kept[:max:max]
		sort.Slice(kept, func(i, j int) bool { return kept[i].id < kept[j].id })
		entries = kept
	}
	x.entries = entries
	x.buildHaystack()
	x.fillCoverage(max)
	return x
}

// truncationRule documents the deterministic entry bound.
const truncationRule = "when the catalog exceeds maxEntries, entries are kept in this order until the bound is reached: " +
	"registered, then snapshot, then runtime-only entries of the main module, then of other modules, then of the " +
	"standard library; ties are broken by id in byte order"

// rank orders entries for truncation; lower ranks are kept first.
func rank(e *entry, mainMod string) int {
	switch {
	case e.sources&srcRegistered != 0:
		return 0
	case e.sources&srcSnapshot != 0:
		return 1
	case mainMod != "" && (e.pkg == mainMod || strings.HasPrefix(e.pkg, mainMod+"/")):
		return 2
	case !isStdPkg(e.pkg):
		return 3
	default:
		return 4
	}
}

// buildHaystack builds the lower-cased search text.
func (x *index) buildHaystack() {
	n := 0
	for i := range x.entries {
		n += len(x.entries[i].id) + len(x.entries[i].doc) + 2
	}
	var b strings.Builder
	b.Grow(n)
	x.offs = make([]uint32, len(x.entries)+1)
	for i := range x.entries {
		x.offs[i] = uint32(b.Len())
		writeLower(&b, x.entries[i].id)
		b.WriteByte(0)
		writeLower(&b, x.entries[i].doc)
		b.WriteByte(0)
	}
	x.offs[len(x.entries)] = uint32(b.Len())
	x.hay = b.String()
	for i := 0; i < len(x.hay); i++ {
		x.freq[x.hay[i]]++
	}
}

// writeLower writes the lower-case form of s.
func writeLower(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			b.WriteString(strings.ToLower(s))
			return
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
}

// lookup returns the entry with the given id.
func (x *index) lookup(id string) (*entry, bool) {
	i := sort.Search(len(x.entries), func(i int) bool { return x.entries[i].id >= id })
	if i < len(x.entries) && x.entries[i].id == id {
		return &x.entries[i], true
	}
	return nil, false
}

// resolve finds the entry for a name pasted by an agent.
func (c *Catalog) resolve(x *index, name string) (*entry, bool) {
	if e, ok := x.lookup(name); ok {
		return e, true
	}
	isPkg := func(p string) bool {
		return c.build.isModulePath(p) || (x.base.snap != nil && strings.IndexByte(p, '.') >= 0 && x.base.snap.pkgs[p])
	}
	mainPkgs := []string{c.build.mainPkg}
	if s := x.base.snap; s != nil && s.man.MainPackage != c.build.mainPkg {
		mainPkgs = append(mainPkgs, s.man.MainPackage)
	}
	for _, mp := range mainPkgs {
		sym, ok := parseSymbol(name, mp, isPkg)
		if !ok {
			continue
		}
		if e, ok := x.lookup(sym.id()); ok {
			return e, true
		}
		if alt := sym.altID(); alt != "" {
			if e, ok := x.lookup(alt); ok {
				return e, true
			}
		}
	}
	return nil, false
}
