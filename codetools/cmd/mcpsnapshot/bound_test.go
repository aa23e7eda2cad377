package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codeindex"
)

// TestBoundNote checks what the generator says of the declarations it
// indexed: their count, and when they exceed what a catalog holds, that
// some will be left out.
func TestBoundNote(t *testing.T) {
	for _, n := range []int{1234, codetools.DefaultMaxEntries + 5} {
		idx := fmt.Sprintf("%s\ndecls %d\n", codeindex.Header, n)
		var w bytes.Buffer
		boundNote(&w, []byte(idx))
		out := w.String()
		if !strings.Contains(out, fmt.Sprintf("%d declarations", n)) {
			t.Errorf("%d declarations: %q", n, out)
		}
		if over := n > codetools.DefaultMaxEntries; over != strings.Contains(out, "5 or more will be left out") {
			t.Errorf("%d declarations: left-out note %q", n, out)
		}
	}
	var w bytes.Buffer
	boundNote(&w, []byte("not an index"))
	if w.Len() != 0 {
		t.Errorf("a bad index: %q", w.String())
	}
}
