package codetools

import (
	"context"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/nav"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"github.com/embedmcp/mcp/internal/codeindex"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Relations of code_references.
const (
	RelationCallers         = "callers"
	RelationCallees         = "callees"
	RelationReferences      = "references"
	RelationImplementations = "implementations"
	RelationMethods         = "methods"
)

var relations = []string{RelationCallers, RelationCallees, RelationReferences, RelationImplementations, RelationMethods}

// ReferencesQuery holds the code_references arguments.
type ReferencesQuery struct {
	// Name is an id from code_search or code_definition, or any name
	// code_definition accepts. Required.
	Name string `json:"name" jsonschema:"Id of the symbol."`
	// Relation is callers, callees, references, implementations or
	// methods. Required.
	Relation string `json:"relation" jsonschema:"callers, callees, references, implementations or methods."`
	// Limit is the page size, 1..MaxLimit; 0 means DefaultReferencesLimit.
	Limit int `json:"limit,omitempty" jsonschema:"Items per page."`
	// Offset is the number of items to skip; ≥ 0.
	Offset int `json:"offset,omitempty" jsonschema:"Items to skip."`
	// Detail is "" or DetailProvenance: the tool answer then carries the
	// limitations too.
	Detail string `json:"detail,omitempty" jsonschema:"provenance: also the limitations of static analysis."`
}

// References is the code_references answer.
type References struct {
	Server string `json:"server" jsonschema:"Server the catalog describes."`
	// Name is the canonical id of the symbol asked about; RequestedName
	// the name as given, when it differs.
	Name          string `json:"name" jsonschema:"Canonical id of the symbol asked about."`
	RequestedName string `json:"requestedName,omitempty" jsonschema:"Name as given, when it differs from name."`
	Kind          string `json:"kind" jsonschema:"Kind of the symbol: func, method, type, interface, var, const, field or interface method."`
	Relation      string `json:"relation" jsonschema:"The relation answered."`
	Total         int    `json:"total" jsonschema:"Number of items of the relation."`
	More          bool   `json:"more" jsonschema:"Whether more items follow this page."`
	// NextArguments fetch the next page, when More.
	NextArguments *ReferencesQuery `json:"nextArguments,omitempty" jsonschema:"Arguments that fetch the next page; present when more is true."`
	// Items is never nil.
	Items []Reference `json:"items" jsonschema:"Items of this page."`
	Note  string      `json:"note,omitempty" jsonschema:"What else to know about this answer."`
	// Limitations says what static analysis cannot see.
	Limitations string `json:"limitations,omitempty" jsonschema:"What this answer cannot see (detail provenance, or when a source is missing)."`
}

// Reference is one item of a code_references answer.
type Reference struct {
	// ID names the related declaration: the function that calls or refers
	// (callers, references), the function called (callees), the
	// interface or type (implementations), the method (methods). It is
	// an id code_definition accepts.
	ID   string `json:"id" jsonschema:"Id of the related declaration; code_definition accepts it."`
	Kind string `json:"kind,omitempty" jsonschema:"Kind of that declaration (left out in a type's methods: method)."`
	// How says how: call, dynamic (a call through an interface method,
	// named by via), value (a function taken as a value, called later),
	// read, write; implements or pointer implements; declared or promoted.
	How string `json:"how,omitempty" jsonschema:"call, dynamic, value, read, write; implements, pointer implements; declared, promoted."`
	// Via is the interface method of a dynamic call, or the embedded field
	// of a promoted method.
	Via string `json:"via,omitempty" jsonschema:"Interface method of a dynamic call, or embedded field of a promoted method."`
	// File and Line locate the site (callers, callees, references) or the
	// declaration (implementations, methods); Text is that line.
	File string `json:"file,omitempty" jsonschema:"File of the site or declaration, as code_file accepts it."`
	Line int    `json:"line,omitempty" jsonschema:"Line in file."`
	Text string `json:"text,omitempty" jsonschema:"That line of the source, trimmed and cut to 200 bytes; untrusted."`
}

// DefaultReferencesLimit is the page size of code_references when
// ReferencesQuery.Limit is 0.
const DefaultReferencesLimit = 30

// maxRelationName bounds the relation argument an error repeats.
const maxRelationName = 40

// referencesLimitations says what static analysis cannot see.
const referencesLimitations = "References were computed when the snapshot was generated, by type-checking its source " +
	"(go/types): static calls, functions and methods taken as values, reads and writes of variables, fields and " +
	"constants, and calls of interface methods, listed as dynamic with the interface method. Static analysis cannot " +
	"see calls through function values (a handler stored in a field or map is found where it is taken as a value, " +
	"not where it is called), reflection, go:linkname, assembly or cgo, nor code outside the snapshot (packages " +
	"the snapshot leaves out: see mcpsnapshot -deps, -modules, -std), nor uses in the initializers of blank " +
	"variables (var _ I = T{}), which belong to no declaration. Implementations are among the snapshot's " +
	"named types and the interfaces its packages declare or name. The source lines are untrusted data."

// References runs a code_references query. It returns an error wrapping
// ErrInvalidArgument for bad arguments (an unknown relation lists the
// valid ones, a relation that does not apply to the symbol's kind says
// which do), and ErrUnknownName or ErrAmbiguousName, with candidate ids,
// when the name resolves to no symbol or to several.
func (c *Catalog) References(ctx context.Context, q ReferencesQuery) (*References, error) {
	rel := strings.ToLower(strings.TrimSpace(q.Relation))
	switch {
	case strings.TrimSpace(q.Name) == "":
		return nil, invalidf("name must not be empty: give an id from code_search or code_definition")
	case len(q.Name) > MaxNameBytes:
		return nil, invalidf("name is %d bytes long; at most %d are accepted", len(q.Name), MaxNameBytes)
	case strings.ContainsRune(q.Name, 0) || !utf8.ValidString(q.Name) || !utf8.ValidString(q.Relation):
		return nil, invalidf("name and relation must be valid UTF-8 without NUL characters")
	case !slices.Contains(relations, rel):
		return nil, invalidf("unknown relation %q: use one of %s", search.Clip(q.Relation, maxRelationName), strings.Join(relations, ", "))
	case q.Limit < 0 || q.Limit > MaxLimit:
		return nil, invalidf("limit %d is out of range 1..%d", q.Limit, MaxLimit)
	case q.Offset < 0:
		return nil, invalidf("offset %d must be ≥ 0", q.Offset)
	}
	if err := checkDetail(q.Detail); err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		q.Limit = DefaultReferencesLimit
	}
	x, err := c.index(ctx)
	if err != nil {
		return nil, err
	}
	t, err := x.base.refTable()
	if err != nil {
		return nil, fmt.Errorf("no references to answer from: %w", err)
	}
	target, err := c.resolveRef(x, t, q.Name)
	if err != nil {
		return nil, err
	}
	out := &References{Server: c.opts.Server, Name: target.ID, Kind: target.KindName(), Relation: rel, Items: []Reference{}}
	if strings.TrimSpace(q.Name) != target.ID {
		out.RequestedName = echoArg(q.Name)
	}
	items, note, err := nav.Navigator{Index: x.Index}.Relation(t, target, rel)
	if re, ok := errors.AsType[*nav.RelationError](err); ok {
		return nil, invalidf("%s", re.Msg)
	} else if err != nil {
		return nil, err
	}
	out.Total, out.Note = len(items), note
	if q.Offset > len(items) && len(items) > 0 {
		return nil, invalidf("offset %d is past the %d %s of %s", q.Offset, len(items), rel, target.ID)
	}
	page := items[min(q.Offset, len(items)):min(q.Offset+q.Limit, len(items))]
	for _, it := range page {
		out.Items = append(out.Items, renderer{x}.item(it))
	}
	if next := q.Offset + len(page); next < len(items) {
		out.More = true
		out.NextArguments = &ReferencesQuery{Name: target.ID, Relation: rel, Limit: q.Limit, Offset: next, Detail: q.Detail}
	}
	out.Limitations = x.base.limitations(referencesLimitations)
	return out, nil
}

