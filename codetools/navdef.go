package codetools

import (
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/embedmcp/mcp/codetools/internal/index"
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
	found := t.matchSyms(strings.TrimSpace(index.TrimCallArgs(strings.TrimSpace(name))), 1)
	if len(found) != 1 {
		return nil, nil, nil
	}
	s := &t.syms[found[0]]
	if s.kind == codeindex.SymAbstract || s.kind == codeindex.SymField {
		owner := s.id[:strings.LastIndexByte(s.id, '.')]
		if e, ok := x.Lookup(owner); ok {
			return e, &Focus{Line: int(s.line), Exact: true}, nil
		}
	}
	if _, ok := x.Lookup(s.id); ok {
		return nil, nil, nil
	}
	d := &Definition{Server: c.opts.Server, ObservedAt: c.now(), Name: s.id, Kind: s.kindName(), Source: SourceReferences,
		Sources: []string{SourceReferences}, PackageKey: s.pkg(),
		LinkedEvidence: "unknown: the declaration is outside the snapshot and not in the function table (a type, variable or constant, or a function inlined away or not linked)"}
	if strings.TrimSpace(name) != s.id {
		d.RequestedName = echoArg(name)
	}
	u := Check{Status: StatusNotApplicable, Reason: "the declaration is outside the snapshot, so there is nothing to compare"}
	d.Consistency = Consistency{Status: StatusUnverified, Reason: u.Reason, Lines: u, Version: u}
	d.Build = c.build.forPackage(s.pkg())
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
	s := t.sym(strings.TrimSpace(name))
	if s < 0 || t.syms[s].kind != codeindex.SymAbstract && t.syms[s].kind != codeindex.SymField {
		return nil, nil
	}
	sym := &t.syms[s]
	if e, ok := x.Lookup(sym.id[:strings.LastIndexByte(sym.id, '.')]); ok {
		return e, &Focus{Line: int(sym.line), Exact: true}
	}
	return nil, nil
}

func (s *refSym) kindName() string { return symKindName(s.kind) }

// lists fills the lists of a type (methods, implemented interfaces) or a
// package (files, declarations) into d.
func (x renderer) lists(d *Definition, e *index.Entry, offset int) error {
	var items []relItem
	switch e.Kind {
	case index.KindType:
		t, _ := x.base.refTable()
		target := &refTarget{id: e.ID, sym: -1, e: e, kind: codeindex.SymType}
		if t != nil {
			if target.sym = t.sym(e.ID); target.sym >= 0 {
				target.kind = t.syms[target.sym].kind
				for _, im := range t.implsOfType(target.sym) {
					if len(d.Implements) == maxImplements {
						break
					}
					id := t.syms[im.Iface].id
					if im.PtrOnly {
						id = "*" + id
					}
					d.Implements = append(d.Implements, id)
				}
			}
		} else {
			t = &refTable{}
		}
		items = navigator{x.Index}.methods(t, target)
	case index.KindPackage:
		if s := x.base.Snap; s != nil {
			for i := range s.Files {
				if s.Files[i].Pkg == e.Pkg && len(d.Files) < maxFiles {
					d.Files = append(d.Files, s.Files[i].Display)
				}
			}
		}
		items = navigator{x.Index}.declarations(e.Pkg)
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

// declarations lists the exported declarations of package pkg (all of a
// main package's), in go doc's order: constants, variables, functions,
// types, each by name.
func (x navigator) declarations(pkg string) []relItem {
	lo, hi := x.IDRange(pkg + ".")
	main := slices.Contains(x.Search.MainPkgs, pkg)
	order := [...]int{index.KindConst: 0, index.KindVar: 1, index.KindFunc: 2, index.KindType: 3}
	var es []*index.Entry
	for i := lo; i < hi; i++ {
		e := &x.Entries[i]
		if e.Pkg != pkg {
			continue
		}
		switch e.Kind {
		case index.KindConst, index.KindVar, index.KindFunc, index.KindType:
		default:
			continue
		}
		if r, _ := utf8.DecodeRuneInString(e.ID[len(pkg)+1:]); main || unicode.IsUpper(r) {
			es = append(es, e)
		}
	}
	slices.SortStableFunc(es, func(a, b *index.Entry) int {
		if d := order[a.Kind] - order[b.Kind]; d != 0 {
			return d
		}
		return strings.Compare(a.ID, b.ID)
	})
	items := make([]relItem, len(es))
	for i, e := range es {
		items[i] = x.entryItem(e, "", "")
	}
	return items
}
