package index

import (
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"io/fs"
)

// SnapDecls locates the entries of each snapshot file in the entry slice
// built by loadSnapshot (before it is sorted), for attribution.
type SnapDecls [][2]int32

// LoadSnapshot reads the manifest and the index of fsys and returns an
// entry for every declaration of the selected packages. A bad manifest
// or index is an error (the catalog then serves the binary alone); files
// whose content does not fit the index are left out and reported in
// s.warning.
//
// The entry slice has room for extra more entries.
func LoadSnapshot(fsys fs.FS, in snapshot.Interner, include func(pkg, mod string, main bool) bool, maxDecls, extra int) (s *snapshot.Snapshot, entries []Entry, decls SnapDecls, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, entries, decls, err = nil, nil, nil, fmt.Errorf("reading snapshot: %v", r)
		}
	}()
	s, err = snapshot.Open(fsys, in, include)
	if err != nil {
		return nil, nil, nil, err
	}
	decls = make(SnapDecls, len(s.Files))
	pkgEntry := map[string]int{}
	var scratch []byte
	cur := int32(-1)
	sized := func(n int) {
		// The count sizes the table; a damaged index cannot make it huge.
		entries = make([]Entry, 0, min(n, maxDecls)+extra)
	}
	err = s.ReadDecls(sized, func(fi int32, d codeindex.Decl, buf []byte) {
		if fi != cur {
			cur = fi
			decls[fi][0] = int32(len(entries))
		}
		sf := &s.Files[fi]
		if (d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod) && snapshot.IsStdPkg(sf.Pkg) {
			return // members of the standard library: not worth their memory (codetools.Definition answers them with their type)
		}
		e := Entry{Pkg: sf.Pkg, File: sf.Display, Kind: declKind(d.Kind), Sources: SrcSnapshot, Snap: fi,
			Start: d.Start, End: d.End, Line: d.Line, EndLine: d.EndLine, Reg: -1, Bodyless: d.Bodyless, Words: d.Words,
			Member: d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod}
		if snapshot.IsStdPkg(sf.Pkg) {
			e.Words = "" // the search index takes no source words of the standard library (buildTerms)
		}
		if d.DocEnd > d.DocStart {
			e.DocBeg, e.DocEnd = d.DocStart, d.DocEnd
			e.Doc, scratch = DocString(buf[d.DocStart:d.DocEnd], MaxIndexedDoc, scratch)
		}
		if d.Kind == codeindex.Package {
			e.ID = sf.Pkg
			if j, seen := pkgEntry[sf.Pkg]; seen {
				if entries[j].DocEnd == 0 {
					entries[j] = e
				}
				return
			}
			pkgEntry[sf.Pkg] = len(entries)
		} else {
			e.ID = DeclID(sf.Pkg, d.Name)
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

func declKind(k codeindex.Kind) Kind {
	switch k {
	case codeindex.Method, codeindex.InterfaceMethod:
		return KindMethod
	case codeindex.Field:
		return KindField
	case codeindex.Type:
		return KindType
	case codeindex.Const:
		return KindConst
	case codeindex.Var:
		return KindVar
	case codeindex.Package:
		return KindPackage
	default:
		return KindFunc
	}
}
