// Package codeindex is the declaration index of a codetools source
// snapshot: what the mcpsnapshot generator extracts from Go source with
// go/parser, and what a catalog reads back at run time without parsing
// any Go.
//
// The index is a text file, one record per line, written in the order of
// the snapshot's files and, within a file, of the declarations:
//
//	embedmcp-codetools-index/1
//	decls 2
//	file src/example.com/app/main.go.txt
//	f main 12 30 180 640 150 179
//	m (*Server).Handle 40 52 700 1200 0 0 b
//
// The "decls" record counts the declarations, so that a reader can size
// its tables. A "file" record names a file of the snapshot by its path;
// the records that follow describe its declarations. A declaration record is
//
//	<kind> <name> <line> <endLine> <start> <end> <docStart> <docEnd> [<flags>]
//
// with kind one of f (func), m (method), t (type), c (const), v (var),
// p (package clause; name "-"), d (a struct field, "T.F") and a (an
// interface method, "I.M"; see Field); line and endLine the 1-based lines of the
// declared name (the func keyword for functions) and of the end of the
// declaration; [start, end) the byte span of the definition (doc comment
// included); [docStart, docEnd) the byte span of the doc comment (0 0 if
// none); flags "b" for a function without a body (implemented in assembly
// or through go:linkname). Records of other kinds are skipped by readers,
// so that later versions can add information without breaking older
// readers; a change to the meaning of existing records changes the
// header.
package codeindex

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
)

// Header is the first line of an index.
const Header = "embedmcp-codetools-index/1"

// Kind is the kind of a declaration.
type Kind byte

// Declaration kinds.
const (
	Func    Kind = 'f'
	Method  Kind = 'm'
	Type    Kind = 't'
	Const   Kind = 'c'
	Var     Kind = 'v'
	Package Kind = 'p'
	// Field is a field of a struct type, named "T.F"; InterfaceMethod a
	// method of an interface type, named "I.M". Their line is the
	// member's, their span and end line those of the type's declaration
	// (a member resolves to the type that declares it), their doc span
	// the member's doc or line comment. Their kinds are the references'
	// (SymField, SymAbstract): lower case, unlike the references'
	// records. Readers of an earlier version skip them.
	Field           Kind = 'd'
	InterfaceMethod Kind = 'a'
)

func (k Kind) valid() bool {
	switch k {
	case Func, Method, Type, Const, Var, Package, Field, InterfaceMethod:
		return true
	}
	return false
}

// Decl is one declaration of a source file.
type Decl struct {
	Kind Kind
	// Name is the declared name: "F", "T", "T.M" or "(*T).M" for methods
	// (receiver type without type parameters), "init.N" for the N-th init
	// function of the package, "" for the package clause.
	Name string
	// Line is the line of the declared name, or of the func keyword for
	// functions and methods; EndLine is the line the declaration ends on.
	Line, EndLine int32
	// Start and End delimit the definition, doc comment included; for a
	// grouped const, var or type, the whole group.
	Start, End int32
	// DocStart and DocEnd delimit the doc comment; both 0 if none.
	DocStart, DocEnd int32
	// Bodyless reports a function declared without a body.
	Bodyless bool
	// Words are the declaration's search words in the "w" record's form
	// (see Words), "" for none.
	Words string

	calls []string // names the body calls, until ParsePackage adds callers' words
}

// Source is one Go file of a package, for Parse.
type Source struct {
	// Path is the file's location in the snapshot.
	Path string
	// Name is the file's base name, used in parse errors.
	Name string
	Src  []byte
}

// File is the index of one snapshot file.
type File struct {
	Path  string
	Decls []Decl
}

// ParsePackage parses the files of one package, in the order the go
// command compiles them (which numbers its init functions), and returns
// their declarations.
func ParsePackage(files []Source) ([]File, error) {
	out := make([]File, 0, len(files))
	inits := 0
	for _, f := range files {
		decls, err := parseFile(f, &inits)
		if err != nil {
			return nil, err
		}
		out = append(out, File{Path: f.Path, Decls: decls})
	}
	addCallers(out)
	return out, nil
}

