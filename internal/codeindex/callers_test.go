package codeindex

import (
	"strings"
	"testing"
)

// The words of a declaration's callers in its package are added to its
// code words; a call through an imported package's name is not a call of
// the package's own declaration of that name.
func TestCallersWords(t *testing.T) {
	src := `package p

import "strings"

func startTransaction() {}

func (s *Server) Close() {}

func cmdMulti(s *Server) {
	startTransaction()
	s.Close()
}

func TrimSpace() {}

func readInput() { _ = strings.TrimSpace(" ") }
`
	files, err := ParsePackage([]Source{{Path: "p.go.txt", Name: "p.go", Src: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]string{}
	for _, d := range files[0].Decls {
		words[d.Name] = d.Words
		if d.calls != nil {
			t.Errorf("%s keeps its calls", d.Name)
		}
	}
	for _, name := range []string{"startTransaction", "(*Server).Close"} {
		code, _, _ := strings.Cut(words[name], " | ")
		if !strings.Contains(" "+code+" ", " multi ") {
			t.Errorf("%s: code words %q lack its caller cmdMulti's", name, code)
		}
	}
	if code, _, _ := strings.Cut(words["TrimSpace"], " | "); strings.Contains(" "+code+" ", " input ") {
		t.Errorf("TrimSpace takes the words of a caller of strings.TrimSpace: %q", code)
	}
	if w := words["cmdMulti"]; strings.Count(w, " | ") != 2 {
		t.Errorf("cmdMulti: words %q are not in the record's form", w)
	}
}
