package codeindex

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

const wordsSrc = `package p

// Options configure.
type Options struct {
	MaxConns int           // connections at most
	Timeout  time.Duration ` + "`yaml:\"read_timeout\"`" + `
	Logger
}

// Store is a store.
type Store interface {
	Purge(key string) error // drops a key
}

const msgWrong = "WRONGTYPE Operation against a key"

func serve() {
	// refuse clients over the limit
	log.Printf("client %s refused after %d tries", "x", 3)
}
`

func wordsOf(t *testing.T) map[string]string {
	t.Helper()
	files, err := ParsePackage([]Source{{Path: "p.go.txt", Name: "p.go", Src: []byte(wordsSrc)}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range files[0].Decls {
		out[d.Name] = d.Words
	}
	return out
}

// The search words of a declaration: a type's fields and methods (names
// as members; types, tags and comments as text), a value's strings, a
// function's strings (format verbs dropped, adjacent words paired) and
// body comments.
func TestWords(t *testing.T) {
	w := wordsOf(t)
	for name, want := range map[string][]string{
		"Options":  {"| maximum connection timeout logger", "connection most", "read timeout", "durat"},
		"Store":    {"| purg", "drop kei"},
		"msgWrong": {"wrongtyp", "wrongtyp+oper"},
		"serve":    {"refus client", "client+refus", "refus+after", "tri"},
	} {
		for _, s := range want {
			if !strings.Contains(w[name], s) {
				t.Errorf("%s: words %q lack %q", name, w[name], s)
			}
		}
	}
	if strings.Contains(w["serve"], "client+s") || strings.Contains(w["serve"], " d ") {
		t.Errorf("serve: format verbs left in %q", w["serve"])
	}
}

// The words travel in "w" records before their declaration; a reader
// that knows no such record skips it, and an index without them reads as
// before.
func TestWordsRecords(t *testing.T) {
	files, err := ParsePackage([]Source{{Path: "p.go.txt", Name: "p.go", Src: []byte(wordsSrc)}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Encode(&b, files); err != nil {
		t.Fatal(err)
	}
	read := func(data []byte) map[string]string {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for {
			_, d, err := r.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out[d.Name] = d.Words
		}
	}
	got := read(b.Bytes())
	for _, d := range files[0].Decls {
		if got[d.Name] != d.Words {
			t.Errorf("%s: read %q, wrote %q", d.Name, got[d.Name], d.Words)
		}
	}
	var old bytes.Buffer
	for line := range bytes.Lines(b.Bytes()) {
		if !bytes.HasPrefix(line, []byte("w ")) {
			old.Write(line)
		}
	}
	for name, words := range read(old.Bytes()) {
		if words != "" {
			t.Errorf("%s: words %q from an index without them", name, words)
		}
	}
	if len(read(old.Bytes())) != len(got) {
		t.Error("an index without words has other declarations")
	}
}
