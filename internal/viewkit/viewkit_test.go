package viewkit

import (
	"fmt"
	"strings"
	"testing"
)

// page is a view's page file that names the parts given.
func page(names ...string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<style>\n")
	for _, n := range names {
		if n == "theme" {
			b.WriteString(Marker(n))
		}
	}
	b.WriteString("</style>\n</head>\n<body>\n<script>\n")
	for _, n := range names {
		if n != "theme" {
			b.WriteString(Marker(n))
		}
	}
	b.WriteString("bridge.start(\"test\");\n</script>\n</body>\n</html>\n")
	return b.String()
}

func TestParts(t *testing.T) {
	names := map[string]bool{}
	for _, p := range Parts() {
		names[p.Name] = true
		first, _, _ := strings.Cut(p.Text, "\n")
		if !strings.HasPrefix(first, "/* "+p.Name+": begin") || !strings.HasSuffix(p.Text, "/* "+p.Name+": end */\n") {
			t.Errorf("the %s does not run from its begin comment to its end comment and newline: %q", p.Name, first)
		}
		if len(distinctLines(p.Text)) < 10 {
			t.Errorf("the %s has %d lines of 40 characters or more: too few to tell a copy", p.Name, len(distinctLines(p.Text)))
		}
		if strings.Contains(p.Text, markerPrefix) {
			t.Errorf("the %s holds a marker", p.Name)
		}
	}
	if len(names) != 3 || !names["theme"] || !names["bridge"] || !names["source"] {
		t.Errorf("Parts: %v", names)
	}
}

func TestPage(t *testing.T) {
	for _, names := range [][]string{{"theme", "bridge"}, {"theme", "bridge", "source"}} {
		src := page(names...)
		if err := CheckSource(src); err != nil {
			t.Errorf("%v: CheckSource: %v", names, err)
		}
		html := Page(src)
		if err := CheckPage(html); err != nil {
			t.Errorf("%v: CheckPage: %v", names, err)
		}
		for _, p := range Parts() {
			want := 0
			for _, n := range names {
				if n == p.Name {
					want = 1
				}
			}
			if got := strings.Count(html, p.Text); got != want {
				t.Errorf("%v: the %s stands %d times, want %d", names, p.Name, got, want)
			}
		}
		// What is not a marker is kept as it is, in order.
		rest := html
		for _, p := range Parts() {
			rest = strings.Replace(rest, p.Text, Marker(p.Name), 1)
		}
		if rest != src {
			t.Errorf("%v: Page changed more than the markers:\n%s", names, rest)
		}
	}
}

func TestCheckPageRefuses(t *testing.T) {
	bridge := Parts()[1].Text
	// An edited copy: the bridge with one line changed.
	edited := strings.Replace(bridge, "var next = 1", "var next = 2", 1)
	for name, html := range map[string]string{
		"no bridge":             Page(page("theme")),
		"no theme":              Page(page("bridge")),
		"no marker replaced":    page("theme", "bridge"),
		"bridge named twice":    Page(page("theme", "bridge", "bridge")),
		"source named twice":    Page(page("theme", "bridge", "source", "source")),
		"an unknown marker":     Page(page("theme", "bridge", "chart")),
		"a copy pasted as well": Page(page("theme", "bridge")) + "<script>\n" + bridge + "</script>\n",
		"an edited copy too":    Page(page("theme", "bridge")) + "<script>\n" + edited + "</script>\n",
		"a line of the source":  Page(page("theme", "bridge")) + "<script>\n" + distinctLines(Parts()[2].Text)[3] + "\n</script>\n",
	} {
		if err := CheckPage(html); err == nil {
			t.Errorf("%s: CheckPage passed it", name)
		} else if !strings.HasPrefix(err.Error(), "viewkit: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheckSourceRefuses(t *testing.T) {
	for _, p := range Parts() {
		// A page file that holds the part itself, or a line of it, where it
		// should name it by its marker.
		for what, src := range map[string]string{
			"the whole " + p.Name:     strings.Replace(page("theme", "bridge", "source"), Marker(p.Name), p.Text, 1),
			"a line of the " + p.Name: page("theme", "bridge", "source") + distinctLines(p.Text)[len(distinctLines(p.Text))-1] + "\n",
			"the marker twice":        page("theme", "bridge", "source", p.Name),
		} {
			if err := CheckSource(src); err == nil {
				t.Errorf("%s: CheckSource passed it", what)
			}
		}
	}
}

func ExamplePage() {
	src := "<!DOCTYPE html>\n<style>\n" + Marker("theme") + "</style>\n<script>\n" + Marker("bridge") + "</script>\n"
	html := Page(src)
	fmt.Println(strings.Count(html, "/* theme: begin"), strings.Count(html, "/* bridge: begin"), strings.Count(html, "/* source: begin"))
	fmt.Println(CheckPage(html))
	// Output:
	// 1 1 0
	// <nil>
}
