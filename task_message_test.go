package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShortenMessage: a status message is cut to 1024 bytes on a rune
// boundary and marked; a short one is kept whole.
func TestShortenMessage(t *testing.T) {
	if got := shortenMessage("tool failed"); got != "tool failed" {
		t.Errorf("shortenMessage of a short message = %q", got)
	}
	for _, s := range []string{strings.Repeat("x", 1025), strings.Repeat("é", 1024), "xx" + strings.Repeat("€", 1024)} {
		got := shortenMessage(s)
		body, cut := strings.CutSuffix(got, "…")
		if !cut || len(body) > 1024 || len(body) < 1024-utf8.UTFMax || !utf8.ValidString(body) || !strings.HasPrefix(s, body) {
			t.Errorf("shortenMessage of %d bytes = %q… (%d bytes); want a valid prefix of at most 1024 bytes marked with …", len(s), got[:40], len(got))
		}
	}
}