func parseFile(s Source, inits *int) ([]Decl, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, s.Name, s.Src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int32 { return int32(tf.Offset(p)) }
	line := func(p token.Pos) int32 { return int32(tf.Line(p)) }
	mk := func(k Kind, name string, doc *ast.CommentGroup, from, to, at token.Pos) Decl {
		d := Decl{Kind: k, Name: name, Line: line(at), EndLine: line(to), Start: off(from), End: off(to)}
		if doc != nil {
			d.DocStart, d.DocEnd = off(doc.Pos()), off(doc.End())
		}
		return d
	}
	from := func(doc *ast.CommentGroup, p token.Pos) token.Pos {
		if doc != nil {
			return doc.Pos()
		}
		return p
	}
	decls := []Decl{mk(Package, "", f.Doc, from(f.Doc, f.Package), f.Name.End(), f.Package)}
	imports := importNames(f)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name, k, ok := FuncName(d, inits)
			if !ok {
				continue
			}
			decl := mk(k, name, d.Doc, from(d.Doc, d.Pos()), d.End(), d.Pos())
			decl.Bodyless = d.Body == nil
			decl.Words = Words(d, f.Comments)
			decl.calls = calledNames(d, imports)
			decls = append(decls, decl)
		case *ast.GenDecl:
			var k Kind
			switch d.Tok {
			case token.TYPE:
				k = Type
			case token.CONST:
				k = Const
			case token.VAR:
				k = Var
			default:
				continue
			}
			start := from(d.Doc, d.Pos())
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
						decl := mk(k, sp.Name.Name, doc, start, d.End(), sp.Name.Pos())
						decl.EndLine = line(sp.End())
						decl.Words = Words(sp, nil)
						decls = append(decls, decl)
						decls = appendMembers(decls, decl, sp, mk)
					}
				case *ast.ValueSpec:
					if sp.Doc != nil {
						doc = sp.Doc
					} else if sp.Comment != nil && d.Lparen.IsValid() {
						doc = sp.Comment
					}
					for _, n := range sp.Names {
						if n.Name != "_" {
							decl := mk(k, n.Name, doc, start, d.End(), n.Pos())
							decl.EndLine = line(sp.End())
							decl.Words = Words(sp, nil)
							decls = append(decls, decl)
						}
					}
				}
			}
		}
	}
	return decls, nil
}

// appendMembers appends the named fields of a struct type and the methods
// of an interface type: their spans are the type's (typ), their lines and
// doc spans their own. Embedded fields and interfaces are left out: their
// names are the embedded types'.
func appendMembers(decls []Decl, typ Decl, sp *ast.TypeSpec,
	mk func(Kind, string, *ast.CommentGroup, token.Pos, token.Pos, token.Pos) Decl) []Decl {
	var fields *ast.FieldList
	k := Field
	switch t := sp.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields, k = t.Methods, InterfaceMethod
	}
	if fields == nil {
		return decls
	}
	for _, f := range fields.List {
		doc := f.Doc
		if doc == nil {
			doc = f.Comment
		}
		for _, n := range f.Names {
			if n.Name == "_" {
				continue
			}
			d := mk(k, typ.Name+"."+n.Name, doc, n.Pos(), n.Pos(), n.Pos())
			d.Start, d.End, d.EndLine = typ.Start, typ.End, max(typ.EndLine, d.Line)
			d.Words = memberWords(f)
			decls = append(decls, d)
		}
	}
	return decls
}

// FuncName returns the name of a function declaration as the index
// records it: "F", "T.M" or "(*T).M" (the receiver type without type
// parameters), or "init.N" for the N-th init function of the package,
// counted by *inits across its files in compile order. ok is false for a
// declaration the index leaves out (a blank name or receiver).
func FuncName(d *ast.FuncDecl, inits *int) (name string, k Kind, ok bool) {
	name, k = d.Name.Name, Func
	if d.Recv != nil {
		if len(d.Recv.List) != 1 {
			return "", 0, false
		}
		recv, ptr := recvName(d.Recv.List[0].Type)
		if recv == "" || recv == "_" {
			return "", 0, false
		}
		k = Method
		if ptr {
			name = "(*" + recv + ")." + name
		} else {
			name = recv + "." + name
		}
	} else if name == "init" {
		name = "init." + strconv.Itoa(*inits)
		*inits++
	}
	return name, k, d.Name.Name != "_"
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

// ErrFormat is wrapped by the errors of Reader for malformed input.
var ErrFormat = fmt.Errorf("malformed snapshot index")
