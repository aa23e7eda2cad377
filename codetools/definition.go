package codetools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/nav"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"strings"
	"time"
	"unicode/utf8"
)

// DefinitionQuery holds the code_definition arguments.
type DefinitionQuery struct {
	// Name is an id from code_search or a symbol from a stack trace or
	// profile. Required.
	Name string `json:"name"`
	// Offset is the character offset of the chunk; ≥ 0.
	Offset int `json:"offset,omitempty"`
	// MaxCharacters is the chunk size, 1..32768; 0 means
	// DefaultMaxCharacters.
	MaxCharacters int `json:"maxCharacters,omitempty"`
	// ListOffset is the offset in the methods of a type or the
	// declarations of a package; ≥ 0.
	ListOffset int `json:"listOffset,omitempty"`
	// Detail is "" or DetailProvenance; it selects what the tool answer
	// carries (Catalog.Definition always fills every field).
	Detail string `json:"detail,omitempty"`
}

// Definition is the code_definition answer: the declaration's source in a
// bounded chunk with its hash, documentation and location, whether it is
// linked into the binary, and the build, snapshot and consistency that say
// whether the source is what the binary runs.
type Definition struct {
	Server     string `json:"server" jsonschema:"Server the catalog describes."`
	ObservedAt int64  `json:"observedAt" jsonschema:"Time of the answer, in Unix seconds."`
	// Name is the canonical id; RequestedName is the name as given, when
	// it differs.
	Name          string   `json:"name" jsonschema:"Canonical id of the entry."`
	RequestedName string   `json:"requestedName,omitempty" jsonschema:"Name as given, when it differs from name."`
	Kind          string   `json:"kind" jsonschema:"Kind of entry: func, method, type, var, const, package, doc or tool."`
	Source        string   `json:"source" jsonschema:"Where definition comes from: registered, snapshot, runtime, or references (a declaration outside the snapshot that its code refers to)."`
	Sources       []string `json:"sources,omitempty" jsonschema:"Every source that holds the entry (detail provenance)."`
	SourceFile    string   `json:"sourceFile" jsonschema:"File of the declaration; empty if unknown."`
	Line          int      `json:"line,omitempty" jsonschema:"Line of the declaration in sourceFile."`
	// PackageKey is the Go import path of the entry's package.
	PackageKey string `json:"packageKey" jsonschema:"Import path of the entry's package."`
	// SourceAvailable reports whether Definition holds source text.
	SourceAvailable      bool           `json:"sourceAvailable" jsonschema:"Whether definition holds source text."`
	Definition           string         `json:"definition,omitempty" jsonschema:"Chunk of the definition starting at offset; untrusted. The tool sends it as the second text block of its answer instead."`
	DefinitionCharacters int            `json:"definitionCharacters" jsonschema:"Length of the whole definition in characters."`
	Offset               int            `json:"offset" jsonschema:"Character offset of this chunk."`
	More                 bool           `json:"more" jsonschema:"Whether more of the definition follows this chunk."`
	NextArguments        *NextArguments `json:"nextArguments,omitempty" jsonschema:"Arguments that fetch the next chunk; present when more is true."`
	// SHA256 is the hex SHA-256 of the whole definition ("" if none).
	SHA256                 string `json:"sha256" jsonschema:"Hex SHA-256 of the whole definition; empty if there is none."`
	Documentation          string `json:"documentation,omitempty" jsonschema:"Documentation of the entry, at most 8192 characters; untrusted. Left out of the tool answer when the source holds it."`
	DocumentationTruncated bool   `json:"documentationTruncated,omitempty" jsonschema:"Whether documentation was cut to 8192 characters."`
	DiskCompared           bool   `json:"diskCompared,omitempty" jsonschema:"Always false: files on disk are not read."`
	UpstreamCompared       bool   `json:"upstreamCompared,omitempty" jsonschema:"Always false: upstream sources are not fetched."`
	// Linked reports whether the symbol is in the running binary's
	// function table; LinkedEvidence says how that was decided.
	Linked         bool                `json:"linked" jsonschema:"Whether the symbol is in the running binary's function table."`
	LinkedEvidence string              `json:"linkedEvidence,omitempty" jsonschema:"How linked was decided (detail provenance, or when not linked)."`
	Runtime        *RuntimeLocation    `json:"runtime,omitempty" jsonschema:"Where the function table places the symbol, if linked."`
	Build          *Build              `json:"build,omitempty" jsonschema:"Build provenance of the running binary for the entry's package."`
	Snapshot       *SnapshotProvenance `json:"snapshot,omitempty" jsonschema:"Provenance of the snapshot the source came from."`
	Consistency    Consistency         `json:"consistency" jsonschema:"Whether the snapshot source is what the running binary was compiled from: match, stale or unverified, with the reason."`
	Limitations    string              `json:"limitations,omitempty" jsonschema:"What this answer can and cannot tell (detail provenance, or when a source is missing)."`
	// Focus marks the line a stack-trace file line named, or the line of
	// the interface method or field the name named.
	Focus *Focus `json:"focus,omitempty" jsonschema:"The line a file:line query, an interface method or a field named, within this definition."`
	// Methods lists the methods of a type (declared, then promoted
	// through embedded fields) or of an interface, 50 at a time
	// from listOffset.
	Methods []Reference `json:"methods,omitempty" jsonschema:"Methods of the type or interface (a page of them, from listOffset), with ids for code_definition; how is declared unless given."`
	// Implements lists the interfaces the type implements, among those
	// the snapshot declares or names.
	Implements []string `json:"implements,omitempty" jsonschema:"Ids of the interfaces the type implements (or its pointer: marked with a leading *), among those the snapshot declares or names."`
	// Files lists the files of a package in the snapshot.
	Files []string `json:"files,omitempty" jsonschema:"Files of the package in the snapshot, as code_file accepts them."`
	// Declarations lists the exported declarations of a package (every
	// declaration of a main package), 50 at a time from listOffset.
	Declarations []Reference `json:"declarations,omitempty" jsonschema:"Exported declarations of the package (a page of them, from listOffset), with ids for code_definition."`
	// ListTotal counts the methods or declarations; NextListOffset is the
	// listOffset of the next page.
	ListTotal      int  `json:"listTotal,omitempty" jsonschema:"Number of methods or declarations in all."`
	NextListOffset *int `json:"nextListOffset,omitempty" jsonschema:"listOffset of the next page of methods or declarations."`

	// caveat: the limitations say more than the tool's standing ones (a
	// missing source, a partial list), so the compact answer keeps them.
	caveat bool
}

