package codetools

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// Kinds of catalog entries.
const (
	KindFunc    = "func"
	KindMethod  = "method"
	KindType    = "type"
	KindConst   = "const"
	KindVar     = "var"
	KindPackage = "package"
	KindTool    = "tool"
	KindDoc     = "doc"
	// KindField is a field of a struct type (id pkg.Type.Field); its
	// definition is the struct's.
	KindField = "field"
)

// Sources of catalog entries.
const (
	SourceRuntime    = "runtime"
	SourceSnapshot   = "snapshot"
	SourceRegistered = "registered"
	// SourceReferences marks a declaration of a package outside the
	// snapshot, known only because the snapshot's code refers to it.
	SourceReferences = "references"
)

type kind uint8

const (
	kFunc kind = iota
	kMethod
	kType
	kConst
	kVar
	kPackage
	kTool
	kDoc
	kField
	numKinds
)

// kindNames are the names of the kinds, as the Kind constants of package
// codetools spell them.
var kindNames = [numKinds]string{"func", "method", "type", "const", "var", "package", "tool", "doc", "field"}

func (k kind) String() string { return kindNames[k] }

func parseKind(s string) (kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return kind(i), true
		}
	}
	return 0, false
}

type sourceSet uint8

const (
	srcRuntime sourceSet = 1 << iota
	srcSnapshot
	srcRegistered
)


// entry is one compact catalog entry. It holds no syntax trees: snapshot
// text is addressed by byte spans into the snapshot file.
type entry struct {
	id   string
	pkg  string // interned import path
	file string // interned display path of the definition
	doc  string // searchable documentation prefix (≤ maxIndexedDoc bytes)
	// words are the search words mcpsnapshot computed (codeindex.Words),
	// read by the term index each time it is built.
	words  string
	rtFile string // interned display path of the runtime evidence

	line    int32 // line of the declaration (snapshot) or of the runtime evidence
	endLine int32 // last line of the declaration (snapshot), 0 if unknown
	rtLine  int32 // runtime line, 0 if not linked
	snap    int32 // snapshot file index, -1 if none
	start   int32 // definition span in the snapshot file
	end     int32
	docBeg  int32 // documentation span in the snapshot file
	docEnd  int32
	reg     int32 // registered document index, -1 if none
	kind    kind
	sources sourceSet
	// rt says how the declaration is linked into the running binary.
	rt rtLink
	// bodyless marks a function declared without a body (assembly,
	// go:linkname).
	bodyless bool
	// member marks a struct field (kField) or an interface method
	// (kMethod, id pkg.Iface.Method): its span is its type's.
	member bool
}

// rtLink records the evidence that a declaration is linked.
type rtLink uint8

const (
	// rtOwn: the declaration's own code is a function of the table, and
	// rtLine is its declaration line.
	rtOwn rtLink = 1 << iota
	// rtClosure: closures, method values or wrappers of it are.
	rtClosure
	// rtInlined: its body was inlined into other functions.
	rtInlined
	// rtDeclLine: rtLine is the declaration line (from an inline tree).
	rtDeclLine
	// rtForeign: a function without Go line information (C).
	rtForeign
)

// exact reports whether rtLine is the declaration line.
func (l rtLink) exact() bool { return l&(rtOwn|rtDeclLine) != 0 }

// Bounds on the documentation bytes kept per entry for search.
const (
	maxIndexedDoc           = 512
	maxIndexedRegisteredDoc = 8192
)

// docPrefix returns the first max bytes of doc with runs of white space
// collapsed, never splitting a UTF-8 sequence.
func docPrefix(doc string, max int) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if len(doc) <= max {
		return doc
	}
	return boundedjson.Truncate(doc, max)
}

// docString returns the text of a doc comment span (the raw comment
// lines of the source) as go/ast's CommentGroup.Text would give it, with
// runs of white space collapsed and cut to at most max bytes. Directive
// lines (//go:noinline, //line, //export) are left out. It builds the
// text in scratch and returns scratch for reuse.
func docString(raw []byte, max int, scratch []byte) (string, []byte) {
	b := scratch[:0]
	space := false
	put := func(text []byte) {
		for len(text) > 0 && len(b) < max {
			r, size := utf8.DecodeRune(text)
			if unicode.IsSpace(r) {
				text = text[size:]
				space = len(b) > 0
				continue
			}
			if space {
				b = append(b, ' ')
				space = false
			}
			if len(b)+size > max {
				return
			}
			b = append(b, text[:size]...)
			text = text[size:]
		}
	}
	for len(raw) > 0 && len(b) < max {
		raw = bytes.TrimLeft(raw, " \t\r\n")
		switch {
		case bytes.HasPrefix(raw, []byte("//")):
			line := raw[2:]
			if i := bytes.IndexByte(line, '\n'); i >= 0 {
				line, raw = line[:i], line[i+1:]
			} else {
				raw = nil
			}
			if !isDirective(line) {
				put(line)
				space = len(b) > 0
			}
		case bytes.HasPrefix(raw, []byte("/*")):
			body := raw[2:]
			if i := bytes.Index(body, []byte("*/")); i >= 0 {
				body, raw = body[:i], body[i+2:]
			} else {
				raw = nil
			}
			put(body)
			space = len(b) > 0
		default:
			raw = nil
		}
	}
	return string(b), b
}

// isDirective reports whether the text of a // comment is a directive,
// as go/ast decides.
func isDirective(c []byte) bool {
	for _, p := range [...]string{"line ", "extern ", "export "} {
		if bytes.HasPrefix(c, []byte(p)) {
			return true
		}
	}
	colon := bytes.IndexByte(c, ':')
	if colon <= 0 || colon+1 >= len(c) {
		return false
	}
	for i := 0; i <= colon+1; i++ {
		if i == colon {
			continue
		}
		b := c[i]
		if !('a' <= b && b <= 'z' || '0' <= b && b <= '9') {
			return false
		}
	}
	return true
}
