package codetools

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"strconv"
)

// snapshot is the parsed index of a source snapshot. It keeps the file
// system and byte spans, not syntax trees.
type snapshot struct {
	fsys     fs.FS
	man      Manifest
	files    []snapFile
	mods     []modInfo
	mainMod  string
	modByPkg map[string]ManifestModule
	pkgs     map[string]bool
	// warning reports files that could not be read or parsed.
	warning error
}

type snapFile struct {
	path    string // location in fsys
	display string // display path
	pkg     string
	sha256  string
}

// loadSnapshot reads the manifest of fsys and indexes every declaration.
// Files that fail to parse are skipped and reported in s.warning; a bad
// manifest is an error.
func loadSnapshot(fsys fs.FS, in interner) (*snapshot, []entry, error) {
	data, err := fs.ReadFile(fsys, ManifestName)
	if err != nil {
		return nil, nil, fmt.Errorf("reading snapshot manifest: %w", err)
	}
	s := &snapshot{fsys: fsys, modByPkg: map[string]ManifestModule{}, pkgs: map[string]bool{}}
	if err := json.Unmarshal(data, &s.man); err != nil {
		return nil, nil, fmt.Errorf("decoding snapshot manifest: %w", err)
	}
	if s.man.Format != SnapshotFormat {
		return nil, nil, fmt.Errorf("snapshot manifest format %q is not %q", s.man.Format, SnapshotFormat)
	}
	for _, m := range s.man.Modules {
		s.mods = append(s.mods, modInfo{m.Path, m.Version})
		if m.Main {
			s.mainMod = m.Path
		}
	}
	var entries []entry
	var warn []error
	for _, p := range s.man.Packages {
		s.pkgs[p.ImportPath] = true
		if m, ok := moduleFor(s.mods, p.ImportPath); ok {
			for _, mm := range s.man.Modules {
				if mm.Path == m.path {
					s.modByPkg[p.ImportPath] = mm
				}
			}
		}
		es, err := s.indexPackage(p, in)
		if err != nil {
			warn = append(warn, err)
		}
		entries = append(entries, es...)
	}
	s.warning = errors.Join(warn...)
	return s, entries, nil
}

// indexPackage parses the files of one package and returns its entries.
func (s *snapshot) indexPackage(p ManifestPackage, in interner) ([]entry, error) {
	pkg := in.get(p.ImportPath)
	var out []entry
	var errs []error
	inits := 0
	havePkg := false
	for _, mf := range p.Files {
		src, err := fs.ReadFile(s.fsys, mf.Path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, mf.Name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			errs = append(errs, fmt.Errorf("parsing %s: %w", mf.Path, err))
			continue
		}
		fi := int32(len(s.files))
		display := in.get(displayPath("/"+mf.Name, pkg, s.mods, s.mainMod))
		if p.Standard {
			display = in.get("$GOROOT/src/" + pkg + "/" + mf.Name)
		}
		s.files = append(s.files, snapFile{path: mf.Path, display: display, pkg: pkg, sha256: mf.SHA256})
		tf := fset.File(f.Pos())
		off := func(pos token.Pos) int32 { return int32(tf.Offset(pos)) }
		line := func(pos token.Pos) int32 { return int32(tf.Line(pos)) }
		mk := func(id string, k kind, doc *ast.CommentGroup, from, to, at token.Pos) entry {
			e := entry{id: id, pkg: pkg, file: display, kind: k, sources: srcSnapshot, snap: fi,
				start: off(from), end: off(to), line: line(at), endLine: line(to), reg: -1}
			if doc != nil {
				e.docBeg, e.docEnd = off(doc.Pos()), off(doc.End())
				e.doc = docPrefix(doc.Text(), maxIndexedDoc)
			}
			return e
		}
		if !havePkg && (f.Doc != nil || mf.Path == p.Files[len(p.Files)-1].Path) {
			havePkg = true
			from := f.Package
			if f.Doc != nil {
				from = f.Doc.Pos()
			}
			out = append(out, mk(pkg, kPackage, f.Doc, from, f.Name.End(), f.Package))
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				from := d.Pos()
				if d.Doc != nil {
					from = d.Doc.Pos()
				}
				sym := symbol{pkg: pkg, name: d.Name.Name}
				k := kFunc
				if d.Recv != nil && len(d.Recv.List) == 1 {
					sym.recv, sym.ptr = recvName(d.Recv.List[0].Type)
					k = kMethod
				} else if sym.name == "init" {
					sym.name = "init." + strconv.Itoa(inits)
					inits++
				}
				if sym.name == "_" || (k == kMethod && sym.recv == "") {
					continue
				}
				out = append(out, mk(sym.id(), k, d.Doc, from, d.End(), d.Pos()))
			case *ast.GenDecl:
				var k kind
				switch d.Tok {
				case token.TYPE:
					k = kType
				case token.CONST:
					k = kConst
				case token.VAR:
					k = kVar
				default:
					continue
				}
				from := d.Pos()
				if d.Doc != nil {
					from = d.Doc.Pos()
				}
				for _, spec := range d.Specs {
					doc := d.Doc
					switch sp := spec.(type) {
					case *ast.TypeSpec:
						if sp.Doc != nil {
							doc = sp.Doc
						} else if sp.Comment != nil && d.Lparen.IsValid() {
							doc = sp.Comment
						}
						if sp.Name.Name != "_" {
							out = append(out, mk(pkg+"."+sp.Name.Name, k, doc, from, d.End(), sp.Name.Pos()))
						}
					case *ast.ValueSpec:
						if sp.Doc != nil {
							doc = sp.Doc
						} else if sp.Comment != nil && d.Lparen.IsValid() {
							doc = sp.Comment
						}
						for _, n := range sp.Names {
							if n.Name != "_" {
								out = append(out, mk(pkg+"."+n.Name, k, doc, from, d.End(), n.Pos()))
							}
						}
					}
				}
			}
		}
	}
	return out, errors.Join(errs...)
}

// recvName returns the receiver type name without type parameters.
func recvName(x ast.Expr) (name string, ptr bool) {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x, ptr = t.X, true
		case *ast.ParenExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.Ident:
			return t.Name, ptr
		default:
			return "", ptr
		}
	}
}

// readSpan reads bytes [start, end) of a snapshot file.
func (s *snapshot) readSpan(fi, start, end int32) (string, error) {
	if end <= start {
		return "", nil
	}
	f, err := s.fsys.Open(s.files[fi].path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, end-start)
	n := 0
	if ra, ok := f.(io.ReaderAt); ok {
		n, err = ra.ReadAt(buf, int64(start))
		if n == len(buf) {
			err = nil
		}
	} else if sk, ok := f.(io.Seeker); ok {
		if _, err = sk.Seek(int64(start), io.SeekStart); err == nil {
			_, err = io.ReadFull(f, buf)
		}
	} else if _, err = io.CopyN(io.Discard, f, int64(start)); err == nil {
		_, err = io.ReadFull(f, buf)
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", s.files[fi].path, err)
	}
	return string(buf), nil
}