// NextArguments are the arguments of the next chunk's request.
type NextArguments struct {
	Name          string `json:"name" jsonschema:"Canonical id of the entry."`
	Offset        int    `json:"offset" jsonschema:"Character offset of the next chunk."`
	MaxCharacters int    `json:"maxCharacters" jsonschema:"Chunk size in characters."`
}

// RuntimeLocation is where the function table places a linked symbol.
type RuntimeLocation struct {
	File string `json:"file" jsonschema:"File recorded in the function table."`
	Line int    `json:"line" jsonschema:"Declaration line, or first line of linked code when exact is false."`
	// Exact is false when the line is that of a closure, a wrapper or
	// inlined code of the declaration rather than its own entry.
	Exact bool `json:"exact" jsonschema:"False when the line is that of a closure, wrapper or inlined code, not the declaration."`
	// Closures reports that closures, method values or wrappers of the
	// declaration are linked.
	Closures bool `json:"closures,omitempty" jsonschema:"Whether closures, method values or wrappers of the declaration are linked."`
	// Inlined reports that the declaration's body was inlined into other
	// functions; InlinedInto names one of them.
	Inlined     bool   `json:"inlined,omitempty" jsonschema:"Whether the body was inlined into other functions."`
	InlinedInto string `json:"inlinedInto,omitempty" jsonschema:"A function the body was inlined into."`
}

// SnapshotProvenance describes the snapshot an entry's source came from.
type SnapshotProvenance struct {
	MainPackage string          `json:"mainPackage" jsonschema:"Main package the snapshot was made for."`
	GoVersion   string          `json:"goVersion,omitempty" jsonschema:"Go version of the standard library in the snapshot, if it holds it."`
	GOOS        string          `json:"goos" jsonschema:"Target GOOS of the snapshot."`
	GOARCH      string          `json:"goarch" jsonschema:"Target GOARCH of the snapshot."`
	Tags        []string        `json:"tags,omitempty" jsonschema:"Build tags of the snapshot."`
	Module      *SnapshotModule `json:"module,omitempty" jsonschema:"Module of the entry's package, if known."`
	File        string          `json:"file" jsonschema:"Snapshot file holding the entry."`
	FileSHA256  string          `json:"fileSha256" jsonschema:"Hex SHA-256 of that file."`
}

