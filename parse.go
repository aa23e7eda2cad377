package mcp

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Limits bounds what the JSON-RPC parser accepts (the bounds of nsmcp's
// parser). A body that breaks a bound is answered with -32700 "Parse error"
// (depth, string length, container size, numbers, UTF-8, syntax) or, for a
// duplicate member name, -32600 "Invalid request"; it never reaches a tool.
type Limits struct {
	// MaxDepth is the deepest nesting of objects and arrays (the top-level
	// value is at depth 1). Default 32.
	MaxDepth int
	// MaxString is the longest string, in bytes after unescaping, for
	// values and member names alike. Default 65536.
	MaxString int
	// MaxMembers is the most members an object, or elements an array, may
	// have. Default 256.
	MaxMembers int
}

// DefaultLimits() returns nsmcp's bounds: depth 32, strings of 65 536 bytes,
// 256 members per object or array.
func DefaultLimits() Limits { return Limits{MaxDepth: 32, MaxString: 65536, MaxMembers: 256} }

func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxString <= 0 {
		l.MaxString = d.MaxString
	}
	if l.MaxMembers <= 0 {
		l.MaxMembers = d.MaxMembers
	}
	return l
}

// errDuplicateMember marks a syntax error that is a duplicate member name:
// valid JSON, but not an acceptable JSON-RPC request.
var errDuplicateMember = errors.New("duplicate member name")

func isDuplicate(err error) bool { return errors.Is(err, errDuplicateMember) }

// SyntaxError is a body the bounded parser refused: not JSON, or JSON that
// breaks a bound.
type SyntaxError struct {
	Offset int    // byte offset of the problem
	Msg    string // what is wrong
	err    error
}

// Error returns the problem and its offset.
func (e *SyntaxError) Error() string { return fmt.Sprintf("json: %s at offset %d", e.Msg, e.Offset) }

// Unwrap returns errDuplicateMember for duplicate member names.
func (e *SyntaxError) Unwrap() error { return e.err }

// parser is a single-pass, bounded JSON parser producing the generic form
// (map[string]any, []any, string, float64, bool, nil). It records the raw
// bytes of two members on the way, so that the envelope is parsed once:
// the top-level "id" and "params"."arguments".
type parser struct {
	data  []byte
	pos   int
	lim   Limits
	depth int

	envelope bool   // record spans of id and params.arguments
	params   bool   // record the span of the top-level "arguments"
	batch    bool   // record the spans of the top-level array's elements; each is parsed again on its own, which reports duplicate members as that element's error
	topKey   string // member of the top-level object being parsed
	idRaw    []byte
	argsRaw  []byte
	elems    [][]byte

	// The maps of the envelope and of its params are borrowed from
	// envelopeMaps and given back by release: they never outlive the
	// request, unlike the maps below them (arguments, _meta), which tools
	// may keep.
	topMap, paramsMap map[string]any
}

var envelopeMaps = sync.Pool{New: func() any { return make(map[string]any, 8) }}

// release gives the envelope's maps back; the parsed envelope must not be
// used afterwards.
func (p *parser) release() {
	for _, m := range [2]map[string]any{p.topMap, p.paramsMap} {
		if m != nil {
			clear(m)
			envelopeMaps.Put(m)
		}
	}
	p.topMap, p.paramsMap = nil, nil
}

// parseJSON parses exactly one JSON value under lim.
func parseJSON(data []byte, lim Limits) (any, error) {
	p := parser{data: data, lim: lim.orDefault()}
	return p.document()
}

func (p *parser) document() (any, error) {
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

func (p *parser) fail(msg string) error { return &SyntaxError{Offset: p.pos, Msg: msg} }

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of input")
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
		return internValue(b), nil
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

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.fail("invalid literal")
	}
	p.pos += len(word)
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > p.lim.MaxDepth {
		return p.fail(fmt.Sprintf("nesting deeper than %d", p.lim.MaxDepth))
	}
	return nil
}

