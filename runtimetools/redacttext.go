package runtimetools

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file finds credentials inside free text: log messages, string
// values, errors, health check errors, expvar strings, command-line
// arguments, pprof labels. The patterns, in the order they run:
//
//   - URL user information: the password of "scheme://user:password@host".
//   - Authorization schemes: the credential after "Basic", "Bearer",
//     "Token", "Digest" or "Negotiate" and a space ("Authorization: Basic
//     dXNlcjpw", "bearer eyJ...").
//   - JSON Web Tokens: "eyJ" followed by base64url and at least one dot.
//   - Assignments: the value after "name=" or "name:" (also "name = ",
//     "\"name\": \"...\"", a query parameter "?access_token=...&") when
//     name is secret by the key rules (DefaultSecretKeys): "password=x",
//     "api_key=x", "sig=x", "{\"token\":\"x\"}", "Cookie: x".
//   - Token shapes: a run of letters, digits, '_', '-', '+' and '/' of 18
//     or more letters and digits that switches between letters and digits
//     at least four times (random base64, hex digests, API keys, UUIDs), or
//     of 32 or more with upper case, lower case and digits; and runs that
//     start with a known credential prefix (AKIA, ghp_, github_pat_,
//     glpat-, xoxb-, sk_live_, sk-, AIza, npm_...).
//
// Identifiers and paths (net/http.(*conn).serve, /srv/app/main.go:42),
// numbers, times and words are left alone; a hex digest, a UUID or a
// module pseudo-version in a log message is redacted: where the patterns
// cannot be sure, the value is redacted rather than shown.

// redactText redacts every credential the patterns above find in t. It
// returns t itself, without allocating, when there is none.
func (s *secrets) redactText(t string) string { return s.redactTextDepth(t, 0) }

// maxDecodeDepth bounds how many layers of encoding redactText decodes;
// text still encoded below them is redacted whole.
const maxDecodeDepth = 4

// redactTextDepth runs the patterns on t, then on t decoded (percent-
// encoding, JSON string escapes), depth layers of encoding already
// decoded: when the decoded text holds a credential the patterns missed
// in t, the decoded text, redacted, is the answer.
func (s *secrets) redactTextDepth(t string, depth int) string {
	if len(t) < 4 {
		return t
	}
	r := redactURLPasswords(t)
	r = redactSchemes(r)
	r = redactJWTs(r)
	r = s.redactAssignments(r)
	r = redactTokens(r)
	for _, decode := range [...]func(string) (string, bool){percentDecode, unescapeJSON} {
		// Decoded as it was: a pattern that matched the encoded text may
		// have taken an escape with the value ("password:\n  x").
		d, ok := decode(t)
		if !ok {
			continue
		}
		if depth >= maxDecodeDepth {
			return Redacted // where unsure, redact
		}
		if rd := s.redactTextDepth(d, depth+1); rd != d {
			return rd
		}
	}
	return r
}

// percentDecode decodes the %XX escapes of t (URL percent-encoding, in
// paths, queries and form values); false when there is none.
func percentDecode(t string) (string, bool) {
	i := strings.IndexByte(t, '%')
	if i < 0 {
		return t, false
	}
	var b []byte
	for ; i < len(t); i++ {
		c := t[i]
		if c == '%' && i+2 < len(t) && isHex(t[i+1]) && isHex(t[i+2]) {
			if b == nil {
				b = append(make([]byte, 0, len(t)), t[:i]...)
			}
			b = append(b, unhex(t[i+1])<<4|unhex(t[i+2]))
			i += 2
			continue
		}
		if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return t, false
	}
	return string(b), true
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// unescapeJSON decodes the JSON string escapes of t (\", \\, \n,
// \u0041...: a JSON document quoted inside a JSON string, a log line
// that holds JSON text); false when there is none. Other backslashes (a
// Windows path) stay as they are.
func unescapeJSON(t string) (string, bool) {
	i := strings.IndexByte(t, '\\')
	if i < 0 {
		return t, false
	}
	var b []byte
	for ; i < len(t); i++ {
		c := t[i]
		if c != '\\' || i+1 == len(t) {
			if b != nil {
				b = append(b, c)
			}
			continue
		}
		var r []byte
		n := 2
		switch e := t[i+1]; e {
		case '"', '\\', '/':
			r = []byte{e}
		case 'n':
			r = []byte{'\n'}
		case 'r':
			r = []byte{'\r'}
		case 't':
			r = []byte{'\t'}
		case 'b':
			r = []byte{'\b'}
		case 'f':
			r = []byte{'\f'}
		case 'u':
			if v, err := strconv.ParseUint(t[i+2:min(i+6, len(t))], 16, 16); err == nil && i+6 <= len(t) {
				r, n = utf8.AppendRune(nil, rune(v)), 6
			}
		}
		if r == nil {
			if b != nil {
				b = append(b, c)
			}
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, len(t)), t[:i]...)
		}
		b = append(b, r...)
		i += n - 1
	}
	if b == nil {
		return t, false
	}
	return string(b), true
}