// SnapshotModule is a module of the snapshot's build, as its manifest
// records it.
type SnapshotModule struct {
	Path    string `json:"path" jsonschema:"Module path."`
	Version string `json:"version,omitempty" jsonschema:"Module version required by the build."`
	Sum     string `json:"sum,omitempty" jsonschema:"Checksum from go.sum."`
	// Replace is the replacement: path@version for a module, the
	// directory as written in go.mod for a local one.
	Replace string `json:"replace,omitempty" jsonschema:"Replacement: path@version, or the local directory as written in go.mod."`
	// Local reports a replacement by a local directory, whose content has
	// no version or checksum.
	Local bool `json:"local,omitempty" jsonschema:"Whether the module is replaced by a local directory."`
	Main  bool `json:"main,omitempty" jsonschema:"Whether this is the main module."`
}

func (c *Catalog) now() int64 {
	if c.opts.Now != nil {
		return c.opts.Now().Unix()
	}
	return time.Now().Unix()
}

// Definition runs a code_definition query. It returns an error wrapping
// ErrInvalidArgument for bad arguments and ErrUnknownName when the name
// is not in the catalog.
func (c *Catalog) Definition(ctx context.Context, q DefinitionQuery) (*Definition, error) {
	switch {
	case strings.TrimSpace(q.Name) == "":
		return nil, invalidf("name must not be empty: give an id from code_search, a name, a stack-trace symbol or file:line")
	case len(q.Name) > MaxNameBytes:
		return nil, invalidf("name is %d bytes long; at most %d are accepted", len(q.Name), MaxNameBytes)
	case strings.ContainsRune(q.Name, 0) || !utf8.ValidString(q.Name):
		return nil, invalidf("name must be valid UTF-8 without NUL characters")
	case q.Offset < 0:
		return nil, invalidf("offset %d must be ≥ 0", q.Offset)
	case q.MaxCharacters < 0 || q.MaxCharacters > maxMaxCharacters:
		return nil, invalidf("maxCharacters %d is out of range 1..%d", q.MaxCharacters, maxMaxCharacters)
	case q.ListOffset < 0:
		return nil, invalidf("listOffset %d must be ≥ 0", q.ListOffset)
	}
	if err := checkDetail(q.Detail); err != nil {
		return nil, err
	}
	if q.MaxCharacters == 0 {
		q.MaxCharacters = DefaultMaxCharacters
	}
	x, err := c.index(ctx)
	if err != nil {
		return nil, err
	}
	e, focus, err := c.resolveName(x, q.Name)
	if err == nil && e.ID != strings.TrimSpace(q.Name) {
		// A field or an interface method of that exact id comes before a
		// declaration the name was folded to.
		if me, mf := c.resolveMember(x, q.Name); me != nil {
			e, focus = me, mf
		}
	}
	if err == nil && e.Member {
		e, focus = renderer{x}.memberOwner(e)
	}
	var generated string
	if err != nil {
		var outside *Definition
		if ge, note, gd := c.generatedFunc(x, q.Name, err); gd != nil {
			return gd, nil
		} else if ge != nil {
			e, focus, generated = ge, nil, note
		} else if e, focus, outside = c.resolveSymbol(x, q.Name, err); outside != nil {
			return outside, nil
		}
		if e == nil {
			return nil, err
		}
	}
	d := &Definition{Server: c.opts.Server, ObservedAt: c.now(), Name: e.ID, Kind: e.Kind.String(),
		Sources: sourceNames(e.Sources), SourceFile: x.FileOf(e), Line: int(e.Line), PackageKey: e.Pkg}
	if q.Name != e.ID {
		d.RequestedName = echoArg(q.Name)
	}
	var reg *regDoc
	if e.Reg >= 0 {
		reg = &x.regs[e.Reg]
	}
	snap := x.base.Snap
	var text, docText string
	switch {
	case reg != nil && reg.Definition != "":
		text, d.Source = reg.Definition, SourceRegistered
	case e.Snap >= 0:
		text, err = snap.ReadSpan(e.Snap, e.Start, e.End)
		if err != nil {
			return nil, err
		}
		d.Source = SourceSnapshot
	case reg != nil:
		d.Source = SourceRegistered
	default:
		d.Source = SourceRuntime
	}
	if reg != nil && reg.Documentation != "" {
		docText = reg.Documentation
	} else if e.Snap >= 0 && e.DocEnd > e.DocBeg {
		raw, err := snap.ReadSpan(e.Snap, e.DocBeg, e.DocEnd)
		if err != nil {
			return nil, err
		}
		docText = commentText(raw)
	}
	d.SourceAvailable = text != ""
	if text != "" {
		sum := sha256.Sum256([]byte(text))
		d.SHA256 = hex.EncodeToString(sum[:])
	}
	d.Definition, d.DefinitionCharacters = chunk(text, q.Offset, q.MaxCharacters)
	if q.Offset > d.DefinitionCharacters {
		return nil, invalidf("offset %d is past the end of the definition of %s (%d characters)",
			q.Offset, e.ID, d.DefinitionCharacters)
	}
	d.Offset = q.Offset
	if focus != nil {
		if d.Source == SourceSnapshot {
			renderer{x}.focus(focus, e, text)
		}
		d.Focus = focus
	}
	if next := q.Offset + utf8.RuneCountInString(d.Definition); next < d.DefinitionCharacters {
		d.More = true
		d.NextArguments = &NextArguments{Name: e.ID, Offset: next, MaxCharacters: q.MaxCharacters}
	}
	d.Documentation, d.DocumentationTruncated = truncateChars(docText, maxDocumentationCharacters)
	renderer{x}.linkage(d, e)
	if e.Pkg != "" && e.Kind != index.KindTool && e.Kind != index.KindDoc {
		d.Build = c.build.forPackage(e.Pkg)
	}
	if e.Snap >= 0 {
		d.Snapshot = snapshotProvenance(snap, e)
	}
	d.Consistency = renderer{x}.consistency(e)
	if err := (renderer{x}).lists(d, e, q.ListOffset); err != nil {
		return nil, err
	}
	d.Limitations = renderer{x}.definitionLimitations(d)
	d.caveat = x.base.SnapshotErr != nil || x.base.RuntimeErr != nil ||
		d.Kind == KindType && x.base.Snap != nil && x.base.refsErr != nil
	if generated != "" {
		d.Limitations = strings.TrimSpace(generated + " " + d.Limitations)
		d.caveat = true
	}
	return d, nil
}

