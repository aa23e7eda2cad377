package codetools

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"strconv"
	"strings"
)

// Listing returns the answer as the compact text an agent reads: a header
// line (how many entries matched, by words when the query's words ranked
// them, in which scope when not main+deps, the next page), then one line
// per hit: its id, kind, file:line and the first sentence of its
// documentation. The first hit of a package has its full id; the later
// ones are written with the package's last path element
// ("gofakes3.(*GoFakeS3).Server" after
// "github.com/johannesboyne/gofakes3.New"), a name code_definition
// accepts; the structured answer has the full ids. The kind of a method
// is not written: its receiver says it. An answer from an incomplete
// catalog says what is missing; a package list, when asked, follows.
func (r *SearchResult) Listing() string {
	var b strings.Builder
	b.Grow(160 + 100*len(r.Results))
	if r.Total == 0 {
		b.WriteString("No match in ")
		b.WriteString(r.Scope)
		b.WriteString(". Try other words, a shorter fragment of a name, scope:\"all\", or a file name.")
	} else {
		b.WriteString(strconv.Itoa(r.Total))
		if r.Total == 1 {
			b.WriteString(" match")
		} else {
			b.WriteString(" matches")
		}
		if r.Match == MatchTerms {
			b.WriteString(" by words")
		}
		if r.Scope != search.DefaultScopes.String() {
			b.WriteString(" in ")
			b.WriteString(r.Scope)
		}
		if r.NextOffset != nil {
			b.WriteString(", next offset ")
			b.WriteString(strconv.Itoa(*r.NextOffset))
		}
		b.WriteString(".")
	}
	if r.Note != "" {
		b.WriteString(" ")
		b.WriteString(r.Note)
		b.WriteString(".")
	}
	if c := &r.Coverage; c.Truncated || c.NoSnapshot || r.Limitations != "" || c.RegisteredError != "" {
		b.WriteString("\ncatalog:")
		if c.Truncated {
			b.WriteString(" truncated to ")
			b.WriteString(strconv.Itoa(c.Entries))
			b.WriteString(" entries, ")
			b.WriteString(strconv.Itoa(c.DroppedEntries))
			b.WriteString(" left out by its bound (registered, then the main module, then linked functions kept first; code_definition names a left-out one as such);")
		}
		if c.NoSnapshot && r.Limitations == "" {
			b.WriteString(" no source snapshot;")
		}
		for _, e := range []string{r.Limitations, c.RegisteredError} {
			if e != "" {
				b.WriteString(" ")
				b.WriteString(search.Clip(e, index.MaxEcho))
			}
		}
	}
	short := shortPackages(r.Results)
	// The lines without documentation first: what is left of the answer's
	// budget goes to the documentation (hitDocBudget).
	lines := make([]string, len(r.Results))
	var line strings.Builder
	for i := range r.Results {
		h := &r.Results[i]
		line.Reset()
		p, rest := splitID(h.Name, h.pkg)
		switch s, ok := short[p]; {
		case ok && s.first != &h.Name:
			line.WriteString(s.name)
			line.WriteString(".")
			line.WriteString(rest)
		default:
			line.WriteString(h.Name) // the package's first hit names it in full
		}
		// A receiver says that the id is a method's.
		if h.Kind != KindMethod || p == "" || !strings.Contains(rest, ".") {
			line.WriteString(" ")
			line.WriteString(h.Kind)
		}
		if h.At != "" {
			line.WriteString(" ")
			line.WriteString(h.At)
		}
		lines[i] = line.String()
	}
	docMax := hitDocBudget(r.Results, lines, b.Len())
	for i := range r.Results {
		h := &r.Results[i]
		b.WriteString("\n")
		b.WriteString(lines[i])
		if d := h.doc; d != "" && (docMax > 0 || h.Route != "") {
			if len(d) > docMax && h.Route == "" {
				d = firstSentence(d, docMax) // a route's line is written whole
			}
			b.WriteString(" - ")
			b.WriteString(d)
		}
	}
	for _, p := range r.PackageList {
		b.WriteString("\npackage ")
		b.WriteString(p.Path)
		b.WriteString(" ")
		b.WriteString(p.Scope)
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(p.Entries))
		if !p.Source {
			b.WriteString(" (no source)")
		}
	}
	return b.String()
}

// shortName is how a listing writes a package: its last path element, and
// the hit that names it first, in full (the package itself, or one of its
// declarations).
type shortName struct {
	name  string
	first *string
}

// shortPackages returns the short names of the packages of hits whose
// import path has several elements, when no other package of the hits has
// the same last element.
func shortPackages(hits []SearchHit) map[string]shortName {
	out := map[string]shortName{}
	owner := map[string]string{} // last element → import path
	clash := map[string]bool{}
	for i := range hits {
		h := &hits[i]
		if h.pkg == "" || h.Name != h.pkg && !strings.HasPrefix(h.Name, h.pkg+".") {
			continue // not a declaration of a package, nor a package
		}
		last := h.pkg[strings.LastIndexByte(h.pkg, '/')+1:]
		if last == h.pkg {
			continue // already short
		}
		if o, ok := owner[last]; ok && o != h.pkg {
			clash[last] = true
			continue
		}
		owner[last] = h.pkg
		if _, ok := out[h.pkg]; !ok {
			out[h.pkg] = shortName{name: last, first: &h.Name}
		}
	}
	for p, s := range out {
		if clash[s.name] {
			delete(out, p)
		}
	}
	return out
}

// splitID splits the id of an entry of package pkg into the package and
// the rest after the dot that follows it ("net/http.(*Server).Serve" →
// "net/http", "(*Server).Serve"). Ids that do not start with their
// package (tools, registered names) have none: the rest is the whole id.
func splitID(id, pkg string) (string, string) {
	if rest, ok := strings.CutPrefix(id, pkg+"."); ok && pkg != "" {
		return pkg, rest
	}
	return "", id
}

// answerBudget is the size a listing's documentation may bring a 10-hit
// answer (its text and structured content) to: each hit's documentation
// gets an equal share of what the ids, kinds and positions leave, at most
// maxHitDoc bytes, and none when the share is under minHitDoc, so that an
// answer stays within about 2 KB whatever the id lengths (the structured
// content carries every full id).
const (
	answerBudget = 1950
	minHitDoc    = 12
	// structuredFixed is about what the structured content holds besides
	// its hits (match, scope, total, more, next offset, coverage), and
	// structuredPerHit the bytes of a hit's keys and punctuation.
	structuredFixed  = 200
	structuredPerHit = len(`{"id":"","kind":"","at":""},`)
)

// hitDocBudget returns how many bytes of each hit's documentation a
// listing writes, given its lines without documentation and the length of
// its header.
func hitDocBudget(hits []SearchHit, lines []string, header int) int {
	if len(hits) == 0 {
		return maxHitDoc
	}
	used := structuredFixed + header
	for i := range hits {
		h := &hits[i]
		used += structuredPerHit + len(h.Name) + len(h.Kind) + len(h.At) + len(h.Route)
		used += 1 + len(lines[i]) + len(" - ")
	}
	m := min((answerBudget-used)/len(hits), maxHitDoc)
	if m < minHitDoc {
		return 0
	}
	return m
}