func (p *parser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '{'
	var m map[string]any
	switch {
	case p.envelope && p.depth == 1 && p.topMap == nil:
		m = envelopeMaps.Get().(map[string]any)
		p.topMap = m
	case p.envelope && p.depth == 2 && p.topKey == "params" && p.paramsMap == nil:
		m = envelopeMaps.Get().(map[string]any)
		p.paramsMap = m
	default:
		m = make(map[string]any, 4)
	}
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
		k := internKey(kb)
		if _, dup := m[k]; dup && !p.batch {
			return nil, &SyntaxError{Offset: keyAt, Msg: fmt.Sprintf("duplicate member name %q", k), err: errDuplicateMember}
		}
		if len(m) >= p.lim.MaxMembers {
			return nil, p.fail(fmt.Sprintf("object with more than %d members", p.lim.MaxMembers))
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after a member name")
		}
		p.pos++
		p.skipSpace()
		start := p.pos
		if p.envelope && p.depth == 1 {
			p.topKey = k
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		switch {
		case p.envelope && p.depth == 1 && k == "id":
			p.idRaw = p.data[start:p.pos]
		case p.envelope && p.depth == 2 && k == "arguments" && p.topKey == "params",
			p.params && p.depth == 1 && k == "arguments":
			p.argsRaw = p.data[start:p.pos]
		}
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

func (p *parser) array() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '['
	a := make([]any, 0, 4)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return a, nil
	}
	for {
		if len(a) >= p.lim.MaxMembers {
			return nil, p.fail(fmt.Sprintf("array with more than %d elements", p.lim.MaxMembers))
		}
		start := p.pos
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if p.batch && p.depth == 1 {
			p.elems = append(p.elems, p.data[start:p.pos])
		}
		a = append(a, v)
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
			return a, nil
		default:
			return nil, p.fail("expected ',' or ']' in an array")
		}
	}
}

// str parses a string at p.pos (which holds '"') and returns its decoded
// bytes: a slice of the input, or of a new buffer when it had escapes or
// non-ASCII characters.
func (p *parser) str() ([]byte, error) {
	p.pos++
	start := p.pos
	// Fast path: printable ASCII without escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			if p.pos-start > p.lim.MaxString {
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
		if len(buf) > p.lim.MaxString {
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

// internKey returns b as a string, without allocating for the member names
// of MCP messages.
func internKey(b []byte) string {
	switch string(b) {
	case "jsonrpc":
		return "jsonrpc"
	case "id":
		return "id"
	case "method":
		return "method"
	case "params":
		return "params"
	case "name":
		return "name"
	case "arguments":
		return "arguments"
	case "_meta":
		return "_meta"
	case "progressToken":
		return "progressToken"
	case "cursor":
		return "cursor"
	case "protocolVersion":
		return "protocolVersion"
	case "capabilities":
		return "capabilities"
	case "clientInfo":
		return "clientInfo"
	case "version":
		return "version"
	case "result":
		return "result"
	case "text":
		return "text"
	case "type":
		return "type"
	}
	return string(b)
}

// internValue returns b as a string in an interface, without allocating
// for the common string values of MCP messages.
func internValue(b []byte) any {
	switch string(b) {
	case "2.0":
		return "2.0"
	case "tools/call":
		return "tools/call"
	case "tools/list":
		return "tools/list"
	case "initialize":
		return "initialize"
	case "ping":
		return "ping"
	case "":
		return ""
	}
	return string(b)
}

func (p *parser) tooLong() error {
	return p.fail(fmt.Sprintf("string longer than %d bytes", p.lim.MaxString))
}

// escape decodes the escape sequence at p.pos ('\\').
func (p *parser) escape() (rune, error) {
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

func (p *parser) hex4() (rune, bool) {
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

// maxNumberLen bounds the text of one number.
const maxNumberLen = 1024

// number parses a number by the JSON grammar, rejecting what does not fit
// in a float64 (1e999) as well as NaN-like and malformed forms.
func (p *parser) number() (any, error) {
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
	if p.pos-start > maxNumberLen {
		return nil, p.fail(fmt.Sprintf("number longer than %d characters", maxNumberLen))
	}
	f, err := strconv.ParseFloat(string(d[start:p.pos]), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, &SyntaxError{Offset: start, Msg: "number out of range"}
	}
	return f, nil
}

func (p *parser) digits() bool {
	n := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > n
}

// jsonTypeName names the JSON type of a generic value, for messages.
func jsonTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
