// Package boundedjson is a JSON codec for untrusted input: a single-pass
// parser with bounds on depth, string length and container size that
// produces the generic form (map[string]any, []any, string, float64, bool,
// nil) and says where a document broke a bound; a decoder from the generic
// form into Go values; and an encoder of JSON strings. It knows nothing of
// the protocols built on it.
package boundedjson

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxPaths is the most paths a Parser captures or borrows.
const MaxPaths = 4

// Parser parses one document. Its configuration fields are set before Parse
// and not changed after; a Parser is used for one document.
type Parser struct {
	Limits Limits
	// Capture lists paths of object members (member names from the top
	// level down) whose raw bytes Captured keeps, in the same order: the
	// document is parsed once, and the caller still has the exact text of
	// the values it must pass on verbatim. At most MaxPaths.
	Capture [][]string
	// Borrow lists paths of objects (nil or empty for the top level) whose
	// maps come from a pool, for callers that drop them once the document
	// is answered: Release gives them back. At most MaxPaths.
	Borrow [][]string
	// Elements records the raw bytes of each element of a top-level array
	// in Elems, and accepts duplicate member names: each element is meant
	// to be parsed again on its own, which reports them as that element's
	// error.
	Elements bool
	// InternKey and InternString, when set, return the string for a member
	// name or the value for a string, so that common ones are not
	// allocated. They must not keep b.
	InternKey    func(b []byte) string
	InternString func(b []byte) any

	// Captured holds the raw bytes of the Capture paths found (nil when
	// absent), slices of the document.
	Captured [MaxPaths][]byte
	// Elems holds the raw elements of a top-level array (Elements).
	Elems [][]byte

	data     []byte
	pos      int
	depth    int
	values   int         // values parsed so far
	stack    []any       // the elements of the arrays being parsed, innermost last
	steps    [16]segment // the path to the value being parsed, its first steps
	more     []segment   // and the steps past the sixteenth
	nsteps   int
	maxCap   int // the longest Capture path
	borrowed [MaxPaths]map[string]any
}

// segment is one step of the path to the value being parsed.
type segment struct {
	key   string
	index int // -1 for a member
}

var pool = sync.Pool{New: func() any { return make(map[string]any, 8) }}

// Parse parses exactly one JSON value under lim.
func Parse(data []byte, lim Limits) (any, error) {
	p := Parser{Limits: lim}
	return p.Parse(data)
}

// Parse parses exactly one JSON value.
func (p *Parser) Parse(data []byte) (any, error) {
	p.Limits = p.Limits.OrDefault()
	p.data, p.pos, p.depth, p.nsteps, p.values = data, 0, 0, 0, 0
	for _, c := range p.Capture {
		p.maxCap = max(p.maxCap, len(c))
	}
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.fail("unexpected data after the top-level value")
	}
	return v, nil
}

// Release gives the borrowed maps back to the pool; the values parsed must
// not be used afterwards.
func (p *Parser) Release() {
	for i, m := range p.borrowed {
		if m != nil {
			clear(m)
			pool.Put(m)
			p.borrowed[i] = nil
		}
	}
}

func (p *Parser) fail(msg string) error {
	return &SyntaxError{Offset: p.pos, Path: p.pointer(), Msg: msg}
}

func (p *Parser) bound(msg string) error {
	return &SyntaxError{Offset: p.pos, Path: p.pointer(), Msg: msg, err: ErrBound}
}

// push and pop move along the path to the value being parsed. The path
// is not a slice of the Parser's own array, which would make every Parser
// escape to the heap.
func (p *Parser) push(s segment) {
	if p.nsteps < len(p.steps) {
		p.steps[p.nsteps] = s
	} else {
		p.more = append(p.more[:p.nsteps-len(p.steps)], s)
	}
	p.nsteps++
}

func (p *Parser) pop() { p.nsteps-- }

func (p *Parser) step(i int) segment {
	if i < len(p.steps) {
		return p.steps[i]
	}
	return p.more[i-len(p.steps)]
}

