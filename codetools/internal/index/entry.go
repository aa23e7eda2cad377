package index

import (
	"bytes"
	"github.com/embedmcp/mcp/internal/boundedjson"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of an entry.
type Kind uint8

// The kinds of entries, in the order of KindNames.
const (
	KindFunc Kind = iota
	KindMethod
	KindType
	KindConst
	KindVar
	KindPackage
	KindTool
	KindDoc
	KindField
	numKinds
)

// KindNames are the names of the kinds, as the Kind constants of package
// codetools spell them.
var KindNames = [numKinds]string{"func", "method", "type", "const", "var", "package", "tool", "doc", "field"}

// String returns the name of k, as the API spells it.
func (k Kind) String() string { return KindNames[k] }

// ParseKind returns the kind named s.
func ParseKind(s string) (Kind, bool) {
	for i, n := range KindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

// SourceSet is the set of sources of an entry.
type SourceSet uint8

// The sources of entries.
const (
	SrcRuntime SourceSet = 1 << iota
	SrcSnapshot
	SrcRegistered
)

// Entry is one compact catalog entry. It holds no syntax trees: snapshot
// text is addressed by byte spans into the snapshot file.
type Entry struct {
	ID  string
	Pkg string // interned import path
	// The display path of the definition is the snapshot file's, or the
	// runtime evidence's for an entry the function table alone knows
	// (Base.FileOf, Index.FileOf): not kept in the entry.
	// The documentation prefix (DocString, ≤ MaxIndexedDoc bytes) is kept
	// beside the entries, in the lower-cased search text (Base.BaseDoc,
	// Index.DocOf), not in them.
	// The search words mcpsnapshot computed (codeindex.Words) are kept
	// beside the entries (Base.Words), not in them: most catalogs index
	// them once, from the search file.

	Line    int32 // line of the declaration (snapshot) or of the runtime evidence
	EndLine int32 // last line of the declaration (snapshot), 0 if unknown
	RtLine  int32 // runtime line, 0 if not linked
	Snap    int32 // snapshot file index, -1 if none
	Start   int32 // definition span in the snapshot file
	End     int32
	DocBeg  int32 // documentation span in the snapshot file
	DocEnd  int32
	Reg     int32 // registered document index, -1 if none
	// RtFile numbers the display path of the runtime evidence in
	// Base.RtFiles (0: none): 4 bytes rather than a string's 16.
	RtFile  uint32
	Kind    Kind
	Sources SourceSet
	// rt says how the declaration is linked into the running binary.
	Linkage Linkage
	// bodyless marks a function declared without a body (assembly,
	// go:linkname).
	Bodyless bool
	// member marks a struct field (kField) or an interface method
	// (kMethod, id pkg.Iface.Method): its span is its type's.
	Member bool
}

// Linkage records the evidence that a declaration is linked.
type Linkage uint8

const (
	// rtOwn: the declaration's own code is a function of the table, and
	// rtLine is its declaration line.
	RtOwn Linkage = 1 << iota
	// rtClosure: closures, method values or wrappers of it are.
	RtClosure
	// rtInlined: its body was inlined into other functions.
	RtInlined
	// rtDeclLine: rtLine is the declaration line (from an inline tree).
	RtDeclLine
	// rtForeign: a function without Go line information (C).
	RtForeign
)

// Exact reports whether rtLine is the declaration line.
func (l Linkage) Exact() bool { return l&(RtOwn|RtDeclLine) != 0 }

// Bounds on the documentation bytes kept per entry for search.
const (
	MaxIndexedDoc           = 512
	MaxIndexedRegisteredDoc = 8192
)

// DocPrefix returns the first max bytes of doc with runs of white space
// collapsed, never splitting a UTF-8 sequence.
func DocPrefix(doc string, max int) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if len(doc) <= max {
		return doc
	}
	return boundedjson.Truncate(doc, max)
}

// DocString returns the text of a doc comment span (the raw comment
// lines of the source) as go/ast's CommentGroup.Text would give it, with
// runs of white space collapsed and cut to at most max bytes. Directive
// lines (//go:noinline, //line, //export) are left out. It builds the
// text in scratch and returns scratch for reuse.
func DocString(raw []byte, max int, scratch []byte) (string, []byte) {
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

// LookupEntry returns the entry with the given id of entries, sorted by
// id.
func LookupEntry(entries []Entry, id string) (*Entry, bool) {
	i := sort.Search(len(entries), func(i int) bool { return entries[i].ID >= id })
	if i < len(entries) && entries[i].ID == id {
		return &entries[i], true
	}
	return nil, false
}
