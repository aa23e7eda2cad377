package bm25f

import (
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"ek9_extract_method", []string{"ek9", "extract", "method"}},
		{"insertedLineRange", []string{"insert", "line", "rang"}},
		{"JSONSchema parser", []string{"json", "schema", "parser"}},
		{"HTTPServer2Go", []string{"http", "server2", "go"}},
		{"s3mem.New md5Base64 utf8 x509", []string{"s3", "memori", "new", "md5", "base64", "utf8", "x509"}},
		{"kebab-case.dotted_name", []string{"kebab", "case", "dot", "name"}},
		{"Fix E11066 now!", []string{"fix", "e11066", "now"}},
		{"Parameters, classes & dependencies; status", []string{"parameter", "class", "dependenci", "statu"}},
		{"github.com/embedmcp/mcp.(*Server).Handle", []string{"github", "com", "embedmcp", "mcp", "server", "handl"}},
		{"MaxBodyBytes", []string{"maximum", "bodi", "byte"}},
		{"Größe ändern", []string{"größe", "ändern"}},
		{"  ", nil},
		{"", nil},
	} {
		if got := Words(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTermsDropStopWords(t *testing.T) {
	got := Terms("Where is the bearer token checked, and which handler does it?")
	want := []string{"bearer", "token", "check", "handler"}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

// Forms of one word meet; different words stay apart.
func TestStemJoinsInflections(t *testing.T) {
	for _, group := range [][]string{
		{"check", "checks", "checked", "checking"},
		{"parse", "parses", "parsed", "parsing"},
		{"handle", "handles", "handled", "handling"},
		{"route", "routes", "routed", "routing"},
		{"close", "closes", "closed", "closing"},
		{"write", "writes", "writing"},
		{"time", "times", "timing"},
		{"file", "files"},
		{"byte", "bytes"},
		{"class", "classes"},
		{"dependency", "dependencies"},
		{"embed", "embedded", "embedding"},
		{"panic", "panics", "panicked", "panicking"},
		{"log", "logs", "logging", "logged"},
		{"run", "runs", "running"},
		{"string", "strings"},
	} {
		want := Stem(group[0])
		for _, w := range group[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, want %q as for %q", w, got, want, group[0])
			}
		}
	}
	for _, pair := range [][2]string{{"state", "stat"}, {"handler", "handle"}, {"server", "serve"}, {"note", "not"}, {"mode", "mod"}} {
		if Stem(pair[0]) == Stem(pair[1]) {
			t.Errorf("Stem joins %q and %q", pair[0], pair[1])
		}
	}
	for _, w := range []string{"go", "v2", "ek9", "größe", "sha256"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

// Abbreviations meet the words they abbreviate, and every entry of the
// table is used.
func TestCanonical(t *testing.T) {
	pairs := [][2]string{
		{"addr", "address"}, {"args", "arguments"}, {"attr", "attribute"}, {"authn", "authentication"},
		{"authz", "authorization"}, {"buf", "buffer"}, {"cert", "certificate"}, {"cfg", "config"},
		{"conf", "configure"}, {"configured", "configuration"}, {"conn", "connection"}, {"ctx", "context"},
		{"db", "database"}, {"dest", "destination"}, {"dir", "directories"}, {"docs", "documentation"},
		{"doc", "document"}, {"dst", "destination"}, {"env", "environment"}, {"err", "errors"},
		{"exec", "execute"}, {"fn", "function"}, {"func", "functions"}, {"hdr", "header"},
		{"idx", "index"}, {"impl", "implementation"}, {"info", "information"}, {"init", "initialise"},
		{"init", "initialize"}, {"init", "initialization"}, {"init", "initialisation"}, {"len", "length"},
		{"max", "maximum"}, {"mem", "memory"}, {"min", "minimum"}, {"msg", "message"}, {"num", "number"},
		{"obj", "object"}, {"params", "parameters"}, {"pkg", "package"}, {"prev", "previous"},
		{"proto", "protocol"}, {"pwd", "password"}, {"passwd", "password"}, {"repo", "repository"},
		{"req", "requests"}, {"resp", "response"}, {"sig", "signature"}, {"spec", "specification"},
		{"spec", "specify"}, {"src", "source"}, {"srv", "server"}, {"stats", "statistics"},
		{"str", "string"}, {"svr", "server"}, {"tmp", "temporary"}, {"temp", "temporary"},
		{"util", "utilities"}, {"val", "value"}, {"var", "variable"}, {"auto", "automatically"},
		{"automatic", "automation"}, {"auto", "automate"},
		{"cb", "callback"}, {"cmd", "commands"}, {"cnt", "count"}, {"elem", "element"}, {"opts", "options"}, {"perm", "permission"},
		{"pw", "password"}, {"rand", "random"}, {"seq", "sequence"}, {"sess", "session"}, {"sz", "size"},
		{"usr", "user"}, {"max", "largest"}, {"max", "biggest"}, {"max", "highest"}, {"max", "longest"},
		{"tx", "transaction"}, {"txn", "transactions"}, {"recv", "receive"}, {"rcv", "received"}, {"snd", "send"},
		{"ptr", "pointer"}, {"mgr", "manager"}, {"pkt", "packets"}, {"pos", "position"}, {"sock", "socket"},
		{"tmpl", "template"}, {"ver", "version"}, {"evt", "event"}, {"cred", "credentials"}, {"priv", "private"},
		{"sched", "schedule"}, {"stmt", "statement"}, {"tbl", "table"}, {"calc", "calculate"}, {"lbl", "label"},
		{"dur", "duration"},
		{"max", "greatest"}, {"min", "smallest"}, {"min", "lowest"}, {"min", "shortest"}, {"min", "fewest"},
	}
	used := map[string]bool{}
	for _, pair := range pairs {
		if a, b := Normalize(pair[0]), Normalize(pair[1]); a != b {
			t.Errorf("Normalize(%q) = %q, Normalize(%q) = %q", pair[0], a, pair[1], b)
		}
		used[Stem(pair[0])], used[Stem(pair[1])] = true, true
	}
	for k, v := range canonical {
		if !used[k] {
			t.Errorf("canonical[%q] is not covered by the test", k)
		}
		if _, chained := canonical[v]; chained {
			t.Errorf("canonical[%q] = %q is itself a key", k, v)
		}
	}
}

// Every word of a synonym group is a term as Normalize makes it, and
// Related gives the rest of the group.
func TestSynonyms(t *testing.T) {
	surface := []string{"complete", "finish", "delete", "remove", "erase", "create", "make", "new", "several", "multiple",
		"multi", "many", "batch", "bulk", "verify", "check", "validate", "valid", "ensure", "get", "fetch", "retrieve",
		"load", "find", "search", "lookup", "locate", "start", "begin", "launch", "stop", "halt", "shutdown", "terminate",
		"error", "fail", "failure", "enable", "activate", "disable", "deactivate", "size", "length", "maximum", "limit",
		"bound", "parse", "decode", "unmarshal", "encode", "marshal", "serialize", "copy", "clone", "duplicate", "wait",
		"sleep", "delay", "time", "clock", "response", "reply", "answer", "route", "dispatch", "purge", "evict", "cap",
		"refuse", "reject", "deny", "forbid", "disallow", "expire", "expiry", "ttl", "lifetime", "deadline", "timeout",
		"callback", "hook", "password", "secret", "credentials", "user", "account", "assert", "allowed", "permit",
		"permission", "grant", "often", "interval", "frequency", "period", "derive", "generate", "compute", "retries",
		"attempt", "try", "tries", "idle", "inactive", "inactivity", "quiet", "discard", "ignore", "silence", "mute",
		"suppress", "terminal", "pty", "tty", "depth", "deep", "width", "wide", "convert", "translate", "transform",
		"banner", "greeting", "welcome", "motd", "malformed", "invalid", "corrupt", "temporary", "throwaway", "ephemeral",
		"cancel", "abort", "interrupt", "reuse", "recycle", "pool", "tunnel", "forward"}
	terms := map[string]bool{}
	for _, w := range surface {
		terms[Normalize(w)] = true
	}
	for _, g := range synonyms {
		for _, w := range g {
			if !terms[w] {
				t.Errorf("synonym %q is no Normalize result of the listed words", w)
			}
		}
	}
	if got := Related(Normalize("finishing")); !slices.Equal(got, []string{"complet"}) {
		t.Errorf("Related(finish) = %q", got)
	}
	if Related("bucket") != nil {
		t.Error("Related(bucket) is not nil")
	}
}

// Indexed abbreviations of several words carry those words; queries are
// not expanded.
func TestTokenizerExpansions(t *testing.T) {
	var tok Tokenizer
	got := tok.AppendTerms(nil, "Counts GC cycles on stdio")
	want := []string{"count", "gc", "cycl", "stdio", "garbag", "collect", "collection", "standard", "input", "output"}
	if !slices.Equal(got, want) {
		t.Errorf("AppendTerms = %q, want %q", got, want)
	}
	for ab, ws := range expansions {
		for _, w := range ws {
			if Normalize(w) != w && Stem(w) != w {
				t.Errorf("expansion of %q: %q is no term", ab, w)
			}
		}
	}
	if got := Terms("garbage collection"); !slices.Equal(got, []string{"garbag", "collection"}) {
		t.Errorf("Terms(garbage collection) = %q", got)
	}
}
