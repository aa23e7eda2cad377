package mcptest_test

import (
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/mcptest"
)

const pageHTML = "<!DOCTYPE html><title>v</title>"

func TestCheckViewsAcceptsAToolSet(t *testing.T) {
	ts := mcp.NewToolSet()
	if err := ts.RegisterViews(mcp.View{URI: "ui://a/1", Name: "one", HTML: pageHTML}, mcp.View{URI: "ui://a/2", Name: "two", HTML: pageHTML}); err != nil {
		t.Fatal(err)
	}
	if err := mcptest.CheckViews(ts); err != nil {
		t.Error(err)
	}
}

// brokenViews lists its views as given and finds none of them.
type brokenViews struct {
	views  []*mcp.View
	panics bool
}

func (b brokenViews) LookupView(uri string) (*mcp.View, bool) {
	if b.panics {
		panic("lookup")
	}
	return nil, false
}

func (b brokenViews) AllViews() iter.Seq[*mcp.View] {
	return func(yield func(*mcp.View) bool) {
		for _, v := range b.views {
			if !yield(v) {
				return
			}
		}
	}
}

func TestCheckViewsFindsViolations(t *testing.T) {
	b := brokenViews{views: []*mcp.View{
		{URI: "ui://a/2", Name: "two", HTML: pageHTML},
		{URI: "http://a/1", Name: "one", HTML: pageHTML},
	}}
	err := mcptest.CheckViews(b)
	var v *mcptest.Violation
	if !errors.As(err, &v) {
		t.Fatalf("no violation: %v", err)
	}
	for _, want := range []string{"list: not sorted", `tool "ui://a/2": lookup`, `tool "http://a/1": register`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	b.panics = true
	if err := mcptest.CheckViews(b); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("a panicking registry: %v", err)
	}
}
