package runtimetools

import (
	"strings"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// Redacted replaces every secret value the tools would otherwise show.
const Redacted = "[REDACTED]"

// DefaultSecretKeys returns the words that make a key secret when no
// others are configured: a key is secret when it contains one of them,
// ignoring case ("apiKey", "X-Auth-Token", "db_password" and "Set-Cookie"
// are all secret).
func DefaultSecretKeys() []string {
	return []string{"password", "passwd", "token", "secret", "authorization", "cookie", "credential", "key"}
}

// secrets matches secret keys.
type secrets struct {
	words []string // lower case, not empty
	// pairs holds a bit for the first two bytes, in lower case, of every
	// word of two bytes or more; single holds the words of one byte.
	pairs  [1 << 16 / 64]uint64
	single [256]bool
	anyOne bool
}

// defaultSecrets is the matcher of DefaultSecretKeys; it is never modified.
var defaultSecrets = newSecrets(nil)

// newSecrets returns the matcher of words, or of DefaultSecretKeys when
// words is nil.
func newSecrets(words []string) *secrets {
	if words == nil {
		words = DefaultSecretKeys()
	}
	s := &secrets{words: make([]string, 0, len(words))}
	for _, w := range words {
		if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
			s.words = append(s.words, w)
			if len(w) == 1 {
				s.single[w[0]], s.anyOne = true, true
				continue
			}
			p := uint(w[0])<<8 | uint(w[1])
			s.pairs[p/64] |= 1 << (p % 64)
		}
	}
	return s
}

// lowerASCII maps every byte to its ASCII lower case.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = toLower(byte(i))
	}
	return t
}()

// match reports whether key is secret. It does not allocate, and it costs
// a table lookup per byte of the key: it is on the path of every logged
// attribute.
func (s *secrets) match(key string) bool {
	if s.anyOne {
		for i := 0; i < len(key); i++ {
			if s.single[lowerASCII[key[i]]] {
				return true
			}
		}
	}
	if len(key) < 2 {
		return false
	}
	prev := uint(lowerASCII[key[0]])
	for i := 1; i < len(key); i++ {
		c := uint(lowerASCII[key[i]])
		if p := prev<<8 | c; s.pairs[p/64]&(1<<(p%64)) != 0 && s.matchAt(key[i-1:]) {
			return true
		}
		prev = c
	}
	return false
}

// matchAt reports whether a word starts s.
func (s *secrets) matchAt(k string) bool {
	for _, w := range s.words {
		if len(k) >= len(w) && hasPrefixFold(k, w) {
			return true
		}
	}
	return false
}

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with the lower-case ASCII
// prefix, ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	for j := 0; j < len(prefix); j++ {
		if lowerASCII[s[j]] != prefix[j] {
			return false
		}
	}
	return true
}

// redactJSON replaces, in a decoded JSON value, the value of every object
// member whose name is secret, and the passwords of URLs in strings.
func (s *secrets) redactJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s.match(k) {
				v[k] = Redacted
			} else {
				v[k] = s.redactJSON(x)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = s.redactJSON(x)
		}
	case string:
		return redactURLPasswords(v)
	}
	return v
}

// redactArgs returns a command line with the values of secret-looking
// flags redacted ("-token=x", "--password x"), and URL passwords.
func (s *secrets) redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redactURLPasswords(a)
	}
	for i := 1; i < len(out); i++ {
		a := out[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !s.match(name) {
			continue
		}
		if hasValue {
			out[i] = a[:strings.IndexByte(a, '=')+1] + Redacted
		} else if i+1 < len(out) && !strings.HasPrefix(out[i+1], "-") {
			out[i+1] = Redacted
			i++
		}
	}
	return out
}

// redactLdflags redacts the values of "-X importpath.name=value" settings
// whose name is secret.
func (s *secrets) redactLdflags(flags string) string {
	fields := strings.Fields(flags)
	changed := false
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		var def string
		switch {
		case (f == "-X" || f == "--X") && i+1 < len(fields):
			i++
			def = fields[i]
		case strings.HasPrefix(f, "-X="):
			def = f[len("-X="):]
		default:
			continue
		}
		name, _, ok := strings.Cut(strings.Trim(def, `'"`), "=")
		if !ok || !s.match(name) {
			continue
		}
		fields[i] = strings.TrimSuffix(fields[i], def) + name + "=" + Redacted
		changed = true
		// A quoted value may span several fields: drop them.
		for i+1 < len(fields) && !strings.HasPrefix(fields[i+1], "-") {
			fields = append(fields[:i+1], fields[i+2:]...)
		}
	}
	if !changed {
		return flags
	}
	return strings.Join(fields, " ")
}

// redactURLPasswords replaces the password of every URL with user
// information in s ("postgres://app:hunter2@db/x"). It returns s itself,
// without allocating, when there is none.
func redactURLPasswords(s string) string {
	if strings.IndexByte(s, '@') < 0 {
		return s // the common case, and the fastest test
	}
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			break
		}
		start := i + j + 3 // the authority
		end := strings.IndexAny(s[start:], "/ \t\n?#\"'")
		if end < 0 {
			end = len(s) - start
		}
		authority := s[start : start+end]
		if at := strings.LastIndexByte(authority, '@'); at > 0 {
			if colon := strings.IndexByte(authority[:at], ':'); colon >= 0 {
				b.WriteString(s[done : start+colon+1])
				b.WriteString(Redacted)
				done = start + at
			}
		}
		i = start + end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// redactLabel returns the value of a key-value pair (a pprof label, a
// setting) as the tools show it: Redacted when the key is secret, the
// value with URL passwords redacted otherwise.
func redactLabel(key, value string) string {
	if defaultSecrets.match(key) {
		return Redacted
	}
	return redactURLPasswords(value)
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return boundedjson.Truncate(s, n) + "…"
}
