package mcptest

import (
	"fmt"
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	if d := lineDiff("a\nb\n", "a\nb\n"); d != "" {
		t.Errorf("equal texts: diff %q", d)
	}
	d := lineDiff("a\nb\nc\n", "a\nB\nc\nd\n")
	want := "@@ want line 1, got line 1 @@\n a\n-b\n+B\n c\n+d\n"
	if d != want {
		t.Errorf("diff =\n%s\nwant\n%s", d, want)
	}
	// A change in a long text shows only the lines around it.
	var a, b []string
	for i := range 100 {
		a = append(a, fmt.Sprint("line ", i))
		b = append(b, fmt.Sprint("line ", i))
	}
	b[50] = "changed"
	d = lineDiff(strings.Join(a, "\n"), strings.Join(b, "\n"))
	if !strings.Contains(d, "-line 50\n+changed\n") || strings.Contains(d, "line 40") || strings.Contains(d, "line 60") {
		t.Errorf("diff of one changed line:\n%s", d)
	}
	if !strings.HasPrefix(d, "@@ want line 48, got line 48 @@") {
		t.Errorf("hunk header: %s", strings.SplitN(d, "\n", 2)[0])
	}
	// Two changes far apart make two hunks.
	b[5] = "early"
	if d = lineDiff(strings.Join(a, "\n"), strings.Join(b, "\n")); strings.Count(d, "@@ want") != 2 {
		t.Errorf("want two hunks:\n%s", d)
	}
	if d = lineDiff("", "x\n"); d != "@@ want line 1, got line 1 @@\n+x\n" {
		t.Errorf("diff from empty = %q", d)
	}
}
