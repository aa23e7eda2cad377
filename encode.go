package mcp

import (
	"encoding/json"
	"io"
	"log/slog"
	"sync"
)

// discardLogger is the default logger: it drops everything cheaply.
var discardLogger = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.Level(127)}))

// scratchBufs holds the buffers results are encoded into before their one
// exact-size copy; buffers grown past maxPooledScratch are dropped.
var scratchBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledScratch = 1 << 20

func putScratch(bp *[]byte) {
	if cap(*bp) <= maxPooledScratch {
		scratchBufs.Put(bp)
	}
}

// encodeDescriptor encodes a tool as tools/list shows it.
func encodeDescriptor(c *compiled) ([]byte, error) {
	var in, out []byte
	if c.in != nil {
		in = c.in.Encoded()
	}
	if c.out != nil {
		out = c.out.Encoded()
	}
	return encodeInfo(c.info, in, out)
}

// encodeInfo encodes a tool descriptor with its schemas already encoded
// (nil: none).
func encodeInfo(info *ToolInfo, in, out []byte) ([]byte, error) {
	b := []byte(`{"name":`)
	b = appendString(b, info.Name)
	if info.Title != "" {
		b = append(b, `,"title":`...)
		b = appendString(b, info.Title)
	}
	b = append(b, `,"description":`...)
	b = appendString(b, info.Description)
	b = append(b, `,"inputSchema":`...)
	if in != nil {
		b = append(b, in...)
	} else {
		b = append(b, anyObjectJSON...)
	}
	if out != nil {
		b = append(b, `,"outputSchema":`...)
		b = append(b, out...)
	}
	var err error
	if info.Annotations != nil {
		b = append(b, `,"annotations":`...)
		if b, err = appendJSON(b, info.Annotations); err != nil {
			return nil, err
		}
	}
	if len(info.Icons) > 0 {
		b = append(b, `,"icons":`...)
		if b, err = appendJSON(b, info.Icons); err != nil {
			return nil, err
		}
	}
	if meta := toolMeta(info); len(meta) > 0 {
		b = append(b, `,"_meta":`...)
		if b, err = appendJSON(b, meta); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendResult encodes a tool result (CallToolResult) without its closing
// brace, so callers can add protocol fields.
func appendResult(b []byte, r *Result) ([]byte, error) { return appendResultCapped(b, r, 0) }

// appendResultCapped is appendResult that stops, with errOverCap, as soon
// as the encoding would pass limit bytes (zero or negative: no limit):
// each piece is measured before it is encoded (text, raw JSON, the bytes
// of a binary block), so a result far over the cap costs at most the cap
// and one piece's encoding, never the whole result.
func appendResultCapped(b []byte, r *Result, limit int) ([]byte, error) {
	start := len(b)
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		if overCap(b, start, contentSize(&c), limit) {
			return b, errOverCap
		}
		b = growCapped(b, start, contentSize(&c)+32, limit)
		if c.Type == ContentText && c.Annotations == nil && c.Meta == nil {
			b = append(b, `{"type":"text","text":`...)
			b = appendString(b, c.Text)
			b = append(b, '}')
			continue
		}
		enc, err := c.MarshalJSON()
		if err != nil {
			return b, err
		}
		if overCap(b, start, len(enc), limit) {
			return b, errOverCap
		}
		b = append(b, enc...)
	}
	b = append(b, ']')
	if overCap(b, start, 0, limit) {
		return b, errOverCap
	}
	if r.StructuredContent != nil {
		if raw, ok := r.StructuredContent.(json.RawMessage); ok && overCap(b, start, len(raw), limit) {
			return b, errOverCap
		}
		b = append(b, `,"structuredContent":`...)
		var err error
		if b, err = appendJSON(b, r.StructuredContent); err != nil {
			return b, err
		}
		if overCap(b, start, 0, limit) {
			return b, errOverCap
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if len(r.Meta) > 0 {
		b = append(b, `,"_meta":`...)
		var err error
		if b, err = appendJSON(b, r.Meta); err != nil {
			return b, err
		}
	}
	return b, nil
}
