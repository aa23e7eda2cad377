package runtimetools

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
)

// Defaults of LogRingOptions.
const (
	DefaultMaxRecords = 1000
	DefaultMaxBytes   = 1 << 20
	// MaxRecordBytes bounds one stored record; longer records are cut and
	// marked truncated.
	MaxRecordBytes = 16 << 10
	minBytes       = 4 << 10
	// DefaultMaxSevereRecords is the default of
	// LogRingOptions.MaxSevereRecords.
	DefaultMaxSevereRecords = 250
)

// LogRingOptions configure a LogRing. The zero value is usable.
type LogRingOptions struct {
	// MaxRecords bounds the records kept. Zero means DefaultMaxRecords;
	// negative is an error.
	MaxRecords int
	// MaxBytes bounds the bytes the kept records take; the oldest records
	// make room for new ones. Zero means DefaultMaxBytes; below 4096 is an
	// error.
	MaxBytes int
	// SecretKeys are the words that make an attribute's key secret: its
	// value is replaced by Redacted before the record is stored (the
	// wrapped handler still gets the record as it was logged). A key is
	// secret when it contains one of the words, ignoring case (a word of
	// three letters or fewer must start or end one of the key's words; see
	// DefaultSecretKeys). The words also find assignments in text
	// ("password=x"). Nil means DefaultSecretKeys; to add words, append to
	// DefaultSecretKeys().
	SecretKeys []string
	// MaxSevereRecords bounds the warnings and errors kept: they have a
	// ring of their own, of MaxSevereRecords records and a quarter of
	// MaxBytes (at least 4096), so that a flood of info records cannot
	// evict them. Zero means DefaultMaxSevereRecords; negative is an
	// error.
	MaxSevereRecords int
	// Level is the least level kept. Nil keeps what the wrapped handler
	// is enabled for (or Info and above when there is none).
	Level slog.Leveler
}

// LogRing is a slog.Handler that keeps the recent records it handles in
// a ring bounded by count and bytes, for runtime_logs, and passes every
// record on to the handler it wraps, unchanged. Install it around the
// host's handler:
//
//	logs, err := runtimetools.NewLogRing(slog.NewJSONHandler(os.Stderr, nil), nil)
//	...
//	slog.SetDefault(slog.New(logs))
//	runtimetools.Register(ts, &runtimetools.Options{Logs: logs})
//
// Records are encoded into a preallocated buffer: storing one allocates
// nothing for attributes of the basic kinds (strings, numbers, booleans,
// durations, times) and errors; other values are formatted with fmt.
// Values of secret keys (see LogRingOptions.SecretKeys) are never stored,
// in groups (slog.Group, and Logger.WithGroup alike: everything logged
// under a group of a secret name is that name, redacted) and inside logged
// maps and structs included; messages, string
// values and the text of other values are stored with the credentials the
// package's patterns find redacted (see the package documentation). A
// secret of no known shape in a message is stored: do not log secrets in
// messages.
type LogRing struct {
	ring   *logRing
	severe *logRing // warnings and errors
	next   slog.Handler
	pre    []byte // encoded attributes and group openings of WithAttrs and WithGroup
	// sealed is the name of a group opened with WithGroup whose name is
	// secret: like a slog.Group of that name, whatever is logged in it is
	// stored as that one key, redacted (sealedAttrs: WithAttrs put
	// something in it).
	sealed      string
	sealedAttrs bool
}

