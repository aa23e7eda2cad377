package mcptest

import (
	"strings"
	"testing"
)

func TestArchiveRoundTrip(t *testing.T) {
	src := "title\nnotes\n-- request --\n{\"a\": 1}\n-- response --\n{\n  \"b\": 2\n}\n"
	a := parseArchive([]byte(src))
	if got := string(a.comment); got != "title\nnotes\n" {
		t.Errorf("comment = %q", got)
	}
	if len(a.files) != 2 || a.files[0].name != "request" || string(a.files[1].data) != "{\n  \"b\": 2\n}\n" {
		t.Fatalf("files = %+v", a.files)
	}
	out, err := a.format()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != src {
		t.Errorf("format = %q, want %q", out, src)
	}
}

func TestArchiveEdgeCases(t *testing.T) {
	// No final newline, CRLF marker, a line that only looks like a marker.
	a := parseArchive([]byte("-- a --\r\nx\n--b--\n-- not a marker\n-- b --\ny"))
	if len(a.files) != 2 {
		t.Fatalf("files = %+v", a.files)
	}
	if got := string(a.files[0].data); got != "x\n--b--\n-- not a marker\n" {
		t.Errorf("a = %q", got)
	}
	if got := string(a.files[1].data); got != "y\n" {
		t.Errorf("b = %q (a final newline is added)", got)
	}
	if a := parseArchive(nil); len(a.comment) != 0 || len(a.files) != 0 {
		t.Errorf("empty archive = %+v", a)
	}
}

func TestArchiveFormatRejectsMarkers(t *testing.T) {
	for _, a := range []*archive{
		{files: []archiveFile{{name: "x", data: []byte("ok\n-- y --\n")}}},
		{comment: []byte("-- y --\n")},
		{files: []archiveFile{{name: "two\nlines"}}},
		{files: []archiveFile{{name: ""}}},
	} {
		if _, err := a.format(); err == nil {
			t.Errorf("format(%+v) succeeded", a)
		} else if !strings.Contains(err.Error(), "mcptest:") {
			t.Errorf("error %q does not say where it comes from", err)
		}
	}
}
