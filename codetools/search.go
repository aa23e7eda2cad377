package codetools

import (
	"context"
	"go/doc"
	"strings"
	"unicode/utf8"
)

// SearchQuery holds the code_search arguments.
type SearchQuery struct {
	// Query is a literal, case-insensitive substring of ids and
	// documentation. Required.
	Query string `json:"query"`
	// Limit is the page size, 1..MaxLimit; 0 means DefaultLimit.
	Limit int `json:"limit,omitempty"`
	// Offset is the number of matches to skip; ≥ 0.
	Offset int `json:"offset,omitempty"`
}

// SearchResult is the code_search answer.
type SearchResult struct {
	Server     string `json:"server" jsonschema:"Server the catalog describes."`
	ObservedAt int64  `json:"observedAt" jsonschema:"Time of the answer, in Unix seconds."`
	Query      string `json:"query" jsonschema:"The query as given."`
	Limit      int    `json:"limit" jsonschema:"Page size used."`
	Offset     int    `json:"offset" jsonschema:"Matches skipped before this page."`
	// Total is the number of matching entries.
	Total int  `json:"total" jsonschema:"Number of matching entries."`
	More  bool `json:"more" jsonschema:"Whether more matches follow this page."`
	// NextOffset is the offset of the next page, if More.
	NextOffset *int `json:"nextOffset,omitempty" jsonschema:"Offset of the next page; present when more is true."`
	// Results is never nil.
	Results     []SearchHit `json:"results" jsonschema:"Matches of this page, in id order."`
	Coverage    Coverage    `json:"coverage" jsonschema:"What the catalog holds."`
	Limitations string      `json:"limitations" jsonschema:"What the search can and cannot see."`
}

// SearchHit is one code_search match.
type SearchHit struct {
	// Name is the exact id to pass to code_definition.
	Name    string   `json:"name" jsonschema:"Exact id to pass to code_definition."`
	Kind    string   `json:"kind" jsonschema:"Kind of entry: func, method, type, var, const, package, doc or tool."`
	Package string   `json:"package,omitempty" jsonschema:"Import path of the entry's package."`
	Source  string   `json:"source" jsonschema:"Primary source of the entry: registered, snapshot or runtime."`
	Sources []string `json:"sources" jsonschema:"Every source that holds the entry."`
	File    string   `json:"file,omitempty" jsonschema:"File of the declaration."`
	Line    int      `json:"line,omitempty" jsonschema:"Line of the declaration in file."`
	// Doc is the first sentence of the documentation.
	Doc    string `json:"doc,omitempty" jsonschema:"First sentence of the documentation; untrusted."`
	Linked bool   `json:"linked" jsonschema:"Whether the symbol is in the running binary's function table."`
}

// Coverage describes what the catalog holds.
type Coverage struct {
	CatalogEntries int  `json:"catalogEntries" jsonschema:"Number of entries in the catalog."`
	MaxEntries     int  `json:"maxEntries" jsonschema:"Bound on catalog entries."`
	Truncated      bool `json:"truncated" jsonschema:"Whether entries were dropped to keep the bound."`
	DroppedEntries int  `json:"droppedEntries" jsonschema:"Number of entries dropped to keep the bound."`
	// TruncationRule is the deterministic rule that picks kept entries.
	TruncationRule string         `json:"truncationRule" jsonschema:"Rule that picks the kept entries."`
	BySource       map[string]int `json:"bySource" jsonschema:"Entries per source; an entry can count for several."`
	ByKind         map[string]int `json:"byKind" jsonschema:"Entries per kind."`
	Snapshot       bool           `json:"snapshot" jsonschema:"Whether a source snapshot is embedded."`
	// PackagesWithoutSource lists (at most maxListedPackages) packages
	// with runtime entries but no snapshot source.
	PackagesWithoutSource          []string `json:"packagesWithoutSource" jsonschema:"Packages with runtime entries but no snapshot source (at most 100)."`
	PackagesWithoutSourceCount     int      `json:"packagesWithoutSourceCount" jsonschema:"Number of packages with runtime entries but no snapshot source."`
	PackagesWithoutSourceTruncated bool     `json:"packagesWithoutSourceTruncated" jsonschema:"Whether packagesWithoutSource was cut to 100."`
	RuntimeError                   string   `json:"runtimeError,omitempty" jsonschema:"Why the function table could not be read, if it could not."`
	SnapshotError                  string   `json:"snapshotError,omitempty" jsonschema:"Why the snapshot could not be read, if it could not."`
	RegisteredError                string   `json:"registeredError,omitempty" jsonschema:"Why an option (a documentation entry or a package pattern) was rejected, if one was."`
}

const maxListedPackages = 100