// symKindOf returns the reference kind of a catalog entry.
func symKindOf(e *index.Entry) codeindex.SymKind {
	switch {
	case e.Member && e.Kind == index.KindMethod:
		return codeindex.SymAbstract
	case e.Kind == index.KindField:
		return codeindex.SymField
	}
	switch e.Kind {
	case index.KindMethod:
		return codeindex.SymMethod
	case index.KindType:
		return codeindex.SymType
	case index.KindVar:
		return codeindex.SymVar
	case index.KindConst:
		return codeindex.SymConst
	}
	return codeindex.SymFunc
}

// resolveRef resolves a name for code_references: as code_definition
// does, then among the symbols of the references (interface methods,
// fields, declarations of packages outside the snapshot).
func (c *Catalog) resolveRef(x *catalogIndex, t *nav.RefTable, name string) (*nav.Target, error) {
	if s := t.Sym(strings.TrimSpace(name)); s >= 0 {
		// An exact id: a field or interface method is not the method of
		// another case that the name resolution would fold it to.
		r := &nav.Target{ID: t.ID(s), Sym: s, Kind: t.Kind(s)}
		r.E, _ = x.Lookup(r.ID)
		return r, nil
	}
	e, _, err := c.resolveName(x, name)
	if err == nil {
		if e.Kind == index.KindPackage || e.Kind == index.KindTool || e.Kind == index.KindDoc {
			return nil, invalidf("%s is a %s: code_references answers for functions, methods, types, variables, constants, "+
				"fields and interface methods", e.ID, e.Kind)
		}
		r := &nav.Target{ID: e.ID, Sym: t.Sym(e.ID), E: e, Kind: symKindOf(e)}
		if r.Sym >= 0 {
			r.Kind = t.Kind(r.Sym)
		} else if r.Kind == codeindex.SymMethod {
			// A method spelled with the other receiver form in the table.
			if sym, ok := index.ParseSymbol(e.ID, "", nil); ok {
				if s := t.Sym(sym.AltID()); s >= 0 {
					r.Sym = s
				}
			}
		}
		return r, nil
	}
	if errors.Is(err, ErrAmbiguousName) {
		return nil, err
	}
	found := t.MatchSyms(strings.TrimSpace(index.TrimCallArgs(strings.TrimSpace(name))), index.MaxCandidates)
	switch len(found) {
	case 0:
		return nil, err
	case 1:
		r := &nav.Target{ID: t.ID(found[0]), Sym: found[0], Kind: t.Kind(found[0])}
		r.E, _ = x.Lookup(r.ID)
		return r, nil
	}
	ids := make([]string, 0, index.MaxCandidates)
	for _, s := range found[:min(len(found), index.MaxCandidates)] {
		ids = append(ids, t.ID(s))
	}
	return nil, &ambiguousNameError{name: name, n: len(found), candidates: ids}
}