// NewLogRing returns a LogRing that wraps next. next may be nil: the
// records are then only kept. opts may be nil. It fails for bounds that
// mean nothing.
func NewLogRing(next slog.Handler, opts *LogRingOptions) (*LogRing, error) {
	var o LogRingOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case o.MaxRecords < 0:
		return nil, fmt.Errorf("runtimetools: LogRingOptions.MaxRecords is %d; want 0 (the default) or more", o.MaxRecords)
	case o.MaxRecords == 0:
		o.MaxRecords = DefaultMaxRecords
	}
	switch {
	case o.MaxBytes == 0:
		o.MaxBytes = DefaultMaxBytes
	case o.MaxBytes < minBytes:
		return nil, fmt.Errorf("runtimetools: LogRingOptions.MaxBytes is %d; want 0 (the default) or at least %d", o.MaxBytes, minBytes)
	}
	switch {
	case o.MaxSevereRecords < 0:
		return nil, fmt.Errorf("runtimetools: LogRingOptions.MaxSevereRecords is %d; want 0 (the default) or more", o.MaxSevereRecords)
	case o.MaxSevereRecords == 0:
		o.MaxSevereRecords = DefaultMaxSevereRecords
	}
	level := o.Level
	if level == nil && next == nil {
		level = slog.LevelInfo
	}
	sec := newSecrets(o.SecretKeys)
	r := newRing(o.MaxRecords, o.MaxBytes, sec, level)
	severe := newRing(o.MaxSevereRecords, max(o.MaxBytes/4, minBytes), sec, level)
	return &LogRing{ring: r, severe: severe, next: next}, nil
}

// newRing returns an empty ring of maxRecords records and maxBytes bytes.
func newRing(maxRecords, maxBytes int, sec *secrets, level slog.Leveler) *logRing {
	r := &logRing{
		buf:       make([]byte, maxBytes),
		idx:       make([]span, maxRecords),
		maxRecord: min(MaxRecordBytes, maxBytes/4),
		secrets:   sec,
		level:     level,
	}
	r.scratch.New = func() any {
		b := make([]byte, 0, r.maxRecord)
		return &b
	}
	return r
}

// Enabled reports whether the wrapped handler is enabled for level, or
// the level is kept (LogRingOptions.Level).
func (h *LogRing) Enabled(ctx context.Context, level slog.Level) bool {
	if h.ring.level != nil && level >= h.ring.level.Level() {
		return true
	}
	return h.next != nil && h.next.Enabled(ctx, level)
}

// Handle keeps r, with secret values redacted, and passes it on to the
// wrapped handler if that is enabled for its level.
func (h *LogRing) Handle(ctx context.Context, r slog.Record) error {
	if h.ring.level == nil || r.Level >= h.ring.level.Level() {
		h.store(r)
	}
	if h.next == nil || (h.ring.level != nil && !h.next.Enabled(ctx, r.Level)) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns a handler whose records carry attrs.
func (h *LogRing) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	h2 := *h
	if h.sealed != "" {
		h2.sealedAttrs = h.sealedAttrs || slices.ContainsFunc(attrs, shown)
	} else {
		e := encoder{b: slices.Clip(h.pre), max: h.ring.maxRecord, secrets: h.ring.secrets}
		for _, a := range attrs {
			e.attr(a)
		}
		h2.pre = e.b
	}
	if h.next != nil {
		h2.next = h.next.WithAttrs(attrs)
	}
	return &h2
}

// WithGroup returns a handler whose records' attributes are in group name.
func (h *LogRing) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	switch {
	case h.sealed != "": // a group inside a secret one: redacted with it
	case h.ring.secrets.match(name):
		h2.sealed = name
	default:
		e := encoder{b: slices.Clip(h.pre), max: h.ring.maxRecord, secrets: h.ring.secrets}
		e.openGroup(name)
		h2.pre = e.b
	}
	if h.next != nil {
		h2.next = h.next.WithGroup(name)
	}
	return &h2
}

// shown reports whether slog's handlers show a, as the encoder does:
// not the empty Attr, nor a group holding nothing shown.
func shown(a slog.Attr) bool {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		return slices.ContainsFunc(v.Group(), shown)
	case slog.KindAny:
		return a.Key != "" || v.Any() != nil
	}
	return true
}

