package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
)

// errOverCap stops the encoding of a result past Options.MaxResultBytes.
var errOverCap = errors.New("mcp: result over the size cap")

// overCap reports whether b, encoded from start, would pass limit with
// more bytes.
func overCap(b []byte, start, more, limit int) bool {
	return limit > 0 && len(b)-start+more > limit
}

// growCapped makes room in b for n more bytes, growing it as append does
// but, under a limit, never to more than the limit (and some slack) from
// start: a result stopped at the cap holds at most that much.
func growCapped(b []byte, start, n, limit int) []byte {
	if len(b)+n <= cap(b) {
		return b
	}
	c := max(2*cap(b), len(b)+n)
	if limit > 0 {
		c = min(c, max(start+limit+4096, len(b)+n))
	}
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}

// contentSize is at least the bytes c's encoding takes, measured without
// encoding it.
func contentSize(c *Content) int {
	n := len(c.Text) + len(c.Data)/3*4 + len(c.URI) + len(c.Name) + len(c.Title) + len(c.Description)
	if r := c.Resource; r != nil {
		n += len(r.Text) + len(r.Blob)/3*4 + len(r.URI)
	}
	return n
}

// resultSize is at least the bytes r's encoding takes, measured without
// encoding it (for the log and the message of a result over the cap).
func resultSize(r *Result) int {
	n := 0
	for i := range r.Content {
		n += contentSize(&r.Content[i])
	}
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		n += len(raw)
	}
	return n
}

// overCapResult logs a result over Options.MaxResultBytes and encodes, into
// b's storage, the isError result that replaces it. The size named is what
// was encoded before the encoding stopped, or what the result holds
// unencoded, whichever is more: the result is never encoded in full.
func (s *Server) overCapResult(ctx context.Context, b []byte, name string, res *Result) []byte {
	size := max(len(b), resultSize(res))
	s.logger.LogAttrs(ctx, slog.LevelWarn, "mcp: tool result over the size cap",
		slog.String("tool", name), slog.Int("bytes_at_least", size), slog.Int("cap", s.maxRes))
	b, _ = appendResult(b[:0], ErrorResult(fmt.Sprintf("%v: %s returned at least %d bytes, more than the server's cap of %d bytes (Options.MaxResultBytes); ask for less (narrower query, smaller page)",
		ErrResultTooLarge, name, size, s.maxRes)))
	return b
}