// pointer renders the path as a JSON pointer, each member name and the
// whole cut to a length a message can carry.
func (p *Parser) pointer() string {
	if p.nsteps == 0 {
		return ""
	}
	const maxSegment, maxPointer = 48, 256
	var b strings.Builder
	for i := range p.nsteps {
		s := p.step(i)
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
			continue
		}
		k := s.key
		if len(k) > maxSegment {
			k = Truncate(k, maxSegment) + "…"
		}
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
	}
	ptr := b.String()
	if len(ptr) > maxPointer {
		cut := len(ptr) - maxPointer
		for cut < len(ptr) && ptr[cut]&0xC0 == 0x80 {
			cut++
		}
		ptr = "…" + ptr[cut:]
	}
	return ptr
}

// atPath reports whether the current path is want (member names only).
func (p *Parser) atPath(want []string) bool {
	if len(want) != p.nsteps {
		return false
	}
	for i, k := range want {
		if s := p.step(i); s.index >= 0 || s.key != k {
			return false
		}
	}
	return true
}

func (p *Parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *Parser) value() (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of input")
	}
	if p.values++; p.values > p.Limits.MaxValues {
		return nil, p.bound("more than " + Group(p.Limits.MaxValues) + " values in the document")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		b, err := p.str()
		if err != nil {
			return nil, err
		}
		if p.InternString != nil {
			return p.InternString(b), nil
		}
		return string(b), nil
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.fail(fmt.Sprintf("invalid character %q looking for a value", c))
	}
}

func (p *Parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.fail("invalid literal")
	}
	p.pos += len(word)
	return nil
}

func (p *Parser) enter() error {
	p.depth++
	if p.depth > p.Limits.MaxDepth {
		return p.bound("nesting deeper than " + Group(p.Limits.MaxDepth))
	}
	return nil
}

// newMap returns the map of the object starting at the current path.
func (p *Parser) newMap() map[string]any {
	if p.nsteps <= 2 {
		for i, b := range p.Borrow {
			if i < MaxPaths && p.borrowed[i] == nil && p.atPath(b) {
				m := pool.Get().(map[string]any)
				p.borrowed[i] = m
				return m
			}
		}
	}
	return make(map[string]any, 4)
}

func (p *Parser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '{'
	m := p.newMap()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return m, nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("expected a member name")
		}
		keyAt := p.pos
		kb, err := p.str()
		if err != nil {
			return nil, err
		}
		var k string
		if p.InternKey != nil {
			k = p.InternKey(kb)
		} else {
			k = string(kb)
		}
		if _, dup := m[k]; dup && !p.Elements {
			return nil, &SyntaxError{Offset: keyAt, Path: p.pointer(), err: ErrDuplicate,
				Msg: "duplicate member " + Quote(k, 64)}
		}
		if len(m) >= p.Limits.MaxMembers {
			return nil, p.bound("object with more than " + Group(p.Limits.MaxMembers) + " members")
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after a member name")
		}
		p.pos++
		p.skipSpace()
		start := p.pos
		p.push(segment{key: k, index: -1})
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if p.nsteps <= p.maxCap {
			for i, c := range p.Capture {
				if i < MaxPaths && p.atPath(c) {
					p.Captured[i] = p.data[start:p.pos]
				}
			}
		}
		p.pop()
		m[k] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			p.depth--
			return m, nil
		default:
			return nil, p.fail("expected ',' or '}' in an object")
		}
	}
}

func (p *Parser) array() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '['
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return []any{}, nil
	}
	// The elements go on the parser's stack, and the array is made once,
	// of its size: growing each array by append would allocate about
	// twice its size.
	mark := len(p.stack)
	for {
		n := len(p.stack) - mark
		if n >= p.Limits.MaxMembers {
			return nil, p.bound("array with more than " + Group(p.Limits.MaxMembers) + " elements")
		}
		start := p.pos
		p.push(segment{index: n})
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.pop()
		if p.Elements && p.depth == 1 {
			p.Elems = append(p.Elems, p.data[start:p.pos])
		}
		p.stack = append(p.stack, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			p.depth--
			a := make([]any, len(p.stack)-mark)
			copy(a, p.stack[mark:])
			clear(p.stack[mark:])
			p.stack = p.stack[:mark]
			return a, nil
		default:
			return nil, p.fail("expected ',' or ']' in an array")
		}
	}
}