// store encodes r into a scratch buffer, outside the lock (LogValuer
// methods run there), and copies it into the ring.
func (h *LogRing) store(r slog.Record) {
	ring := h.ring
	if r.Level >= slog.LevelWarn {
		ring = h.severe
	}
	bp := ring.scratch.Get().(*[]byte)
	e := encoder{b: (*bp)[:0], max: ring.maxRecord, secrets: ring.secrets}
	e.header(r.Time, r.Level, r.PC, r.Message)
	e.raw(h.pre)
	if h.sealed != "" {
		in := h.sealedAttrs
		r.Attrs(func(a slog.Attr) bool {
			in = in || shown(a)
			return !in
		})
		if in {
			e.key(tagRedacted, h.sealed, 0)
		}
	} else {
		r.Attrs(func(a slog.Attr) bool {
			e.attr(a)
			return !e.full
		})
	}
	e.finish()
	ring.put(e.b)
	*bp = e.b
	ring.scratch.Put(bp)
}

// span locates one record in the ring's buffer.
type span struct{ off, n int }

// logRing holds encoded records in a circular byte buffer; a record never
// wraps around its end.
type logRing struct {
	maxRecord int
	secrets   *secrets
	level     slog.Leveler
	scratch   sync.Pool // *[]byte of capacity maxRecord

	mu      sync.Mutex
	buf     []byte
	idx     []span // circular: idx[first] is the oldest of n records
	first   int
	n       int
	w       int    // where the next record goes
	stored  uint64 // records stored since the start
	evicted uint64 // records dropped to make room
}

// put copies an encoded record into the ring, dropping the oldest records
// to make room.
func (r *logRing) put(rec []byte) {
	size := len(rec)
	r.mu.Lock()
	if r.n == len(r.idx) {
		r.evict()
	}
	if r.w+size > len(r.buf) {
		// The records past w are the oldest; drop them and start again at
		// the beginning.
		for r.n > 0 && r.idx[r.first].off >= r.w {
			r.evict()
		}
		r.w = 0
	}
	for r.n > 0 && r.idx[r.first].off >= r.w && r.idx[r.first].off < r.w+size {
		r.evict()
	}
	copy(r.buf[r.w:], rec)
	r.idx[(r.first+r.n)%len(r.idx)] = span{off: r.w, n: size}
	r.n++
	r.w += size
	r.stored++
	r.mu.Unlock()
}

func (r *logRing) evict() {
	r.first = (r.first + 1) % len(r.idx)
	r.n--
	r.evicted++
}

// ringStats describes the ring's use.
type ringStats struct {
	Records    int    `json:"records" jsonschema:"records held"`
	Bytes      int    `json:"bytes" jsonschema:"bytes they take"`
	MaxRecords int    `json:"maxRecords"`
	MaxBytes   int    `json:"maxBytes"`
	Stored     uint64 `json:"stored" jsonschema:"records stored since the process started"`
	Evicted    uint64 `json:"evicted" jsonschema:"older records dropped to make room"`
	// Severe and SevereEvicted describe the ring of warnings and errors,
	// which the others cannot evict; the figures above count both rings.
	Severe        int    `json:"severe" jsonschema:"warnings and errors held, in their own ring"`
	SevereEvicted uint64 `json:"severeEvicted" jsonschema:"warnings and errors dropped to make room for newer ones"`
}

// snapshot copies the records out, newest first.
func (r *logRing) snapshot() ([][]byte, ringStats) {
	r.mu.Lock()
	defer r.mu.Unlock()
	total := 0
	for i := 0; i < r.n; i++ {
		total += r.idx[(r.first+i)%len(r.idx)].n
	}
	data := make([]byte, 0, total)
	recs := make([][]byte, 0, r.n)
	for i := r.n - 1; i >= 0; i-- {
		s := r.idx[(r.first+i)%len(r.idx)]
		start := len(data)
		data = append(data, r.buf[s.off:s.off+s.n]...)
		recs = append(recs, data[start:len(data):len(data)])
	}
	return recs, ringStats{Records: r.n, Bytes: total, MaxRecords: len(r.idx), MaxBytes: len(r.buf),
		Stored: r.stored, Evicted: r.evicted}
}
