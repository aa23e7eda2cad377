package index

import (
	"errors"
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
// this manifest and index, and include is nil, the declarations and their
// documentation come from it, and neither the index nor any source file
// is read; its term index is returned for BuildSearch. A search file
// that is stale or malformed is not used, and searchErr says why.
//
// The entry slice has room for extra more entries.
func LoadSnapshot(fsys fs.FS, in snapshot.Interner, include func(pkg, mod string, main bool) bool, maxDecls, extra int) (l *SnapLoad, err error) {
	defer func() {
		if r := recover(); r != nil {
			l, err = nil, fmt.Errorf("reading snapshot: %v", r)
		}
	}()
	var file chan searchData
	if include == nil {
		// A selection makes other entries than the search file's: they
		// are indexed at run time, from the index's words. The file
		// decompresses while the manifest is read.
		file = make(chan searchData, 1)
		go func() {
			data, err := fs.ReadFile(snapshot.NewFS(fsys), codesnap.SearchName)
			file <- searchData{data, err}
		}()
	}
	l = &SnapLoad{}
	if l.Snap, err = snapshot.Open(fsys, in, include); err != nil {
		return nil, err
	}
	var sf *searchFile
	if file != nil {
		sf, l.SearchErr = readSearchFile(l.Snap, <-file)
	}
	if sf != nil {
		// The term index decodes while the declarations are read.
		type decoded struct {
			t   *SnapTerms
			err error
		}
		ch := make(chan decoded, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					ch <- decoded{nil, fmt.Errorf("%w: %v", ErrBadSearch, r)}
				}
			}()
			t, err := sf.decodeTerms()
			ch <- decoded{t, err}
		}()
		l.Entries, _, l.Docs, l.Decls, err = loadDecls(l.Snap, maxDecls, extra, sf, false, false, nil)
		d := <-ch
		if err == nil && d.err == nil {
			l.Pre = d.t
			return l, nil
		}
		l.SearchErr = d.err
		if err != nil {
			l.SearchErr = fmt.Errorf("%w: %s: %w", ErrBadSearch, codesnap.SearchName, err)
		}
		if l.Snap, err = snapshot.Open(fsys, in, include); err != nil {
			return nil, err
		}
	}
	l.Entries, l.Words, l.Docs, l.Decls, err = loadDecls(l.Snap, maxDecls, extra, nil, true, true, nil)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// SnapLoad is what LoadSnapshot read.
type SnapLoad struct {
	Snap    *snapshot.Snapshot
	Entries []Entry
	// Words are the search words of each entry (codeindex.Words), nil
	// when Pre serves.
	Words []string
	// Docs are the documentation prefixes of each entry (DocString).
	Docs  []string
	Decls SnapDecls
	// Pre is the term index of the search file, nil if it does not serve;
	// SearchErr says why a search file the snapshot holds is not used.
	Pre       *SnapTerms
	SearchErr error
}