// str parses a string at p.pos (which holds '"') and returns its decoded
// bytes: a slice of the input, or of a new buffer when it had escapes or
// non-ASCII characters.
func (p *Parser) str() ([]byte, error) {
	p.pos++
	start := p.pos
	// Fast path: printable ASCII without escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			if p.pos-start > p.Limits.MaxString {
				return nil, p.tooLong()
			}
			p.pos++
			return p.data[start : p.pos-1], nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		p.pos++
	}
	buf := make([]byte, 0, p.pos-start+16)
	buf = append(buf, p.data[start:p.pos]...)
	for {
		if len(buf) > p.Limits.MaxString {
			return nil, p.tooLong()
		}
		if p.pos >= len(p.data) {
			return nil, p.fail("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return buf, nil
		case c < 0x20:
			return nil, p.fail("control character in a string")
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return nil, err
			}
			buf = utf8.AppendRune(buf, r)
		case c < 0x80:
			buf = append(buf, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				return nil, p.fail("invalid UTF-8 in a string")
			}
			buf = append(buf, p.data[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

func (p *Parser) tooLong() error {
	return p.bound("string longer than " + Group(p.Limits.MaxString) + " bytes")
}

// escape decodes the escape sequence at p.pos ('\\').
func (p *Parser) escape() (rune, error) {
	if p.pos+1 >= len(p.data) {
		return 0, p.fail("unterminated escape")
	}
	c := p.data[p.pos+1]
	p.pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return 0, p.fail("invalid \\u escape")
		}
		if utf16.IsSurrogate(r) {
			// A high surrogate must be followed by an escaped low one.
			if r < 0xDC00 && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				p.pos += 2
				r2, ok := p.hex4()
				if ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						return d, nil
					}
				}
			}
			return 0, p.fail("invalid UTF-16 surrogate in a \\u escape")
		}
		return r, nil
	default:
		return 0, p.fail(fmt.Sprintf("invalid escape '\\%c'", c))
	}
}

func (p *Parser) hex4() (rune, bool) {
	if len(p.data)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// number parses a number by the JSON grammar, rejecting what does not fit
// in a float64 (1e999) as well as NaN-like and malformed forms.
func (p *Parser) number() (any, error) {
	start := p.pos
	d := p.data
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	default:
		return nil, p.fail("invalid number")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if !p.digits() {
			return nil, p.fail("invalid number: digits expected after '.'")
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			return nil, p.fail("invalid number: digits expected in the exponent")
		}
	}
	if p.pos-start > MaxNumberLen {
		return nil, p.bound("number longer than " + Group(MaxNumberLen) + " characters")
	}
	if p.pos-start <= 3 {
		if v, ok := smallNumber(d[start:p.pos]); ok {
			return v, nil
		}
	}
	f, err := strconv.ParseFloat(string(d[start:p.pos]), 64)
	if err != nil || math.IsInf(f, 0) {
		p.pos = start
		return nil, p.bound("number out of range")
	}
	return f, nil
}

// smallNumbers are the float64 values 0 to 255 as interface values, made
// once: boxing a float64 allocates, and documents are full of small
// numbers. They are never changed.
var smallNumbers = func() (a [256]any) {
	for i := range a {
		a[i] = float64(i)
	}
	return a
}()

// smallNumber returns the value of b, the text of a number, if it is an
// integer from 0 to 255 written without sign, fraction or exponent.
func smallNumber(b []byte) (any, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return nil, false
		}
		n = n*10 + int(c-'0')
	}
	if n > 255 || len(b) == 0 || (len(b) > 1 && b[0] == '0') {
		return nil, false
	}
	return smallNumbers[n], true
}

func (p *Parser) digits() bool {
	n := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > n
}