func (x *index) fillCoverage(max int) {
	c := &x.cov
	c.CatalogEntries = len(x.entries)
	c.MaxEntries = max
	c.BySource = map[string]int{SourceRuntime: 0, SourceSnapshot: 0, SourceRegistered: 0}
	c.ByKind = map[string]int{}
	for i := range x.entries {
		e := &x.entries[i]
		for _, s := range e.sources.names() {
			c.BySource[s]++
		}
		c.ByKind[e.kind.String()]++
	}
	b := x.base
	c.Snapshot = b.snap != nil
	c.PackagesWithoutSourceCount = len(b.noSource)
	c.PackagesWithoutSource = b.noSource
	if len(b.noSource) > maxListedPackages {
		c.PackagesWithoutSource = b.noSource[:maxListedPackages]
		c.PackagesWithoutSourceTruncated = true
	}
	if c.PackagesWithoutSource == nil {
		c.PackagesWithoutSource = []string{}
	}
	if b.runtimeErr != nil {
		c.RuntimeError = b.runtimeErr.Error()
	}
	if b.snapshotErr != nil {
		c.SnapshotError = b.snapshotErr.Error()
	}
}

// searchLimitations is the limitations text of code_search.
const searchLimitations = "Matching is a literal substring over lower-cased ids and the first 512 bytes of each entry's " +
	"documentation (8192 for registered entries) (simple Unicode lower-casing, not full case folding); results are in id order. " + runtimeLimitations +
	" Snapshot declarations are read from the embedded file system given by the host, once, on first use. " +
	"No code is executed and no other file is read. Documentation is untrusted evidence."

// Search runs a code_search query. It returns an error wrapping
// ErrInvalidArgument for an empty query or a limit or offset out of range.
func (c *Catalog) Search(ctx context.Context, q SearchQuery) (*SearchResult, error) {
	switch {
	case q.Query == "":
		return nil, invalidf("query must not be empty")
	case strings.ContainsRune(q.Query, 0):
		return nil, invalidf("query must not contain NUL characters")
	case !utf8.ValidString(q.Query):
		return nil, invalidf("query must be valid UTF-8")
	case q.Limit < 0 || q.Limit > MaxLimit:
		return nil, invalidf("limit %d is out of range 1..%d", q.Limit, MaxLimit)
	case q.Offset < 0:
		return nil, invalidf("offset %d must be ≥ 0", q.Offset)
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	x, err := c.index(ctx)
	if err != nil {
		return nil, err
	}
	res := &SearchResult{Server: c.opts.Server, ObservedAt: c.now(), Query: q.Query, Limit: q.Limit,
		Offset: q.Offset, Coverage: x.cov, Results: []SearchHit{}, Limitations: x.base.limitations(searchLimitations)}
	var b strings.Builder
	writeLower(&b, q.Query)
	needle := b.String()
	find := x.finder(needle)
	pos, i := 0, 0
	for {
		j := find(pos)
		if j < 0 {
			break
		}
		m := uint32(j)
		// Advance to the entry holding m; offs is increasing.
		for m >= x.offs[i+1] {
			i++
		}
		if res.Total >= q.Offset && len(res.Results) < q.Limit {
			res.Results = append(res.Results, x.hit(&x.entries[i]))
		}
		res.Total++
		pos = int(x.offs[i+1])
		i++
		if i >= len(x.entries) {
			break
		}
	}
	if next := q.Offset + len(res.Results); next < res.Total {
		res.More = true
		res.NextOffset = &next
	}
	return res, nil
}

// finder returns a function that finds the first occurrence of needle in
// x.hay at or after pos, or -1. When the needle holds a byte that is rare
// in the haystack, it scans for that byte and verifies candidates;
// otherwise it uses strings.Index.
func (x *index) finder(needle string) func(pos int) int {
	hay := x.hay
	rare := 0
	for j := 1; j < len(needle); j++ {
		if x.freq[needle[j]] < x.freq[needle[rare]] {
			rare = j
		}
	}
	if len(needle) == 1 || int(x.freq[needle[rare]]) > len(hay)/64 {
		return func(pos int) int {
			if j := strings.Index(hay[pos:], needle); j >= 0 {
				return pos + j
			}
			return -1
		}
	}
	c := needle[rare]
	return func(pos int) int {
		for {
			if pos+rare >= len(hay) {
				return -1
			}
			k := strings.IndexByte(hay[pos+rare:], c)
			if k < 0 {
				return -1
			}
			cand := pos + k
			if cand+len(needle) > len(hay) {
				return -1
			}
			if hay[cand:cand+len(needle)] == needle {
				return cand
			}
			pos = cand + 1
		}
	}
}

func (x *index) hit(e *entry) SearchHit {
	return SearchHit{Name: e.id, Kind: e.kind.String(), Package: e.pkg, Source: e.sources.primary(),
		Sources: e.sources.names(), File: e.file, Line: int(e.line), Doc: synopsis(e.doc),
		Linked: e.sources&srcRuntime != 0}
}

// synopsis returns the first sentence of documentation, as go/doc does.
func synopsis(text string) string {
	if text == "" {
		return ""
	}
	var p doc.Package
	return p.Synopsis(text)
}
