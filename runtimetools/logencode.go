package runtimetools

import (
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// A stored record is
//
//	time   8 bytes, Unix nanoseconds (math.MinInt64: zero time)
//	pc     8 bytes
//	flags  1 byte (flagTruncated)
//	level  varint
//	msg    uvarint length, bytes
//
// followed by attributes, each a tag byte, a key (uvarint length, bytes)
// and a value: tagString and tagAny a uvarint length and bytes, tagInt,
// tagUint, tagFloat, tagDuration and tagTime 8 bytes, tagBool 1 byte,
// tagRedacted nothing. tagGroup opens a group that tagEnd closes; groups
// still open at the end of the record close there.
const (
	tagString   = 's'
	tagInt      = 'i'
	tagUint     = 'u'
	tagFloat    = 'f'
	tagBool     = 'b'
	tagDuration = 'd'
	tagTime     = 't'
	tagAny      = 'a'
	tagRedacted = 'x'
	tagGroup    = 'g'
	tagEnd      = 'e'

	flagTruncated = 1
	headerFixed   = 17
	zeroTime      = math.MinInt64
)

// encoder appends to b without growing it past max bytes; what does not
// fit is left out and the record marked truncated.
type encoder struct {
	b       []byte
	max     int
	secrets *secrets
	full    bool
}

func (e *encoder) room(n int) bool {
	if len(e.b)+n > e.max {
		e.full = true
		return false
	}
	return true
}

func (e *encoder) header(t time.Time, level slog.Level, pc uintptr, msg string) {
	ts := int64(zeroTime)
	if !t.IsZero() {
		ts = t.UnixNano()
	}
	e.b = binary.LittleEndian.AppendUint64(e.b, uint64(ts))
	e.b = binary.LittleEndian.AppendUint64(e.b, uint64(pc))
	e.b = append(e.b, 0)
	e.b = binary.AppendVarint(e.b, int64(level))
	msg = e.secrets.redactText(msg)
	room := e.max - len(e.b) - binary.MaxVarintLen64
	if len(msg) > room {
		msg = cutUTF8(msg, room)
		e.full = true
	}
	e.b = binary.AppendUvarint(e.b, uint64(len(msg)))
	e.b = append(e.b, msg...)
}

// finish records truncation in the header.
func (e *encoder) finish() {
	if e.full && len(e.b) >= headerFixed {
		e.b[16] |= flagTruncated
	}
}

// raw appends already encoded attributes, all or none.
func (e *encoder) raw(b []byte) {
	if len(b) > 0 && e.room(len(b)) {
		e.b = append(e.b, b...)
	}
}

// key appends a tag and a key, if they and n more bytes fit.
func (e *encoder) key(tag byte, key string, n int) bool {
	if !e.room(1 + binary.MaxVarintLen64 + len(key) + n) {
		return false
	}
	e.b = append(e.b, tag)
	e.b = binary.AppendUvarint(e.b, uint64(len(key)))
	e.b = append(e.b, key...)
	return true
}

func (e *encoder) openGroup(name string) { e.key(tagGroup, name, 1) }

func (e *encoder) str(tag byte, key, s string) {
	if e.full {
		return
	}
	// Cut a long value to what is left rather than drop it.
	left := e.max - len(e.b) - 1 - 2*binary.MaxVarintLen64 - len(key)
	if left < 0 {
		e.full = true
		return
	}
	if len(s) > left {
		s = cutUTF8(s, left)
		e.full = true
	}
	e.b = append(e.b, tag)
	e.b = binary.AppendUvarint(e.b, uint64(len(key)))
	e.b = append(e.b, key...)
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) fixed(tag byte, key string, v uint64) {
	if e.key(tag, key, 8) {
		e.b = binary.LittleEndian.AppendUint64(e.b, v)
	}
}

// attr appends one attribute, resolved, with secret values redacted (by
// key, and inside values as redactText and anyText do) and empty attributes and groups left out, as slog's
// handlers do.
func (e *encoder) attr(a slog.Attr) {
	if e.full {
		return
	}
	v := a.Value
	kind := v.Kind()
	if kind == slog.KindLogValuer {
		v = v.Resolve()
		kind = v.Kind()
	}
	if kind == slog.KindGroup {
		attrs := v.Group()
		switch {
		case len(attrs) == 0:
		case a.Key != "" && e.secrets.match(a.Key):
			e.key(tagRedacted, a.Key, 0)
		case a.Key == "":
			for _, g := range attrs {
				e.attr(g)
			}
		default:
			if e.key(tagGroup, a.Key, 1) {
				for _, g := range attrs {
					e.attr(g)
				}
				if !e.full {
					e.b = append(e.b, tagEnd)
				}
			}
		}
		return
	}
	if a.Key == "" && kind == slog.KindAny && v.Any() == nil {
		return // the empty Attr
	}
	if e.secrets.match(a.Key) {
		e.key(tagRedacted, a.Key, 0)
		return
	}
	switch kind {
	case slog.KindString:
		e.str(tagString, a.Key, e.secrets.redactText(v.String()))
	case slog.KindInt64:
		e.fixed(tagInt, a.Key, uint64(v.Int64()))
	case slog.KindUint64:
		e.fixed(tagUint, a.Key, v.Uint64())
	case slog.KindFloat64:
		e.fixed(tagFloat, a.Key, math.Float64bits(v.Float64()))
	case slog.KindDuration:
		e.fixed(tagDuration, a.Key, uint64(v.Duration()))
	case slog.KindTime:
		ts := int64(zeroTime)
		if t := v.Time(); !t.IsZero() {
			ts = t.UnixNano()
		}
		e.fixed(tagTime, a.Key, uint64(ts))
	case slog.KindBool:
		if e.key(tagBool, a.Key, 1) {
			b := byte(0)
			if v.Bool() {
				b = 1
			}
			e.b = append(e.b, b)
		}
	default:
		e.str(tagAny, a.Key, e.secrets.anyText(v.Any()))
	}
}

// cutUTF8 cuts s to at most n bytes on a rune boundary.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	return boundedjson.Truncate(s, n)
}

