package boundedjson

import (
	"errors"
	"strconv"
)

// Limits bounds what the parser accepts. Zero fields take the defaults of
// DefaultLimits.
type Limits struct {
	// MaxDepth is the deepest nesting of objects and arrays (the top-level
	// value is at depth 1).
	MaxDepth int
	// MaxString is the longest string, in bytes after unescaping, for
	// values and member names alike.
	MaxString int
	// MaxMembers is the most members an object, or elements an array, may
	// have.
	MaxMembers int
	// MaxValues is the most values (objects, arrays, strings, numbers,
	// literals) the whole document may hold: what a document costs parsed
	// grows with its values (some 40 bytes each), not with its bytes.
	MaxValues int
}

// DefaultLimits returns depth 32, strings of 65 536 bytes, 256 members and
// 131 072 values.
func DefaultLimits() Limits {
	return Limits{MaxDepth: 32, MaxString: 65536, MaxMembers: 256, MaxValues: 1 << 17}
}

// OrDefault returns l with its zero (or negative) fields set to the
// defaults.
func (l Limits) OrDefault() Limits {
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
	if l.MaxValues <= 0 {
		l.MaxValues = d.MaxValues
	}
	return l
}

// MaxNumberLen bounds the text of one number.
const MaxNumberLen = 1024

// Errors a SyntaxError wraps, for errors.Is.
var (
	// ErrDuplicate: an object repeats a member name. The document is valid
	// JSON, but ambiguous.
	ErrDuplicate = errors.New("boundedjson: duplicate member name")
	// ErrBound: the document breaks one of the Limits, or MaxNumberLen.
	ErrBound = errors.New("boundedjson: bound exceeded")
)

// SyntaxError is a document the parser refused: not JSON, JSON that breaks
// a bound, or an object with a duplicate member name. Its message says
// what was wrong and where, without echoing more than a short excerpt of
// the input.
type SyntaxError struct {
	Offset int    // byte offset of the problem
	Path   string // JSON pointer to the value being parsed ("" for the top level)
	Msg    string // what is wrong
	err    error
}

// Error returns the problem and where it is.
func (e *SyntaxError) Error() string { return "json: " + e.Where() }

// Where returns the problem and where it is: the JSON pointer of the value
// being parsed ("string longer than 65 536 bytes at
// /params/arguments/query"), or the offset at the top level.
func (e *SyntaxError) Where() string {
	if e.Path == "" {
		return e.Msg + " at offset " + strconv.Itoa(e.Offset)
	}
	return e.Msg + " at " + e.Path
}

// Unwrap returns ErrDuplicate or ErrBound, or nil for other syntax errors.
func (e *SyntaxError) Unwrap() error { return e.err }