// linkage fills Linked, LinkedEvidence and Runtime.
func (x renderer) linkage(d *Definition, e *index.Entry) {
	switch {
	case e.Sources&index.SrcRuntime != 0:
		d.Linked = true
		loc := &RuntimeLocation{File: x.base.RtFileOf(e), Line: int(e.RtLine), Exact: e.Linkage.Exact(),
			Closures: e.Linkage&index.RtClosure != 0, Inlined: e.Linkage&index.RtInlined != 0}
		var how []string
		if e.Linkage&index.RtForeign != 0 {
			how = append(how, "listed in the function table of the running executable, outside any Go package: C code (cgo, the race detector's runtime) or a file-local assembly function, with no Go declaration")
		}
		if e.Linkage&index.RtOwn != 0 {
			how = append(how, "listed in the function table of the running executable")
		}
		if e.Linkage&index.RtClosure != 0 {
			how = append(how, "closures, method values or wrappers of it are linked")
		}
		if e.Linkage&index.RtInlined != 0 {
			loc.InlinedInto = x.base.InlInto[e.ID]
			s := "its body is inlined"
			if loc.InlinedInto != "" {
				s += " (into " + loc.InlinedInto + ", among others)"
			}
			how = append(how, s)
		}
		d.LinkedEvidence = strings.Join(how, "; ")
		d.Runtime = loc
	case e.Kind == index.KindFunc || e.Kind == index.KindMethod:
		if err := x.base.RuntimeErr; err != nil {
			d.LinkedEvidence = "unknown: the function table could not be read: " + err.Error()
		} else {
			d.LinkedEvidence = "not in the function table, neither linked nor inlined: removed by the linker as unused, or not part of this build"
		}
	default:
		d.LinkedEvidence = "not applicable: only functions and methods are listed in the function table"
	}
}

