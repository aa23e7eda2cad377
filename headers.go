package mcp

import (
	"encoding/base64"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// headerParam is a tool parameter mirrored into an Mcp-Param-{Name} header
// (the x-mcp-header schema extension).
type headerParam struct {
	header string   // the name part of Mcp-Param-{Name}
	path   []string // the chain of properties from the schema root
	typ    string   // string, integer or boolean
}

// headerParams finds the x-mcp-header annotations of an input schema and
// checks them: non-empty HTTP tokens, unique regardless of case, on
// primitive non-number properties reachable through properties alone.
func headerParams(s *jsonschema.Schema) ([]headerParam, error) {
	var out []headerParam
	seen := map[string]bool{}
	var walk func(s *jsonschema.Schema, path []string) error
	walk = func(s *jsonschema.Schema, path []string) error {
		if s == nil {
			return nil
		}
		if raw, ok := s.Extra["x-mcp-header"]; ok {
			name, isString := raw.(string)
			where := "/" + strings.Join(path, "/")
			switch {
			case !isString || !isToken(name):
				return fmt.Errorf("x-mcp-header at %s must be a non-empty HTTP token", where)
			case len(path) == 0:
				return fmt.Errorf("x-mcp-header on the schema root")
			case seen[strings.ToLower(name)]:
				return fmt.Errorf("x-mcp-header %q appears twice", name)
			case s.Type != "string" && s.Type != "integer" && s.Type != "boolean":
				return fmt.Errorf("x-mcp-header %q at %s: type must be string, integer or boolean", name, where)
			}
			seen[strings.ToLower(name)] = true
			out = append(out, headerParam{header: name, path: append([]string(nil), path...), typ: s.Type})
		}
		for k, p := range s.Properties {
			if err := walk(p, append(path, k)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(s, nil); err != nil {
		return nil, err
	}
	return out, nil
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// duplicateHeaders refuses a request that repeats an Mcp-* header: which
// value counts would be a guess.
func duplicateHeaders(h http.Header) *Error {
	for k, vs := range h {
		if len(vs) > 1 && len(k) > 4 && strings.EqualFold(k[:4], "Mcp-") {
			return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + shorten(k) + " header given " + strconv.Itoa(len(vs)) + " times"}
		}
	}
	return nil
}

// checkHeaders applies the 2026-07-28 Streamable HTTP rule that the
// Mcp-Method and Mcp-Name headers are present and agree with the body
// (Mcp-Name: the tool of a tools/call, the task of tasks/get, tasks/update
// and tasks/cancel, the URI of resources/read).
func checkHeaders(h http.Header, m *message) *Error {
	method, err := headerValue(h, "Mcp-Method", false)
	if err != nil {
		return err
	}
	if method != m.method {
		return mismatch("Mcp-Method", method, m.method)
	}
	var name string
	switch m.method {
	case "tools/call":
		name, _ = m.params["name"].(string)
	case "tasks/get", "tasks/update", "tasks/cancel":
		// SEP-2663: the task's ID, so that intermediaries can route.
		name, _ = m.params["taskId"].(string)
	case "resources/read":
		name, _ = m.params["uri"].(string)
	default:
		return nil
	}
	got, err := headerValue(h, "Mcp-Name", true)
	if err != nil {
		return err
	}
	if got != name {
		return mismatch("Mcp-Name", got, name)
	}
	return nil
}

func mismatch(header, got, want string) *Error {
	if got == "" {
		return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: required header " + header + " is missing"}
	}
	return &Error{Code: CodeHeaderMismatch, Message: fmt.Sprintf("Header mismatch: %s header value %s does not match body value %s",
		header, quoteName(got), quoteName(want))}
}

// headerValue returns a header's value, decoding the =?base64?...?= form
// where allowed. A value with characters HTTP does not allow is an error.
func headerValue(h http.Header, name string, encoded bool) (string, *Error) {
	v := h.Get(name)
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7E {
			return "", &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + name + " header has invalid characters"}
		}
	}
	if encoded && strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		d, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
		if err != nil {
			return "", &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + name + " header is not valid base64"}
		}
		return string(d), nil
	}
	return v, nil
}

// checkParamHeaders checks, for a 2026-07-28 tools/call over HTTP, each
// Mcp-Param-{Name} header against the argument it mirrors: present exactly
// when the argument has a non-null value, and equal to it (integers
// compared numerically). It runs after the call was authorized, so that
// the answer for a tool the caller may not use reveals nothing of its
// schema.
func (s *Server) checkParamHeaders(m *message, c *compiled, req *Request) error {
	h := m.tr.header
	if !m.rev.paramHeaders() || h == nil || len(c.headers) == 0 {
		return nil
	}
	args, _ := req.c.args.(map[string]any)
	for _, p := range c.headers {
		var v any = args
		for _, k := range p.path {
			obj, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = obj[k]
		}
		name := "Mcp-Param-" + p.header
		got, err := headerValue(h, name, true)
		if err != nil {
			return err
		}
		_, present := h[http.CanonicalHeaderKey(name)]
		if v == nil {
			if present {
				return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + name + " header given but the argument is absent"}
			}
			continue
		}
		if !present {
			return mismatch(name, "", "")
		}
		if !headerMatches(got, v) {
			return mismatch(name, got, fmt.Sprint(v))
		}
	}
	return nil
}

func headerMatches(got string, v any) bool {
	switch x := v.(type) {
	case string:
		return got == x
	case bool:
		return got == strconv.FormatBool(x)
	case float64:
		f, err := strconv.ParseFloat(got, 64)
		return err == nil && !math.IsNaN(f) && f == x
	}
	return false
}
