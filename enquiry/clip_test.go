package enquiry

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClip: an argument echoed in an answer is cut to maxEcho bytes on a
// rune boundary and marked; a short one is echoed whole.
func TestClip(t *testing.T) {
	if got := clip("read a file"); got != "read a file" {
		t.Errorf("clip of a short argument = %q", got)
	}
	for _, s := range []string{strings.Repeat("x", maxEcho+1), strings.Repeat("é", maxEcho), "x" + strings.Repeat("€", maxEcho)} {
		got := clip(s)
		body, cut := strings.CutSuffix(got, "…")
		if !cut || len(body) > maxEcho || len(body) < maxEcho-utf8.UTFMax || !utf8.ValidString(body) || !strings.HasPrefix(s, body) {
			t.Errorf("clip of %d bytes = %q (%d bytes); want a valid prefix of at most %d bytes marked with …", len(s), got, len(got), maxEcho)
		}
	}
}
