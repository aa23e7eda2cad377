package codeindex

import (
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/embedmcp/mcp/internal/bm25f"
)

// Search words: mcpsnapshot computes, for each declaration, the words a
// search matches beyond its name and documentation, so that a catalog
// indexes them without tokenizing source at run time. They are written as
// a "w" record before the declaration's record:
//
//	w <code words> | <text words> | <member words>
//
// Code words are the distinct identifiers of the declaration's source, in
// order, then, for a function or method, the words of the names of its
// callers in its package (callers.go); text words are what names things in it: its string literals
// (messages, header names, routes, SQL, config keys; a format string's
// verbs dropped), the comments inside a function's body, and a type's
// fields and interface methods with their types, tags and comments;
// member words are the names of a type's fields and interface methods. All
// are terms as internal/bm25f's tokenizer makes them (split, lower-cased,
// stemmed), without Go's keywords and commonest names. Readers of an
// earlier version skip the record.
const (
	// MaxCodeWords and MaxTextWords bound the words of one declaration.
	MaxCodeWords   = 16
	MaxTextWords   = 96
	MaxMemberWords = 32
)

// commonCode are words of Go source that say nothing about a declaration:
// keywords, predeclared identifiers and the commonest names, as terms.
var commonCode = map[string]bool{
	"func": true, "function": true, "return": true, "if": true, "els": true, "for": true, "rang": true,
	"var": true, "variabl": true, "const": true, "type": true, "struct": true, "interfac": true, "map": true,
	"chan": true, "go": true, "defer": true, "switch": true, "case": true, "default": true, "break": true,
	"continu": true, "select": true, "packag": true, "import": true, "nil": true, "true": true, "fals": true,
	"error": true, "string": true, "int": true, "int64": true, "int32": true, "uint64": true, "uint32": true,
	"bool": true, "byte": true, "rune": true, "float64": true, "ani": true, "len": true, "length": true,
	"cap": true, "append": true, "make": true, "new": true, "copi": true, "delet": true, "panic": true,
	"ok": true, "v": true, "x": true, "s": true, "b": true, "e": true, "n": true, "r": true, "w": true,
	"t": true, "k": true, "p": true, "c": true, "m": true, "fmt": true, "sprintf": true, "errorf": true,
	"d": true, "q": true, "uint16": true, "uint8": true, "int8": true, "int16": true, "float32": true,
}

// wordSet collects distinct terms up to a bound.
type wordSet struct {
	tok     bm25f.Tokenizer
	terms   []string
	max     int
	scratch []string
}

func (w *wordSet) add(s string) { w.addTerms(w.tok.AppendTerms(w.scratch[:0], s)) }

// addPhrase adds the terms of a string literal and its pairs of adjacent
// terms ("maximum+messag"), which a pasted message meets as written
// (Bigram).
func (w *wordSet) addPhrase(s string) {
	ts := w.tok.AppendTerms(w.scratch[:0], s)
	w.addTerms(ts)
	for i := 1; i < len(ts) && len(w.terms) < w.max; i++ {
		if b := Bigram(ts[i-1], ts[i]); !slices.Contains(w.terms, b) {
			w.terms = append(w.terms, b)
		}
	}
}

// Bigram is the term of two adjacent terms of a string literal.
func Bigram(a, b string) string { return a + "+" + b }

func (w *wordSet) addTerms(ts []string) {
	if len(w.terms) >= w.max {
		return
	}
	for _, t := range ts {
		if commonCode[t] || slices.Contains(w.terms, t) || strings.ContainsAny(t, "|\n") {
			continue
		}
		w.terms = append(w.terms, t)
		if len(w.terms) == w.max {
			return
		}
	}
}

// Words returns the search words of a declaration node (a *ast.FuncDecl,
// or the *ast.TypeSpec or *ast.ValueSpec of a declared name) in the "w"
// record's form, "" when it has none.
func Words(node ast.Node, comments []*ast.CommentGroup) string {
	code := wordSet{max: MaxCodeWords}
	text := wordSet{max: MaxTextWords}
	members := wordSet{max: MaxMemberWords}
	var body ast.Node = node
	switch n := node.(type) {
	case *ast.FuncDecl:
		if n.Body == nil {
			return ""
		}
		body = n.Body
		for _, c := range comments {
			if c.Pos() > n.Body.Lbrace && c.End() < n.Body.Rbrace {
				text.add(c.Text())
			}
		}
	case *ast.TypeSpec:
		typeWords(&members, &text, n.Type)
	case *ast.ValueSpec:
		if n.Comment != nil {
			text.add(n.Comment.Text())
		}
	}
	ast.Inspect(body, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.BasicLit:
			if x.Kind == token.STRING {
				if s, err := strconv.Unquote(x.Value); err == nil {
					text.addPhrase(dropVerbs(s))
				}
			}
		case *ast.Ident:
			code.add(x.Name)
		case *ast.FuncLit:
			return true
		}
		return true
	})
	if len(code.terms) == 0 && len(text.terms) == 0 && len(members.terms) == 0 {
		return ""
	}
	return strings.Join(code.terms, " ") + " | " + strings.Join(text.terms, " ") + " | " + strings.Join(members.terms, " ")
}

// typeWords adds the fields of a struct and the methods of an interface:
// their names to members, their types, tags and comments to w.
func typeWords(members, w *wordSet, t ast.Expr) {
	var fields *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	}
	if fields == nil {
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			members.add(n.Name)
		}
		if len(f.Names) == 0 {
			members.add(typeString(f.Type)) // an embedded field
		}
		if f.Doc != nil {
			w.add(f.Doc.Text())
		}
		if f.Comment != nil {
			w.add(f.Comment.Text())
		}
		if f.Tag != nil {
			if s, err := strconv.Unquote(f.Tag.Value); err == nil {
				w.add(s)
			}
		}
		if _, isFunc := f.Type.(*ast.FuncType); !isFunc {
			w.add(typeString(f.Type))
		}
	}
}

// typeString names a field's type by its identifiers (time.Duration →
// "time Duration").
func typeString(t ast.Expr) string {
	var b strings.Builder
	ast.Inspect(t, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok {
			b.WriteString(id.Name)
			b.WriteByte(' ')
		}
		return true
	})
	return b.String()
}

// dropVerbs replaces the verbs of a format string (%s, %d, %v, %q, %08x,
// %%) with spaces: the printed text holds their values instead.
func dropVerbs(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if b[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(b) && strings.IndexByte("+-# 0123456789.*[]", b[j]) >= 0 {
			j++
		}
		if j < len(b) {
			j++
		}
		for k := i; k < j; k++ {
			b[k] = ' '
		}
		i = j - 1
	}
	return string(b)
}

// memberWords returns the search words of a struct field or interface
// method in the "w" record's form: as text words, the identifiers of its
// type (a method's parameters and results) and its tag ("" when none).
func memberWords(f *ast.Field) string {
	text := wordSet{max: MaxCodeWords}
	text.add(typeString(f.Type))
	if f.Tag != nil {
		if s, err := strconv.Unquote(f.Tag.Value); err == nil {
			text.add(s)
		}
	}
	if len(text.terms) == 0 {
		return ""
	}
	return " | " + strings.Join(text.terms, " ") + " | "
}