// edits builds a copy of src with spans replaced by Redacted, allocating
// only at the first replacement.
type edits struct {
	src  string
	b    strings.Builder
	done int // src[:done] is in b
	n    int // replacements
}

// redact replaces src[from:to], unless it overlaps what is already done
// or is Redacted already.
func (e *edits) redact(from, to int) {
	if from < e.done || to <= from || e.src[from:to] == Redacted {
		return
	}
	e.b.WriteString(e.src[e.done:from])
	e.b.WriteString(Redacted)
	e.done = to
	e.n++
}

func (e *edits) result() string {
	if e.n == 0 {
		return e.src
	}
	e.b.WriteString(e.src[e.done:])
	return e.b.String()
}

// authSchemes are the HTTP authorization schemes whose credential follows
// them after a space.
var authSchemes = []string{"basic", "bearer", "token", "digest", "negotiate"}

// isCredChar reports whether c may be part of a credential after a
// scheme: base64, base64url and token68 characters.
func isCredChar(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0
}

// redactSchemes redacts the credential after an authorization scheme.
func redactSchemes(t string) string {
	if strings.IndexByte(t, ' ') < 0 {
		return t
	}
	e := edits{src: t}
	for i := 0; i < len(t); i++ {
		if !isLetter(t[i]) || (i > 0 && isLetter(t[i-1])) {
			continue
		}
		for _, sc := range authSchemes {
			end := i + len(sc)
			if end >= len(t) || !hasPrefixFold(t[i:], sc) || (t[end] != ' ' && t[end] != '\t') {
				continue
			}
			v := end
			for v < len(t) && (t[v] == ' ' || t[v] == '\t') {
				v++
			}
			w := v
			for w < len(t) && isCredChar(t[w]) {
				w++
			}
			e.redact(v, w)
			i = w
			break
		}
	}
	return e.result()
}

// redactJWTs redacts JSON Web Tokens (and other base64url JSON objects
// joined by dots).
func redactJWTs(t string) string {
	if !strings.Contains(t, "eyJ") {
		return t
	}
	e := edits{src: t}
	for i := 0; i+3 <= len(t); {
		j := strings.Index(t[i:], "eyJ")
		if j < 0 {
			break
		}
		start := i + j
		end := start
		dots := 0
		for end < len(t) && (isLetter(t[end]) || '0' <= t[end] && t[end] <= '9' || t[end] == '-' || t[end] == '_' || t[end] == '.') {
			if t[end] == '.' {
				dots++
			}
			end++
		}
		if dots > 0 && end-start >= 16 {
			e.redact(start, end)
		}
		i = end
		if end == start {
			i++
		}
	}
	return e.result()
}

// isKeyChar reports whether c may be part of the name of an assignment.
func isKeyChar(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// isValueEnd reports whether c ends an unquoted value.
func isValueEnd(c byte) bool {
	return c <= ' ' || strings.IndexByte("&;,\"')]}><#", c) >= 0
}

// redactAssignments redacts the values of "name=value" and "name: value"
// whose name is secret.
func (s *secrets) redactAssignments(t string) string {
	if !strings.ContainsAny(t, "=:") {
		return t
	}
	e := edits{src: t}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '=' && c != ':' {
			continue
		}
		j := i
		for j > 0 && i-j < 2 && (t[j-1] == ' ' || t[j-1] == '\t') {
			j--
		}
		if j > 0 && (t[j-1] == '"' || t[j-1] == '\'') {
			j--
		}
		k := j
		for k > 0 && isKeyChar(t[k-1]) {
			k--
		}
		if k == j || !s.match(t[k:j]) {
			continue
		}
		if from, to, ok := nextLineValue(t, k, i+1); ok {
			// "password:\n  x" (YAML), "password=\nx" (INI, .env).
			e.redact(from, to)
			i = max(i, to-1)
			continue
		}
		v := i + 1
		for v < len(t) && v-i <= 2 && (t[v] == ' ' || t[v] == '\t') {
			v++
		}
		if v >= len(t) || t[v] == '=' {
			continue
		}
		if strings.HasPrefix(t[v:], Redacted) {
			i = v + len(Redacted) - 1
			continue
		}
		from, to := v, v
		switch t[v] {
		case '"', '\'':
			q := t[v]
			from = v + 1
			to = from
			for to < len(t) && t[to] != q {
				if t[to] == '\\' {
					to++
				}
				to++
			}
			to = min(to, len(t))
		case '[', '{':
			from = v + 1
			to = closing(t, v)
		default:
			for to < len(t) && !isValueEnd(t[to]) {
				to++
			}
			if isScheme(t[from:to]) {
				// "Authorization: Bearer x": the credential too.
				for to < len(t) && (t[to] == ' ' || t[to] == '\t') {
					to++
				}
				if strings.HasPrefix(t[to:], Redacted) {
					to += len(Redacted)
				}
				for to < len(t) && !isValueEnd(t[to]) {
					to++
				}
			}
		}
		e.redact(from, to)
		if to > i {
			i = to - 1
		}
	}
	return e.result()
}

