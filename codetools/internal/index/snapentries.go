package index

import (
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
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
// When the snapshot holds a search file (codesnap.SearchName) made from
// this index, the documentation comes from it and no source file is read;
// its term index is returned for BuildSearch. A search file that is stale
// or malformed is not used, and searchErr says why.
//
// The entry slice has room for extra more entries.
func LoadSnapshot(fsys fs.FS, in snapshot.Interner, include func(pkg, mod string, main bool) bool, maxDecls, extra int) (s *snapshot.Snapshot, entries []Entry, decls SnapDecls, pre *SnapTerms, searchErr error, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, entries, decls, pre, err = nil, nil, nil, nil, fmt.Errorf("reading snapshot: %v", r)
		}
	}()
	s, err = snapshot.Open(fsys, in, include)
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	if _, err := fs.Stat(s.FS, codesnap.SearchName); err == nil {
		// The search file decodes while the index is read.
		type decoded struct {
			sf  *searchFile
			err error
		}
		ch := make(chan decoded, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					ch <- decoded{nil, fmt.Errorf("%w: %v", ErrBadSearch, r)}
				}
			}()
			sf, err := readSearchFile(s)
			ch <- decoded{sf, err}
		}()
		var sf *searchFile
		entries, decls, err = loadDecls(s, maxDecls, extra, func() (*searchFile, error) {
			d := <-ch
			sf = d.sf
			return d.sf, d.err
		}, include != nil)
		if err == nil {
			pre = sf.terms
			if include != nil {
				// A selection makes other entries than those indexed: the
				// documentation serves, the term index is built at run time.
				pre = nil
			}
			return s, entries, decls, pre, nil, nil
		}
		searchErr = err
		if s, err = snapshot.Open(fsys, in, include); err != nil {
			return nil, nil, nil, nil, searchErr, err
		}
	}
	entries, decls, err = loadDecls(s, maxDecls, extra, nil, true)
	if err != nil {
		return nil, nil, nil, nil, searchErr, err
	}
	return s, entries, decls, nil, searchErr, nil
}

// loadDecls makes the entries of the declarations of the index of s,
// their documentation read from the source or, with search, from the
// search file it returns (called once the index is read; an error is
// returned as is). keepWords keeps the search words of the index in the
// entries, for a term index built at run time.
func loadDecls(s *snapshot.Snapshot, maxDecls, extra int, search func() (*searchFile, error), keepWords bool) (entries []Entry, decls SnapDecls, err error) {
	decls = make(SnapDecls, len(s.Files))
	pkgEntry := map[string]int{}
	var scratch []byte
	cur := int32(-1)
	sized := func(n int) {
		// The count sizes the table; a damaged index cannot make it huge.
		entries = make([]Entry, 0, min(n, maxDecls)+extra)
	}
	var ords []int32 // with search, the ordinal of each entry's declaration
	sum, err := s.ReadIndex(sized, func(fi int32, k int, d codeindex.Decl, buf []byte) {
		if fi != cur {
			cur = fi
			decls[fi][0] = int32(len(entries))
		}
		f := &s.Files[fi]
		if (d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod) && snapshot.IsStdPkg(f.Pkg) {
			return // members of the standard library: not worth their memory (codetools.Definition answers them with their type)
		}
		e := Entry{Pkg: f.Pkg, File: f.Display, Kind: declKind(d.Kind), Sources: SrcSnapshot, Snap: fi,
			Start: d.Start, End: d.End, Line: d.Line, EndLine: d.EndLine, Reg: -1, Bodyless: d.Bodyless,
			Member: d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod}
		if keepWords && !snapshot.IsStdPkg(f.Pkg) {
			// The search index takes no source words of the standard
			// library (buildTerms); with a search file, it takes none at
			// run time: they are indexed already.
			e.Words = d.Words
		}
		if d.DocEnd > d.DocStart {
			e.DocBeg, e.DocEnd = d.DocStart, d.DocEnd
			if search == nil {
				e.Doc, scratch = DocString(buf[d.DocStart:d.DocEnd], MaxIndexedDoc, scratch)
			}
		}
		if d.Kind == codeindex.Package {
			e.ID = f.Pkg
			if j, seen := pkgEntry[f.Pkg]; seen {
				if entries[j].DocEnd == 0 {
					entries[j] = e
					if search != nil {
						ords[j] = int32(k)
					}
				}
				return
			}
			pkgEntry[f.Pkg] = len(entries)
		} else {
			e.ID = DeclID(f.Pkg, d.Name)
		}
		entries = append(entries, e)
		if search != nil {
			ords = append(ords, int32(k))
		}
		decls[fi][1] = int32(len(entries))
	}, search == nil)
	if search != nil {
		sf, serr := search()
		switch {
		case err != nil:
		case serr != nil:
			err = serr
		case sf == nil || sum != sf.declSum:
			err = fmt.Errorf("%w: %s was not made from this snapshot's %s", ErrStaleSearch, codesnap.SearchName, codesnap.IndexName)
		default:
			for i := range entries {
				if e := &entries[i]; e.DocEnd > e.DocBeg {
					if int(ords[i]) >= len(sf.docs) {
						err = fmt.Errorf("%w: %s was not made from this snapshot's %s", ErrStaleSearch, codesnap.SearchName, codesnap.IndexName)
						break
					}
					e.Doc = sf.docs[ords[i]]
				}
			}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	for i := range decls {
		if decls[i][1] < decls[i][0] {
			decls[i][1] = decls[i][0]
		}
	}
	return entries, decls, nil
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