// loadDecls makes the entries of the declarations of s: those of the
// search file sf, with their documentation, or, when sf is nil, those of
// the index, with their documentation read from the source if source is
// set (and none otherwise). keepWords returns the search words of the
// index, by entry, for a term index built at run time. docs are the
// documentation prefixes, by entry. each, if not nil, is called with every
// declaration read and its documentation.
func loadDecls(s *snapshot.Snapshot, maxDecls, extra int, sf *searchFile, source, keepWords bool, each func(fi int32, d *codeindex.Decl, doc string)) (entries []Entry, words, docs []string, decls SnapDecls, err error) {
	decls = make(SnapDecls, len(s.Files))
	pkgEntry := map[string]int{}
	var scratch []byte
	cur := int32(-1)
	var idBuf []byte
	var ids []int32 // by entry: the end of its id in idBuf, -1 for a package's
	idBytes := -1   // a bound on the bytes of all the ids, if known
	sized := func(n int) {
		// The count sizes the tables; a damaged index cannot make them huge.
		n = min(n, maxDecls)
		entries = make([]Entry, 0, n+extra)
		ids = make([]int32, 0, n)
		if idBytes < 0 || idBytes > 256*n {
			idBytes = 48 * n // about the length of an id
		}
		idBuf = make([]byte, 0, idBytes)
		if keepWords {
			words = make([]string, 0, n)
		}
		docs = make([]string, 0, n)
	}
	fn := func(fi int32, k int, d codeindex.Decl, buf []byte, doc string) {
		if fi != cur {
			cur = fi
			decls[fi][0] = int32(len(entries))
		}
		f := &s.Files[fi]
		docRead := !source
		if each != nil {
			if !docRead && d.DocEnd > d.DocStart {
				doc, scratch = DocString(buf[d.DocStart:d.DocEnd], MaxIndexedDoc, scratch)
			}
			docRead = true
			dd := d // only this copy escapes, not every declaration
			each(fi, &dd, doc)
		}
		if (d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod) && snapshot.IsStdPkg(f.Pkg) {
			return // members of the standard library: not worth their memory (codetools.Definition answers them with their type)
		}
		e := Entry{Pkg: f.Pkg, Kind: declKind(d.Kind), Sources: SrcSnapshot, Snap: fi,
			Start: d.Start, End: d.End, Line: d.Line, EndLine: d.EndLine, Reg: -1, Bodyless: d.Bodyless,
			Member: d.Kind == codeindex.Field || d.Kind == codeindex.InterfaceMethod}
		w, ds := "", ""
		if keepWords && !snapshot.IsStdPkg(f.Pkg) {
			// The search index takes no source words of the standard
			// library (buildTerms); with a search file, it takes none at
			// run time: they are indexed already.
			w = d.Words
		}
		if d.DocEnd > d.DocStart {
			e.DocBeg, e.DocEnd = d.DocStart, d.DocEnd
			if !docRead {
				doc, scratch = DocString(buf[d.DocStart:d.DocEnd], MaxIndexedDoc, scratch)
			}
			ds = doc
		}
		if d.Kind == codeindex.Package {
			e.ID = f.Pkg
			if j, seen := pkgEntry[f.Pkg]; seen {
				if entries[j].DocEnd == 0 {
					entries[j] = e
					docs[j] = ds
					if keepWords {
						words[j] = w
					}
				}
				return
			}
			pkgEntry[f.Pkg] = len(entries)
			ids = append(ids, -1)
		} else {
			// DeclID, in the one string of all the ids (below).
			idBuf = append(append(append(idBuf, f.Pkg...), '.'), d.Name...)
			ids = append(ids, int32(len(idBuf)))
		}
		entries = append(entries, e)
		docs = append(docs, ds)
		if keepWords {
			words = append(words, w)
		}
		decls[fi][1] = int32(len(entries))
	}
	if sf != nil {
		// Each id is its file's package, a dot and its name; the names are
		// in the declaration section, with at least 10 more bytes each
		// (kind, bodyless, name length and 7 numbers): the ids are made
		// in one buffer sized once.
		n, pkgBytes := 0, 0
		for _, f := range sf.files {
			n += f.decls
			if fi, ok := s.ByPath[f.path]; ok {
				pkgBytes += f.decls * (len(s.Files[fi].Pkg) + 1)
			}
		}
		idBytes = pkgBytes + max(len(sf.decls)-10*n, 0)
		sized(n)
		next, doc := sf.eachDecl()
		err = s.ReadDeclList(next, sf.words, func(fi int32, k int, d codeindex.Decl, _ []byte) { fn(fi, k, d, nil, doc()) })
	} else {
		_, err = s.ReadIndex(sized, func(fi int32, k int, d codeindex.Decl, buf []byte) { fn(fi, k, d, buf, "") }, source)
	}
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if len(idBuf) > 1<<31-1 {
		return nil, nil, nil, nil, errors.New("the snapshot's ids exceed 2 GB")
	}
	// The ids are parts of one string: no allocation of its own each.
	all, start := string(idBuf), int32(0)
	idBuf = nil
	for i, end := range ids {
		if end >= 0 {
			entries[i].ID = all[start:end]
			start = end
		}
	}
	for i := range decls {
		if decls[i][1] < decls[i][0] {
			decls[i][1] = decls[i][0]
		}
	}
	return entries, words, docs, decls, nil
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