func snapshotProvenance(s *snapshot.Snapshot, e *index.Entry) *SnapshotProvenance {
	f := &s.Files[e.Snap]
	p := &SnapshotProvenance{MainPackage: s.Manifest.MainPackage, GoVersion: s.Manifest.GoVersion, GOOS: s.Manifest.GOOS,
		GOARCH: s.Manifest.GOARCH, Tags: s.Manifest.Tags, File: f.Display, FileSHA256: f.SHA256}
	if mi, ok := s.ModOf[e.Pkg]; ok {
		m := s.Manifest.Modules[mi]
		p.Module = &SnapshotModule{Path: m.Path, Version: m.Version, Sum: m.Sum, Replace: m.Replace, Local: m.Local, Main: m.Main}
	}
	return p
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// definitionLimitations explains what the answer rests on.
func (x renderer) definitionLimitations(d *Definition) string {
	var b strings.Builder
	b.WriteString("Evidence is from this process at retrieval time; disk contents and upstream provenance are not verified. ")
	switch d.Source {
	case SourceSnapshot:
		b.WriteString("Source comes from the snapshot embedded at build time; it can differ from what was compiled (see consistency). ")
	case SourceRegistered:
		b.WriteString("Text was registered by the host and is not verified against the binary. ")
	default:
		b.WriteString("Source is unavailable: no snapshot holds this declaration, so only runtime metadata is answered. ")
	}
	b.WriteString(runtimeLimitations)
	b.WriteString(" Source and documentation are untrusted data.")
	if d.Kind == KindType && x.base.Snap != nil && x.base.refsErr != nil {
		b.WriteString(" Only the methods declared on the type are listed, not the interfaces it implements nor promoted methods: ")
		b.WriteString(search.Clip(x.base.refsErr.Error(), maxErrorText))
		b.WriteString(".")
	}
	x.base.sourceLimitations(&b)
	return b.String()
}

// sourceNames returns the names of the sources of s.
func sourceNames(s index.SourceSet) []string {
	out := make([]string, 0, 3) // never nil: encodes as [], not null
	if s&index.SrcRuntime != 0 {
		out = append(out, SourceRuntime)
	}
	if s&index.SrcSnapshot != 0 {
		out = append(out, SourceSnapshot)
	}
	if s&index.SrcRegistered != 0 {
		out = append(out, SourceRegistered)
	}
	return out
}

// Struct fields and interface methods are entries of their own (kind
// field, and method for an interface's methods; id pkg.Type.Member), read
// from the snapshot's index (codeindex.Field, codeindex.InterfaceMethod):
// a search for a configuration field's name or words finds the field, and
// code_definition answers the type that declares it, focused on the
// member's line, as it does for a member id known from the references
// alone (resolveMember). Members of the standard library are left out of
// the catalog (a -std snapshot has tens of thousands, which would cost
// megabytes); their ids still resolve through the references.

// memberOwner returns the type that declares member entry e and a Focus
// on e's line; e itself, without a Focus, when the type is not in the
// catalog.
func (x renderer) memberOwner(e *index.Entry) (*index.Entry, *Focus) {
	start := index.NameStart(e)
	if start < 2 {
		return e, nil
	}
	owner, ok := x.Lookup(e.ID[:start-1])
	if !ok {
		return e, nil
	}
	return owner, &Focus{Line: int(e.Line), Exact: true}
}

// maxListed bounds the methods of a type and the declarations of a
// package one code_definition answer lists; listOffset pages through the
// rest.
const maxListed = 50

// maxFiles bounds the files of a package a code_definition answer lists.
const maxFiles = 200

// maxImplements bounds the interfaces a code_definition answer lists.
const maxImplements = 50

// resolveSymbol resolves, for code_definition, a name the catalog does not
// know (err) among the symbols of the references: an interface method or a
// field answers its type with a Focus on its line; a declaration of a
// package outside the snapshot answers what the references know of it.
// It returns nils when the name is no such symbol.
func (c *Catalog) resolveSymbol(x *catalogIndex, name string, err error) (*index.Entry, *Focus, *Definition) {
	if !errors.Is(err, ErrUnknownName) || x.base.Snap == nil {
		return nil, nil, nil
	}
	t, terr := x.base.refTable()
	if terr != nil {
		return nil, nil, nil
	}
	found := t.MatchSyms(strings.TrimSpace(index.TrimCallArgs(strings.TrimSpace(name))), 1)
	if len(found) != 1 {
		return nil, nil, nil
	}
	s := t.Symbol(found[0])
	if s.Kind == codeindex.SymAbstract || s.Kind == codeindex.SymField {
		owner := s.ID[:strings.LastIndexByte(s.ID, '.')]
		if e, ok := x.Lookup(owner); ok {
			return e, &Focus{Line: int(s.Line), Exact: true}, nil
		}
	}
	if _, ok := x.Lookup(s.ID); ok {
		return nil, nil, nil
	}
	d := &Definition{Server: c.opts.Server, ObservedAt: c.now(), Name: s.ID, Kind: s.KindName(), Source: SourceReferences,
		Sources: []string{SourceReferences}, PackageKey: s.Pkg(),
		LinkedEvidence: "unknown: the declaration is outside the snapshot and not in the function table (a type, variable or constant, or a function inlined away or not linked)"}
	if strings.TrimSpace(name) != s.ID {
		d.RequestedName = echoArg(name)
	}
	u := Check{Status: StatusNotApplicable, Reason: "the declaration is outside the snapshot, so there is nothing to compare"}
	d.Consistency = Consistency{Status: StatusUnverified, Reason: u.Reason, Lines: u, Version: u}
	d.Build = c.build.forPackage(s.Pkg())
	d.Limitations = "Known only from the snapshot's references: its package is not in the snapshot, so neither its source nor " +
		"its documentation is available (mcpsnapshot -deps, -modules or -std would include it). code_references answers " +
		"who refers to it."
	d.caveat = true
	return nil, nil, d
}

// resolveMember returns the type of the field or interface method whose id
// is exactly name, with a Focus on its line, or nil.
func (c *Catalog) resolveMember(x *catalogIndex, name string) (*index.Entry, *Focus) {
	if x.base.Snap == nil {
		return nil, nil
	}
	t, err := x.base.refTable()
	if err != nil {
		return nil, nil
	}
	s := t.Sym(strings.TrimSpace(name))
	if s < 0 || t.Kind(s) != codeindex.SymAbstract && t.Kind(s) != codeindex.SymField {
		return nil, nil
	}
	sym := t.Symbol(s)
	if e, ok := x.Lookup(sym.ID[:strings.LastIndexByte(sym.ID, '.')]); ok {
		return e, &Focus{Line: int(sym.Line), Exact: true}
	}
	return nil, nil
}

// lists fills the lists of a type (methods, implemented interfaces) or a
// package (files, declarations) into d.
func (x renderer) lists(d *Definition, e *index.Entry, offset int) error {
	var items []nav.Item
	switch e.Kind {
	case index.KindType:
		t, _ := x.base.refTable()
		target := &nav.Target{ID: e.ID, Sym: -1, E: e, Kind: codeindex.SymType}
		if t != nil {
			if target.Sym = t.Sym(e.ID); target.Sym >= 0 {
				target.Kind = t.Kind(target.Sym)
				for _, im := range t.ImplsOfType(target.Sym) {
					if len(d.Implements) == maxImplements {
						break
					}
					id := t.ID(im.Iface)
					if im.PtrOnly {
						id = "*" + id
					}
					d.Implements = append(d.Implements, id)
				}
			}
		} else {
			t = &nav.RefTable{}
		}
		items = nav.Navigator{Index: x.Index}.Methods(t, target)
	case index.KindPackage:
		if s := x.base.Snap; s != nil {
			for i := range s.Files {
				if s.Files[i].Pkg == e.Pkg && len(d.Files) < maxFiles {
					d.Files = append(d.Files, s.Files[i].Display)
				}
			}
		}
		items = nav.Navigator{Index: x.Index}.Declarations(e.Pkg)
	default:
		if offset > 0 {
			return invalidf("listOffset applies to types and packages; %s is a %s", e.ID, e.Kind)
		}
		return nil
	}
	if offset > len(items) {
		return invalidf("listOffset %d is past the %d items of %s", offset, len(items), e.ID)
	}
	d.ListTotal = len(items)
	page := items[offset:min(offset+maxListed, len(items))]
	list := make([]Reference, 0, len(page))
	for _, it := range page {
		list = append(list, x.item(it))
	}
	if e.Kind == index.KindType {
		d.Methods = list
	} else {
		d.Declarations = list
	}
	if next := offset + len(page); next < len(items) {
		d.NextListOffset = &next
	}
	return nil
}

// runtimeLimitations describes what the runtime source reads.
const runtimeLimitations = "Runtime entries come from the function table (pclntab) of the running executable, read once " +
	"(on first use or Catalog.Warm) and then cached: every linked function with its file and declaration line, and " +
	"every function inlined into another one; closures, method values and inlined code are attributed to the " +
	"declaration that contains them. Functions removed by the linker are not listed. Build provenance comes from " +
	"debug.ReadBuildInfo."