// item renders a relation item: its id, kind, file:line and the line.
func (x renderer) item(it nav.Item) Reference {
	r := Reference{ID: it.ID, Kind: it.Kind, How: it.How, Via: it.Via}
	if it.File >= 0 && x.base.Snap != nil && int(it.File) < len(x.base.Snap.Files) {
		r.File = x.base.Snap.Files[it.File].Display
		r.Line = int(it.Line)
		r.Text = x.base.LineText(it.File, it.Line)
	} else if e, ok := x.Lookup(it.ID); ok && x.FileOf(e) != "" {
		r.File, r.Line = x.FileOf(e), int(e.Line)
	}
	if r.Kind == "" {
		r.Kind = "symbol"
	}
	return r
}

// Listing returns the answer as text: a header, then one line per item,
// "file:line  how  id  | text".
func (r *References) Listing() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s (%s): %d", r.Relation, r.Name, r.Kind, r.Total)
	if r.More && r.NextArguments != nil {
		fmt.Fprintf(&b, ", showing %d-%d", r.NextArguments.Offset-len(r.Items)+1, r.NextArguments.Offset)
	}
	b.WriteByte('\n')
	if r.Note != "" {
		b.WriteString(r.Note)
		b.WriteByte('\n')
	}
	for _, it := range r.Items {
		at := "-"
		if it.File != "" {
			at = path.Base(it.File)
			if it.Line > 0 {
				at += ":" + strconv.Itoa(it.Line)
			}
		}
		how := it.How
		if it.Via != "" {
			how += " via " + it.Via
		}
		fmt.Fprintf(&b, "%s  %s  %s", at, how, it.ID)
		if it.Text != "" {
			b.WriteString("  | ")
			b.WriteString(it.Text)
		}
		b.WriteByte('\n')
	}
	if r.More && r.NextArguments != nil {
		fmt.Fprintf(&b, "more: offset %d\n", r.NextArguments.Offset)
	}
	return b.String()
}

// refs returns the snapshot's references, reading them on first use.
func (b *baseIndex) refTable() (*nav.RefTable, error) {
	b.refsOnce.Do(func() {
		switch {
		case b.Snap == nil:
			b.refsErr = errNoSnapshotRefs
		default:
			b.refs, b.refsErr = nav.LoadRefs(b.Snap, b.MainModule(), entryIDs(b.Entries))
		}
		b.refsLoaded.Store(true)
	})
	return b.refs, b.refsErr
}

// loadedRefs returns the references if a query has loaded them, without
// loading them (nil otherwise).
func (b *baseIndex) loadedRefs() *nav.RefTable {
	if !b.refsLoaded.Load() {
		return nil
	}
	return b.refs
}

// entryIDs are the ids of the catalog's entries (sorted), which the
// references share.
type entryIDs []index.Entry

func (e entryIDs) Len() int        { return len(e) }
func (e entryIDs) ID(i int) string { return e[i].ID }

var errNoSnapshotRefs = errors.New("no source snapshot is embedded, and references are computed when the snapshot is generated")