// nextLineValue finds the value of an assignment whose name starts at k
// and whose '=' or ':' ends just before v, when nothing but blanks follow
// it on its line: the lines below indented deeper than the name's (a YAML
// block), or else the next line, unless that one starts an assignment
// or a section of its own ("host=db", "[db]"). It reports false when the
// assignment's line holds a value.
func nextLineValue(t string, k, v int) (from, to int, ok bool) {
	for v < len(t) && (t[v] == ' ' || t[v] == '\t') {
		v++
	}
	if v < len(t) && t[v] == '\r' {
		v++
	}
	if v >= len(t) || t[v] != '\n' {
		return 0, 0, false
	}
	indent := lineIndent(t, strings.LastIndexByte(t[:k], '\n')+1)
	// The first line below that holds anything.
	line := v + 1
	for line < len(t) {
		end := lineEnd(t, line)
		if strings.TrimSpace(t[line:end]) != "" {
			break
		}
		line = end + 1
	}
	if line >= len(t) {
		return 0, 0, false
	}
	first := line + lineIndent(t, line)
	if lineIndent(t, line) <= indent {
		end := lineEnd(t, line)
		if c := t[first]; c == '[' || startsAssignment(t[first:end]) {
			return 0, 0, false
		}
		return first, len(strings.TrimRight(t[:end], "\r \t")), true
	}
	// A block: every line below indented deeper, blank lines included.
	to = lineEnd(t, line)
	for next := to + 1; next < len(t); {
		end := lineEnd(t, next)
		if strings.TrimSpace(t[next:end]) != "" && lineIndent(t, next) <= indent {
			break
		}
		to, next = end, end+1
	}
	for to > first && (t[to-1] == '\r' || t[to-1] == ' ' || t[to-1] == '\t' || t[to-1] == '\n') {
		to--
	}
	return first, to, true
}

// lineIndent counts the blanks that start the line at i.
func lineIndent(t string, i int) int {
	n := 0
	for i+n < len(t) && (t[i+n] == ' ' || t[i+n] == '\t') {
		n++
	}
	return n
}

// lineEnd returns the index of the line break ending the line at i, or
// len(t).
func lineEnd(t string, i int) int {
	if j := strings.IndexByte(t[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(t)
}

// startsAssignment reports whether line starts with a name and '=' or ':'.
func startsAssignment(line string) bool {
	n := 0
	for n < len(line) && isKeyChar(line[n]) {
		n++
	}
	rest := strings.TrimLeft(line[n:], " \t")
	return n > 0 && rest != "" && (rest[0] == '=' || rest[0] == ':')
}

// isScheme reports whether w is an authorization scheme.
func isScheme(w string) bool {
	for _, sc := range authSchemes {
		if len(w) == len(sc) && hasPrefixFold(w, sc) {
			return true
		}
	}
	return false
}

// closing returns the index of the bracket that closes the one at i, or
// len(t).
func closing(t string, i int) int {
	open, cl := t[i], byte(']')
	if open == '{' {
		cl = '}'
	}
	depth := 0
	for j := i; j < len(t); j++ {
		switch t[j] {
		case open:
			depth++
		case cl:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(t)
}

// isTokenChar reports whether c may be part of a token shape.
func isTokenChar(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '+' || c == '/'
}

// credentialPrefixes start credentials of well-known services.
var credentialPrefixes = []string{
	"AKIA", "ASIA", "AIza", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
	"xoxb-", "xoxp-", "xoxa-", "xoxs-", "xapp-", "sk_live_", "sk_test_", "rk_live_", "pk_live_",
	"sk-", "npm_", "pypi-", "hf_", "dop_v1_",
}

// redactTokens redacts runs shaped like credentials.
func redactTokens(t string) string {
	e := edits{src: t}
	for i := 0; i < len(t); {
		if !isTokenChar(t[i]) {
			i++
			continue
		}
		j := i
		for j < len(t) && isTokenChar(t[j]) {
			j++
		}
		if j-i >= 12 && looksLikeToken(t[i:j]) {
			e.redact(i, j)
		}
		i = j
	}
	return e.result()
}

// looksLikeToken reports whether a run of token characters is shaped
// like a credential.
func looksLikeToken(r string) bool {
	for _, p := range credentialPrefixes {
		if strings.HasPrefix(r, p) && len(r)-len(p) >= 8 {
			return true
		}
	}
	var alnum, switches int
	var upper, lower, digit bool
	prev := byte(0) // 'a' letter, '0' digit
	for i := 0; i < len(r); i++ {
		c := r[i]
		var class byte
		switch {
		case '0' <= c && c <= '9':
			class, digit = '0', true
		case isUpper(c):
			class, upper = 'a', true
		case isLowerC(c):
			class, lower = 'a', true
		default:
			continue
		}
		alnum++
		if prev != 0 && class != prev {
			switches++
		}
		prev = class
	}
	switch {
	case alnum >= 18 && switches >= 4:
		return true
	case alnum >= 32 && upper && lower && digit:
		return true
	}
	return false
}
