package mcp

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"unicode/utf8"
)

// discardLogger is the default logger: it drops everything cheaply.
var discardLogger = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.Level(127)}))

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// U+2028 and U+2029 are escaped so the output is safe in JavaScript too.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSON appends v encoded with encoding/json (or verbatim when it is
// raw JSON, which the caller has checked: see appendCheckedJSON).
func appendJSON(b []byte, v any) ([]byte, error) {
	raw, err := rawJSON(v)
	if err != nil {
		return b, err
	}

	if raw == nil {
		return append(b, "null"...), nil
	}
	return append(b, raw...), nil
}

// encodeDescriptor encodes a tool as tools/list shows it.
func encodeDescriptor(c *compiled) ([]byte, error) {
	var in, out []byte
	if c.in != nil {
		in = c.in.encoded
	}
	if c.out != nil {
		out = c.out.encoded
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
	if len(info.Meta) > 0 {
		b = append(b, `,"_meta":`...)
		if b, err = appendJSON(b, info.Meta); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendResult encodes a tool result (CallToolResult) without its closing
// brace, so callers can add protocol fields.
func appendResult(b []byte, r *Result) ([]byte, error) {
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
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
		b = append(b, enc...)
	}
	b = append(b, ']')
	if r.StructuredContent != nil {
		b = append(b, `,"structuredContent":`...)
		var err error
		if b, err = appendJSON(b, r.StructuredContent); err != nil {
			return b, err
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

// appendError encodes a JSON-RPC error response. id is raw JSON ("null"
// when unknown).
func appendError(b []byte, id []byte, code int, message string, data any) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if len(id) == 0 {
		id = nullJSON
	}
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	if data != nil {
		if enc, err := json.Marshal(data); err == nil {
			b = append(b, `,"data":`...)
			b = append(b, enc...)
		}
	}
	return append(b, "}}"...)
}

var nullJSON = []byte("null")

// appendErr encodes rpc as the error response to id.
func appendErr(b []byte, id []byte, rpc *Error) []byte {
	return appendError(b, id, rpc.Code, rpc.Message, rpc.Data)
}

var errInvalidRawJSON = errors.New("mcp: raw JSON value is not valid JSON")

// appendCheckedJSON is appendJSON for values from outside the package,
// whose raw JSON must be valid or the whole message would not be.
func appendCheckedJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case json.RawMessage:
		if !json.Valid(x) {
			return b, errInvalidRawJSON
		}
	case []byte:
		if !json.Valid(x) {
			return b, errInvalidRawJSON
		}
	}
	return appendJSON(b, v)
}