// storedRecord is a decoded record.
type storedRecord struct {
	time      time.Time // zero when the record had none
	level     slog.Level
	pc        uintptr
	truncated bool
	msg       string
	attrs     map[string]any // nested maps for groups
	flat      []flatAttr     // every attribute with its dotted path, for filters
}

type flatAttr struct{ path, text string }

// decodeHeader reads the fixed part of a record.
func decodeHeader(b []byte) (t time.Time, level slog.Level, ok bool) {
	if len(b) < headerFixed {
		return time.Time{}, 0, false
	}
	if ts := int64(binary.LittleEndian.Uint64(b)); ts != zeroTime {
		t = time.Unix(0, ts).UTC()
	}
	lv, n := binary.Varint(b[headerFixed:])
	if n <= 0 {
		return t, 0, false
	}
	return t, slog.Level(lv), true
}

// decodeRecord reads a whole record.
func decodeRecord(b []byte) (*storedRecord, bool) {
	t, level, ok := decodeHeader(b)
	if !ok {
		return nil, false
	}
	r := &storedRecord{time: t, level: level, pc: uintptr(binary.LittleEndian.Uint64(b[8:])),
		truncated: b[16]&flagTruncated != 0, attrs: map[string]any{}}
	d := decoder{b: b[headerFixed:]}
	d.varint()
	r.msg = d.str()
	type frame struct {
		m    map[string]any
		path string
	}
	stack := []frame{{m: r.attrs}}
	for !d.bad && len(d.b) > 0 {
		tag := d.byte()
		if tag == tagEnd {
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		key := d.str()
		top := stack[len(stack)-1]
		path := key
		if top.path != "" {
			path = top.path + "." + key
		}
		var v any
		switch tag {
		case tagGroup:
			m := map[string]any{}
			put(top.m, key, m)
			stack = append(stack, frame{m: m, path: path})
			continue
		case tagString, tagAny:
			v = d.str()
		case tagRedacted:
			v = Redacted
		case tagInt:
			v = json64(strconv.FormatInt(int64(d.u64()), 10))
		case tagUint:
			v = json64(strconv.FormatUint(d.u64(), 10))
		case tagFloat:
			f := math.Float64frombits(d.u64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				v = strconv.FormatFloat(f, 'g', -1, 64)
			} else {
				v = f
			}
		case tagDuration:
			v = time.Duration(d.u64()).String()
		case tagTime:
			if ts := int64(d.u64()); ts != zeroTime {
				v = time.Unix(0, ts).UTC().Format(time.RFC3339Nano)
			} else {
				v = time.Time{}.Format(time.RFC3339Nano)
			}
		case tagBool:
			v = d.byte() == 1
		default:
			d.bad = true
			continue
		}
		if d.bad {
			break
		}
		put(top.m, key, v)
		r.flat = append(r.flat, flatAttr{path: path, text: valueText(v)})
	}
	pruneEmpty(r.attrs)
	return r, !d.bad
}

// json64 is an integer kept exact in JSON.
type json64 string

// MarshalJSON writes the number as it is.
func (n json64) MarshalJSON() ([]byte, error) { return []byte(n), nil }

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json64:
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// put sets m[key], keeping earlier values of a repeated key under
// "key#2", "key#3"...
func put(m map[string]any, key string, v any) {
	if _, dup := m[key]; !dup {
		m[key] = v
		return
	}
	for i := 2; ; i++ {
		k := key + "#" + strconv.Itoa(i)
		if _, dup := m[k]; !dup {
			m[k] = v
			return
		}
	}
}

// pruneEmpty removes groups that hold nothing.
func pruneEmpty(m map[string]any) bool {
	for k, v := range m {
		if g, ok := v.(map[string]any); ok && !pruneEmpty(g) {
			delete(m, k)
		}
	}
	return len(m) > 0
}

type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	l, n := binary.Uvarint(d.b)
	if n <= 0 || uint64(len(d.b)-n) < l {
		d.bad = true
		return ""
	}
	s := string(d.b[n : n+int(l)])
	d.b = d.b[n+int(l):]
	return s
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}
