package codetools

import (
	"fmt"
	"io/fs"

	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
)

// snapDecls locates the entries of each snapshot file in the entry slice
// built by loadSnapshot (before it is sorted), for attribution.
type snapDecls [][2]int32

// loadSnapshot reads the manifest and the index of fsys and returns an
// entry for every declaration of the selected packages. A bad manifest
// or index is an error (the catalog then serves the binary alone); files
// whose content does not fit the index are left out and reported in
// s.warning.
//
// The entry slice has room for extra more entries.
func loadSnapshot(fsys fs.FS, in snapshot.Interner, sel *Selection, extra int) (s *snapshot.Snapshot, entries []entry, decls snapDecls, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, entries, decls, err = nil, nil, nil, fmt.Errorf("reading snapshot: %v", r)
		}
	}()
	var include func(pkg, mod string, main bool) bool
	if sel != nil {
		include = sel.Includes
	}
	s, err = snapshot.Open(fsys, in, include)
	if err != nil {
		return nil, nil, nil, err
	}
	decls = make(snapDecls, len(s.Files))
	pkgEntry := map[string]int{}
	var scratch []byte
	cur := int32(-1)
	sized := func(n int) {
		// The count sizes the table; a damaged index cannot make it huge.
		entries = make([]entry, 0, min(n, 4*DefaultMaxEntries)+extra)
	}
	err = s.ReadDecls(sized, func(fi int32, d *codeindex.Decl, buf []byte) {
		if fi != cur {
			cur = fi
			decls[fi][0] = int32(len(entries))
		}
		sf := &s.Files[fi]
		if (d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod) && snapshot.IsStdPkg(sf.Pkg) {
			return // members of the standard library: not worth their memory (members.go)
		}
		e := entry{pkg: sf.Pkg, file: sf.Display, kind: declKind(d.Kind), sources: srcSnapshot, snap: fi,
			start: d.Start, end: d.End, line: d.Line, endLine: d.EndLine, reg: -1, bodyless: d.Bodyless, words: d.Words,
			member: d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod}
		if snapshot.IsStdPkg(sf.Pkg) {
			e.words = "" // the search index takes no source words of the standard library (buildTerms)
		}
		if d.DocEnd > d.DocStart {
			e.docBeg, e.docEnd = d.DocStart, d.DocEnd
			e.doc, scratch = docString(buf[d.DocStart:d.DocEnd], maxIndexedDoc, scratch)
		}
		if d.Kind == codeindex.Package {
			e.id = sf.Pkg
			if j, seen := pkgEntry[sf.Pkg]; seen {
				if entries[j].docEnd == 0 {
					entries[j] = e
				}
				return
			}
			pkgEntry[sf.Pkg] = len(entries)
		} else {
			e.id = declID(sf.Pkg, d.Name)
		}
		entries = append(entries, e)
		decls[fi][1] = int32(len(entries))
	})
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range decls {
		if decls[i][1] < decls[i][0] {
			decls[i][1] = decls[i][0]
		}
	}
	return s, entries, decls, nil
}

func declKind(k codeindex.Kind) kind {
	switch k {
	case codeindex.Method, codeindex.InterfaceMethod:
		return kMethod
	case codeindex.Field:
		return kField
	case codeindex.Type:
		return kType
	case codeindex.Const:
		return kConst
	case codeindex.Var:
		return kVar
	case codeindex.Package:
		return kPackage
	default:
		return kFunc
	}
}
