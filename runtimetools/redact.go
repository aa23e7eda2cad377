package runtimetools

import (
	"encoding/json"
	"strings"

	"github.com/embedmcp/mcp/internal/boundedjson"
)

// Redacted replaces every secret value the tools would otherwise show.
const Redacted = "[REDACTED]"

// DefaultSecretKeys returns the words that make a key secret when no
// others are configured. A word of four letters or more makes a key
// secret wherever it appears in it, ignoring case ("apiToken",
// "X-Auth-Token", "db_password", "Set-Cookie", "dbPass", "oauth"); a
// shorter word ("key", "pwd", "otp", "pin", "sig", "jwt") must start or
// end one of the key's words, which are split at every character that is
// not a letter and at changes of case ("apiKey", "api_key", "apikey",
// "PINCode", "dbpwd", "sigV4", but not "hotkeys" or "spinner"). The list is
// a superset of the keys seen carrying credentials: where it cannot be
// sure, a value is redacted rather than shown.
func DefaultSecretKeys() []string {
	return []string{
		"password", "passwd", "pass", "pwd",
		"secret", "token", "auth", "authorization", "bearer", "jwt",
		"cookie", "session", "credential", "cred",
		"key", "private", "sig", "signature", "otp", "pin",
		"hmac", "salt",
	}
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

// shortWord is the length up to which a word must start or end a word of
// the key (see DefaultSecretKeys).
const shortWord = 3

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
			if s.single[lowerASCII[key[i]]] && (wordStart(key, i) || wordEnd(key, i+1)) {
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
		if p := prev<<8 | c; s.pairs[p/64]&(1<<(p%64)) != 0 && s.matchAt(key, i-1) {
			return true
		}
		prev = c
	}
	return false
}

// matchAt reports whether a word starts key[i:], where a short word must
// also start or end a word of the key.
func (s *secrets) matchAt(key string, i int) bool {
	k := key[i:]
	for _, w := range s.words {
		if len(k) >= len(w) && hasPrefixFold(k, w) {
			if len(w) > shortWord || wordStart(key, i) || wordEnd(key, i+len(w)) {
				return true
			}
		}
	}
	return false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isLowerC(c byte) bool { return 'a' <= c && c <= 'z' }

// wordStart reports whether a word of key starts at i: after a
// non-letter, at a change from lower to upper case, or at the last
// capital of a run of them ("APIKey": "Key").
func wordStart(key string, i int) bool {
	if i == 0 || !isLetter(key[i-1]) {
		return true
	}
	return caseBreak(key, i)
}

// wordEnd reports whether a word of key ends just before j.
func wordEnd(key string, j int) bool {
	if j >= len(key) || !isLetter(key[j]) {
		return true
	}
	return caseBreak(key, j)
}

// caseBreak reports whether key splits into words between i-1 and i by
// case: "dbPass" at P, "PINCode" at C.
func caseBreak(key string, i int) bool {
	a, b := key[i-1], key[i]
	if isLowerC(a) && isUpper(b) {
		return true
	}
	return isUpper(a) && isUpper(b) && i+1 < len(key) && isLowerC(key[i+1])
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

// maxJSONDepth bounds how deep redactJSON follows JSON inside strings.
const maxJSONDepth = 8

// redactJSON replaces, in a decoded JSON value, the value of every object
// member whose name is secret, at any depth, and redacts every string as
// redactText does; a string that holds JSON itself ("{\"pass\":\"x\"}")
// is decoded, redacted the same way and encoded again.
func (s *secrets) redactJSON(v any) any { return s.redactJSONDepth(v, 0) }

func (s *secrets) redactJSONDepth(v any, depth int) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s.match(k) {
				v[k] = Redacted
			} else {
				v[k] = s.redactJSONDepth(x, depth)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = s.redactJSONDepth(x, depth)
		}
	case string:
		return s.redactString(v, depth)
	}
	return v
}

// redactString redacts a string of a JSON value, decoding the JSON it
// may hold.
func (s *secrets) redactString(v string, depth int) string {
	t := strings.TrimSpace(v)
	if len(t) < 2 || (t[0] != '{' && t[0] != '[') {
		return s.redactText(v)
	}
	if depth >= maxJSONDepth {
		return Redacted // where unsure, redact
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var inner any
	if dec.Decode(&inner) != nil || dec.More() {
		return s.redactText(v)
	}
	out, err := json.Marshal(s.redactJSONDepth(inner, depth+1))
	if err != nil {
		return Redacted
	}
	return string(out)
}

// redactArgs returns a command line with the values of secret-looking
// flags redacted, whatever their first character ("-token=x", "--password
// x", "-api-key -x"), after "--" too (a program may pass its operands on
// as flags: "-- --client-secret x"; and "-token -- x" may mean either
// value), and every argument redacted as redactText does.
func (s *secrets) redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = s.redactText(a)
	}
	for i := 1; i < len(out); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !s.match(name) {
			continue
		}
		if hasValue {
			out[i] = a[:strings.IndexByte(a, '=')+1] + Redacted
		} else if i+1 < len(out) {
			// The next argument is the value, unless the flag is a boolean:
			// where unsure, redact.
			out[i+1] = Redacted
			i++
			if args[i] == "--" && i+1 < len(out) {
				out[i+1] = Redacted
				i++
			}
		}
	}
	return out
}

// buildVarWords are the words of a -X variable name whose value
// runtime_build shows ("main.version", "buildDate", "gitCommit"); every
// other -X value is redacted, whatever its name.
var buildVarWords = []string{"version", "commit", "revision", "date", "time", "build", "branch", "tag", "release"}

// shownBuildVar reports whether the value of the -X variable name (an
// import path, a dot and a name) is shown.
func (s *secrets) shownBuildVar(name string) bool {
	if s.match(name) {
		return false
	}
	v := name[strings.LastIndexByte(name, '.')+1:]
	for _, w := range buildVarWords {
		if containsFold(v, w) {
			return true
		}
	}
	return false
}

// redactLdflags redacts the values of "-X importpath.name=value" settings,
// except those of version-like names (buildVarWords).
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
		case strings.HasPrefix(f, "--X="):
			def = f[len("--X="):]
		default:
			continue
		}
		name, _, ok := strings.Cut(strings.Trim(def, `'"`), "=")
		if !ok || s.shownBuildVar(name) {
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
// value redacted as redactText does otherwise.
func redactLabel(key, value string) string {
	if defaultSecrets.match(key) {
		return Redacted
	}
	return defaultSecrets.redactText(value)
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return boundedjson.Truncate(s, n) + "…"
}
