package codetools

import (
	"strings"
	"unicode/utf8"
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
)

// Sources of catalog entries.
const (
	SourceRuntime    = "runtime"
	SourceSnapshot   = "snapshot"
	SourceRegistered = "registered"
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
	numKinds
)

var kindNames = [numKinds]string{KindFunc, KindMethod, KindType, KindConst, KindVar, KindPackage, KindTool, KindDoc}

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

// primary returns the source that supplies an entry's definition.
func (s sourceSet) primary() string {
	switch {
	case s&srcRegistered != 0:
		return SourceRegistered
	case s&srcSnapshot != 0:
		return SourceSnapshot
	default:
		return SourceRuntime
	}
}

func (s sourceSet) names() []string {
	out := make([]string, 0, 3) // never nil: encodes as [], not null
	if s&srcRuntime != 0 {
		out = append(out, SourceRuntime)
	}
	if s&srcSnapshot != 0 {
		out = append(out, SourceSnapshot)
	}
	if s&srcRegistered != 0 {
		out = append(out, SourceRegistered)
	}
	return out
}

// entry is one compact catalog entry. It holds no syntax trees: snapshot
// text is addressed by byte spans into the snapshot file.
type entry struct {
	id   string
	pkg  string // interned import path
	file string // interned display path of the definition
	doc  string // searchable documentation prefix (≤ maxIndexedDoc bytes)

	line    int32 // line of the declaration (snapshot) or entry PC (runtime)
	rtLine  int32 // runtime line, 0 if not linked
	rtFile  string
	snap    int32 // snapshot file index, -1 if none
	start   int32 // definition span in the snapshot file
	end     int32
	docBeg  int32 // documentation span in the snapshot file
	docEnd  int32
	reg     int32 // registered document index, -1 if none
	kind    kind
	sources sourceSet
	rtExact bool  // the runtime line is the declaration's, not a closure's
	endLine int32 // last line of the snapshot definition span, 0 if none
}

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
	cut := max
	for cut > 0 && !utf8.RuneStart(doc[cut]) {
		cut--
	}
	return doc[:cut]
}

// interner shares equal strings.
type interner map[string]string

func (in interner) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}
