package codetools

import (
	"errors"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/nav"
	"github.com/embedmcp/mcp/internal/codeindex"
)

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
	s := &t.Syms[found[0]]
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
	if s < 0 || t.Syms[s].Kind != codeindex.SymAbstract && t.Syms[s].Kind != codeindex.SymField {
		return nil, nil
	}
	sym := &t.Syms[s]
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
				target.Kind = t.Syms[target.Sym].Kind
				for _, im := range t.ImplsOfType(target.Sym) {
					if len(d.Implements) == maxImplements {
						break
					}
					id := t.Syms[im.Iface].ID
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
