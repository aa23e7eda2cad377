package codetools

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// code_definition accepts what an agent has at hand: short and qualified
// names, receiver spellings and stack-trace frames.
func TestDefinitionNames(t *testing.T) {
	c := rankedCatalog(t)
	for name, want := range map[string]string{
		"HandleFunc":                          "example.com/app.HandleFunc",
		"handlefunc":                          "example.com/app.HandleFunc",
		"app.HandleFunc":                      "example.com/app.HandleFunc",
		"main.HandleFunc":                     "example.com/app.HandleFunc",
		"(*Server).Handle":                    "example.com/app.(*Server).Handle",
		"Server.Handle":                       "example.com/app.(*Server).Handle",
		"lib.Handle":                          "example.com/lib.Handle",
		"auth.Verify":                         "example.com/app/internal/auth.Verify",
		"main.(*Server).Handle(0xc000010000)": "example.com/app.(*Server).Handle",
		"checkBearerToken":                    "example.com/app.checkBearerToken",
		"Handshake":                           "crypto/tls.(*Conn).Handshake",
		// A closure of an inlined function, as profiles name it.
		"example.com/app.checkBearerToken.FieldsSeq.func1": "example.com/app.checkBearerToken",
	} {
		d, err := c.Definition(ctx, DefinitionQuery{Name: name})
		if err != nil || d.Name != want {
			t.Errorf("Definition(%q) = %v, %v; want %s", name, d, err, want)
			continue
		}
		if d.RequestedName != name {
			t.Errorf("Definition(%q): requestedName %q", name, d.RequestedName)
		}
	}
}

// An ambiguous name lists its entries, the main module first; an unknown
// one the closest ids; neither echoes a long input.
func TestDefinitionCandidates(t *testing.T) {
	c := rankedCatalog(t)
	_, err := c.Definition(ctx, DefinitionQuery{Name: "Handle"})
	if !errors.Is(err, ErrAmbiguousName) || errors.Is(err, ErrUnknownName) {
		t.Fatalf("Handle: %v", err)
	}
	want := "closest ids first: example.com/app.(*Server).Handle, example.com/lib.Handle, net/http.Handle, net/http.(*ServeMux).Handle;"
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "4 entries answer to it") {
		t.Errorf("Handle: %v", err)
	}
	_, err = c.Definition(ctx, DefinitionQuery{Name: "HandleFun"})
	if !errors.Is(err, ErrUnknownName) || !strings.Contains(err.Error(), "closest ids first: example.com/app.HandleFunc") {
		t.Errorf("HandleFun: %v", err)
	}
	_, err = c.Definition(ctx, DefinitionQuery{Name: "zzyzx.Quux"})
	if !errors.Is(err, ErrUnknownName) || !strings.Contains(err.Error(), "code_search") {
		t.Errorf("zzyzx.Quux: %v", err)
	}
	long := strings.Repeat("y", MaxNameBytes)
	_, err = c.Definition(ctx, DefinitionQuery{Name: long})
	if !errors.Is(err, ErrUnknownName) || len(err.Error()) > 1000 {
		t.Errorf("long unknown name: %d bytes: %.100v", len(err.Error()), err)
	}
	_, err = c.Definition(ctx, DefinitionQuery{Name: long + "y"})
	if !errors.Is(err, ErrInvalidArgument) || strings.Contains(err.Error(), "yyyy") {
		t.Errorf("too long a name: %v", err)
	}
}

// A stack-trace file line answers the enclosing declaration with the line
// marked.
func TestDefinitionFileLine(t *testing.T) {
	c := rankedCatalog(t)
	src := rankedSources["example.com/app"]["main.go"]
	line := strings.Count(src[:strings.Index(src, "_ = 2")], "\n") + 1
	for _, name := range []string{
		fmt.Sprintf("/build/app/main.go:%d +0x339", line),
		fmt.Sprintf("\t/home/ci/src/app/main.go:%d", line),
		fmt.Sprintf("main.go:%d", line),
	} {
		d, err := c.Definition(ctx, DefinitionQuery{Name: name})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		f := d.Focus
		if d.Name != "example.com/app.prehandle" || f == nil || f.Line != line || f.Text != "\t_ = 2" || !f.Exact {
			t.Errorf("%s: %s focus %+v", name, d.Name, f)
			continue
		}
		if got := string([]rune(d.Definition)[f.Offset:]); !strings.HasPrefix(got, "\t_ = 2\n") {
			t.Errorf("%s: focus offset %d points at %q", name, f.Offset, got)
		}
	}
	// A line of the function table only: the enclosing function is
	// inferred, the focus not exact.
	d, err := c.Definition(ctx, DefinitionQuery{Name: "/usr/local/go/src/crypto/tls/conn.go:1510 +0x2a"})
	if err != nil || d.Name != "crypto/tls.(*Conn).Handshake" || d.Focus == nil || d.Focus.Exact || d.Focus.Text != "" {
		t.Errorf("runtime-only file line: %+v %v", d, err)
	}
	// No declaration encloses line 1 of main.go (the package clause).
	_, err = c.Definition(ctx, DefinitionQuery{Name: "main.go:1"})
	if !errors.Is(err, ErrUnknownName) || !strings.Contains(err.Error(), "encloses") {
		t.Errorf("main.go:1: %v", err)
	}
}
