package codetools

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestGeneratedTypeFunctions: the functions the compiler generates for a
// type, as a profile names them, are answered: with the type's declaration
// when the catalog holds it, else by what they are, never as unknown names.
func TestGeneratedTypeFunctions(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	ctx := context.Background()

	d, err := c.Definition(ctx, DefinitionQuery{Name: "type:.eq.main.T"})
	if err != nil {
		t.Fatalf("type:.eq.main.T: %v", err)
	}
	if d.Name != fixturePath+".T" || d.Kind != KindType || d.RequestedName != "type:.eq.main.T" || !d.SourceAvailable {
		t.Errorf("type:.eq.main.T = %s %s (requested %q, source %v), want the type %s.T", d.Name, d.Kind, d.RequestedName, d.SourceAvailable, fixturePath)
	}
	if !strings.Contains(d.Limitations, "compares values of the type") {
		t.Errorf("limitations do not say what the function is: %q", d.Limitations)
	}
	text, _, _ := d.answer(false)
	if !strings.Contains(text, "compares values") {
		t.Errorf("the compact answer does not say what the function is:\n%s", text)
	}

	for _, name := range []string{"type:.hash.[2]string", "type:.hash.[...]string", "type:.eq.example.com/fixture/sub.Missing"} {
		d, err := c.Definition(ctx, DefinitionQuery{Name: name})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d.Name != name || d.Kind != KindFunc || d.SourceAvailable || d.Linked {
			t.Errorf("%s = %s %s (source %v, linked %v)", name, d.Name, d.Kind, d.SourceAvailable, d.Linked)
		}
		typ := name[strings.Index(name[len("type:."):], ".")+len("type:.")+1:]
		if !strings.Contains(d.Limitations, "for the type "+typ) || !strings.Contains(d.Limitations, "no declaration") {
			t.Errorf("%s: limitations %q", name, d.Limitations)
		}
	}

	for _, name := range []string{"type:.hash.", "type:.other.T", "type:T"} {
		if _, err := c.Definition(ctx, DefinitionQuery{Name: name}); !errors.Is(err, ErrUnknownName) {
			t.Errorf("%s: err = %v, want ErrUnknownName", name, err)
		}
	}
}
