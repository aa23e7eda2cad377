// Package viewkit holds, once, what every MCP Apps view of runtimetools
// and codetools carries: the theme (theme.css: the host's CSS variables
// with fallbacks for light and dark, and the classes the views share), the
// host bridge (bridge.js: the postMessage client of SEP-1865) and the
// source renderer (source.js: code_definition's "source" view data as
// rows, tokens and links). A view's page file names the parts it needs,
// each by a marker line, and Page puts the parts in, so that the page a
// host reads is still one self-contained HTML document, inline script and
// style only.
//
// A marker is a line of its own, in a <style> for the theme and in a
// <script> for the others:
//
//	/* viewkit: theme */
//	/* viewkit: bridge */
//	/* viewkit: source */
package viewkit

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed theme.css
var theme string

//go:embed bridge.js
var bridge string

//go:embed source.js
var source string

// A Part is a block the views share: Name is what its marker names, Text
// what Page puts in its place (the whole lines, from the part's
// "begin" comment to its "end" comment and newline).
type Part struct {
	Name string
	Text string
	// Required is set when every view carries the part (the theme and
	// the bridge); a view carries the others at most once.
	Required bool
}

// Parts returns the shared parts: theme, bridge, source.
func Parts() []Part {
	return []Part{
		{Name: "theme", Text: theme, Required: true},
		{Name: "bridge", Text: bridge, Required: true},
		{Name: "source", Text: source},
	}
}

// Marker returns the marker line of the part named name.
func Marker(name string) string {
	return "/* viewkit: " + name + " */\n"
}

// markerPrefix starts every marker, known or not.
const markerPrefix = "/* viewkit:"

// Page returns page with the first marker line of each part replaced by
// the part. A marker it does not know, or a second marker of a part, is
// left as it is: CheckPage reports it.
func Page(page string) string {
	for _, p := range Parts() {
		page = strings.Replace(page, Marker(p.Name), p.Text, 1)
	}
	return page
}

// CheckPage reports whether html, a page as Page returns it, is whole: no
// marker left, the theme and the bridge each exactly once, the source
// renderer at most once, and no other copy of a part, whole or in part
// (every line of a part of 40 characters or more, trimmed, stands in html
// only within the part's copy).
func CheckPage(html string) error {
	if i := strings.Index(html, markerPrefix); i >= 0 {
		return fmt.Errorf("viewkit: a marker is left, unknown or repeated: %q", line(html, i))
	}
	for _, p := range Parts() {
		n := strings.Count(html, p.Text)
		switch {
		case p.Required && n != 1:
			return fmt.Errorf("viewkit: the %s stands %d times in the page, not once", p.Name, n)
		case n > 1:
			return fmt.Errorf("viewkit: the %s stands %d times in the page, not at most once", p.Name, n)
		}
		for _, l := range distinctLines(p.Text) {
			if c, want := strings.Count(html, l), n*strings.Count(p.Text, l); c != want {
				return fmt.Errorf("viewkit: a line of the %s stands %d times in the page, not %d: %q", p.Name, c, want, l)
			}
		}
	}
	return nil
}

// CheckSource reports whether page, a view's page file before Page, names
// the parts by their markers only: no line of 40 characters or more of a
// part stands in it, and no marker twice.
func CheckSource(page string) error {
	for _, p := range Parts() {
		if c := strings.Count(page, Marker(p.Name)); c > 1 {
			return fmt.Errorf("viewkit: the marker of the %s stands %d times in the page file", p.Name, c)
		}
		for _, l := range distinctLines(p.Text) {
			if strings.Contains(page, l) {
				return fmt.Errorf("viewkit: the page file holds a line of the %s (name it by its marker): %q", p.Name, l)
			}
		}
	}
	return nil
}

// distinctLines returns the lines of text of 40 characters or more,
// trimmed: those a copy of the part would carry and a view's own code
// would not.
func distinctLines(text string) []string {
	var out []string
	for l := range strings.Lines(text) {
		if l = strings.TrimSpace(l); len(l) >= 40 {
			out = append(out, l)
		}
	}
	return out
}

// line returns the line of s around index i, at most 80 bytes of it.
func line(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		end = len(s)
	} else {
		end += i
	}
	if end-start > 80 {
		end = start + 80
	}
	return s[start:end]
}
