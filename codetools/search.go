package codetools

import (
	"context"
	"go/doc"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
)

// SearchQuery holds the code_search arguments.
type SearchQuery struct {
	// Query is a name, a fragment of one, a phrase, a file name or a
	// file:line (as a stack trace prints it). Required.
	Query string `json:"query"`
	// Kind keeps entries of these kinds: one kind or several separated by
	// commas (func, method, type, field, var, const, package, doc, tool); ""
	// keeps every kind.
	Kind string `json:"kind,omitempty"`
	// Scope keeps entries of the host's main module (main), of the other
	// modules of the build (deps), of the standard library (std) or of all
	// three (all); "" means main and deps.
	Scope string `json:"scope,omitempty"`
	// Package keeps entries whose import path is Package, is under it, or
	// holds it as whole path elements ("codetools", "embedmcp/mcp").
	Package string `json:"package,omitempty"`
	// Packages asks for the list of the catalog's packages in the answer.
	Packages bool `json:"packages,omitempty"`
	// Limit is the page size, 1..MaxLimit; 0 means DefaultLimit.
	Limit int `json:"limit,omitempty"`
	// Offset is the number of matches to skip; ≥ 0.
	Offset int `json:"offset,omitempty"`
}

// Values of SearchResult.Match.
const (
	MatchLiteral = "literal"
	MatchTerms   = "terms"
	MatchFile    = "file"
)

// SearchResult is the code_search answer.
type SearchResult struct {
	// Match says how the query was matched: literal (a case-insensitive
	// substring of ids and documentation, ranked), terms (the words of
	// the query, ranked with BM25F over names, documentation, package
	// paths and file names) or file (a file name or file:line).
	Match string `json:"match" jsonschema:"How the query matched: literal (substring, ranked), terms (words, ranked) or file (a file's declarations)."`
	// Scope is the scope searched: main+deps, main, deps, std or all.
	Scope string `json:"scope" jsonschema:"Scopes searched: main+deps (default), main, deps, std or all."`
	// Total is the number of matching entries.
	Total int  `json:"total" jsonschema:"Number of matching entries."`
	More  bool `json:"more" jsonschema:"Whether more matches follow this page."`
	// NextOffset is the offset of the next page, if More.
	NextOffset *int `json:"nextOffset,omitempty" jsonschema:"Offset of the next page; present when more is true."`
	// Results is never nil.
	Results []SearchHit `json:"results" jsonschema:"Matches of this page, best first."`
	// Note explains a widened scope or a fallback.
	Note string `json:"note,omitempty" jsonschema:"How the answer was widened, if it was."`
	// Limitations says what the answer could not see: a snapshot that is
	// not used or a function table that could not be read; empty otherwise.
	Limitations string   `json:"limitations,omitempty" jsonschema:"What this answer could not see (snapshot or function table problems); absent when nothing is missing."`
	Coverage    Coverage `json:"coverage" jsonschema:"What the catalog holds, as counts."`
	// PackageList lists the catalog's packages in the scope searched (at
	// most 200), when the query asked for it.
	PackageList []PackageInfo `json:"packageList,omitempty" jsonschema:"Packages of the scope searched, when asked with packages:true."`
}

// SearchHit is one code_search match. The text listing of the answer
// adds the first sentence of each hit's documentation.
type SearchHit struct {
	// Name is the exact id to pass to code_definition.
	Name string `json:"id" jsonschema:"Exact id to pass to code_definition."`
	Kind string `json:"kind" jsonschema:"func, method, type, field, var, const, package, doc or tool."`
	// At is the declaration's position, file:line, the file as its base
	// name: its directory is the package's. It is a valid code_search query.
	At string `json:"at,omitempty" jsonschema:"Position of the declaration: file:line, the file in the entry's package."`
	// Route is the HTTP route a handler serves, in a route search.
	Route string `json:"route,omitempty" jsonschema:"The HTTP route the handler serves (route searches)."`
	doc   string // first sentence of the documentation, for the listing
	pkg   string // import path, for the listing
}

// Coverage describes what the catalog holds, as counts.
type Coverage struct {
	Entries  int `json:"entries" jsonschema:"Entries in the catalog."`
	Main     int `json:"main" jsonschema:"Entries of the host's main module (and registered entries)."`
	Deps     int `json:"deps" jsonschema:"Entries of the other modules of the build."`
	Std      int `json:"std" jsonschema:"Entries of the standard library."`
	Packages int `json:"packages" jsonschema:"Packages with entries."`
	// NoSnapshot reports that no source snapshot is embedded.
	NoSnapshot bool `json:"noSnapshot,omitempty" jsonschema:"True when no source snapshot is embedded: only runtime metadata."`
	// Truncated reports that entries were dropped to keep MaxEntries;
	// DroppedEntries counts them and TruncationRule says which.
	Truncated       bool   `json:"truncated,omitempty" jsonschema:"Whether entries were dropped to keep the bound."`
	DroppedEntries  int    `json:"droppedEntries,omitempty" jsonschema:"Entries dropped to keep the bound."`
	TruncationRule  string `json:"truncationRule,omitempty" jsonschema:"Rule that picked the kept entries, when truncated."`
	RuntimeError    string `json:"runtimeError,omitempty" jsonschema:"Why the function table could not be read, if it could not."`
	SnapshotError   string `json:"snapshotError,omitempty" jsonschema:"Why the snapshot could not be read, if it could not."`
	RegisteredError string `json:"registeredError,omitempty" jsonschema:"Why a documentation entry given in the options was rejected, if one was."`
}

// PackageInfo is one package of a package list.
type PackageInfo struct {
	Path    string `json:"path" jsonschema:"Import path."`
	Scope   string `json:"scope" jsonschema:"main, deps or std."`
	Entries int    `json:"entries" jsonschema:"Entries of the package in the catalog."`
	// Source reports whether the snapshot holds the package's source.
	Source bool `json:"source" jsonschema:"Whether the snapshot holds the package's source."`
}

// Bounds of the search answers and arguments.
const (
	// MaxQueryBytes bounds SearchQuery.Query.
	MaxQueryBytes = 1000
	// maxListedPackages bounds SearchResult.PackageList.
	maxListedPackages = 200
	// maxHitDoc bounds the documentation of a hit in the listing.
	maxHitDoc = 48
	// maxPackageArg bounds SearchQuery.Package.
	maxPackageArg = 300
)

func (x *catalogIndex) fillCoverage() {
	c := &x.cov
	si := &x.Search
	c.Entries = len(x.Entries)
	c.Main, c.Deps, c.Std = si.Counts[index.ScopeMain], si.Counts[index.ScopeDeps], si.Counts[index.ScopeStd]
	c.Packages = si.Packages
	b := x.base
	c.NoSnapshot = b.Snap == nil
	if !c.Truncated {
		c.TruncationRule = ""
	}
	if b.RuntimeErr != nil {
		c.RuntimeError = b.RuntimeErr.Error()
	}
	if b.SnapshotErr != nil {
		c.SnapshotError = b.SnapshotErr.Error()
	}
}

// Search runs a code_search query. It returns an error wrapping
// ErrInvalidArgument for a blank, too long or malformed query, an unknown
// kind or scope, or a limit or offset out of range; the error names what
// is wrong and the valid values, and repeats at most 200 bytes of an
// argument.
func (c *Catalog) Search(ctx context.Context, q SearchQuery) (*SearchResult, error) {
	query := strings.TrimSpace(q.Query)
	switch {
	case query == "":
		return nil, invalidf("query must not be empty: give a name, a fragment of one, a phrase, a file name or file:line")
	case len(q.Query) > MaxQueryBytes:
		return nil, invalidf("query is %d bytes long; at most %d are accepted (a name, a phrase, a file name or a stack-trace line)",
			len(q.Query), MaxQueryBytes)
	case strings.ContainsRune(q.Query, 0):
		return nil, invalidf("query must not contain NUL characters")
	case !utf8.ValidString(q.Query):
		return nil, invalidf("query must be valid UTF-8")
	case controlAt(q.Query) >= 0:
		return nil, invalidf("query must be text: it holds control character %U at byte %d (binary data is not searched)",
			q.Query[controlAt(q.Query)], controlAt(q.Query))
	case q.Limit < 0 || q.Limit > MaxLimit:
		return nil, invalidf("limit %d is out of range 1..%d", q.Limit, MaxLimit)
	case q.Offset < 0:
		return nil, invalidf("offset %d must be ≥ 0", q.Offset)
	case len(q.Package) > maxPackageArg || strings.ContainsRune(q.Package, 0) || !utf8.ValidString(q.Package):
		return nil, invalidf("package must be an import path or its last elements, at most %d bytes of valid UTF-8", maxPackageArg)
	}
	if res, ok, err := c.routeSearch(ctx, q); ok || err != nil {
		return res, err // routes.go
	}
	f := search.Filter{Pkg: strings.TrimSpace(q.Package), Widen: strings.TrimSpace(q.Scope) == ""}
	f.Library = f.Pkg != "" || index.NamesLibrary(query)
	var ok bool
	if f.Scopes, ok = search.ParseScope(strings.TrimSpace(q.Scope)); !ok {
		return nil, invalidf("unknown scope %q: use main, deps, std, all or routes (default: main and deps)", echoArg(q.Scope))
	}
	if strings.TrimSpace(q.Kind) != "" {
		for _, k := range strings.Split(q.Kind, ",") {
			kk, ok := index.ParseKind(strings.TrimSpace(k))
			if !ok {
				return nil, invalidf("unknown kind %q: use %s, or several separated by commas", echoArg(k), strings.Join(index.KindNames[:], ", "))
			}
			f.Kinds |= 1 << kk
		}
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	x, err := c.index(ctx)
	if err != nil {
		return nil, err
	}
	res := &SearchResult{Coverage: x.cov, Results: []SearchHit{}, Limitations: strings.TrimSpace(x.base.limitations(""))}
	k := q.Offset + q.Limit
	if c.opts.Embedder != nil && search.IsPhrase(query) {
		k = max(k, search.FuseDepth)
	}
	keys, total, match, note := search.Searcher{Index: x.Index}.Answer(query, &f, k)
	if match == MatchTerms && total > 0 && c.opts.Embedder != nil && search.IsPhrase(query) {
		// A phrase nothing matches by words stays unmatched: the nearest
		// vectors of nonsense are noise.
		fused, n := search.Searcher{Index: x.Index}.Fuse(ctx, c.opts.Embedder, query, *keys, &f, &x.dense,
			func() (*search.PreVectors, string) { return x.base.vectors(c.opts.Embedder) })
		*keys, total = fused, max(total, len(fused))
		if n != "" {
			note = strings.TrimPrefix(note+"; "+n, "; ")
		}
	}
	*keys = (*keys)[:min(len(*keys), q.Offset+q.Limit)]
	res.Match, res.Total, res.Note, res.Scope = match, total, note, f.Scopes.String()
	for i := q.Offset; i < len(*keys); i++ {
		res.Results = append(res.Results, renderer{x}.hit(search.KeyEntry((*keys)[i])))
	}
	*keys = (*keys)[:0]
	search.KeyPool.Put(keys)
	if next := q.Offset + len(res.Results); next < res.Total {
		res.More = true
		res.NextOffset = &next
	}
	if q.Packages {
		res.PackageList = renderer{x}.packageList(&f)
	}
	return res, nil
}

// hit returns the search hit of entry i.
func (x renderer) hit(i int) SearchHit {
	e := &x.Entries[i]
	h := SearchHit{Name: e.ID, Kind: e.Kind.String(), pkg: e.Pkg, doc: firstSentence(trimSubject(x.DocOf(i), index.EntryName(e)), maxHitDoc)}
	if f := x.FileOf(e); f != "" {
		h.At = path.Base(f)
		if e.Line > 0 {
			h.At += ":" + strconv.Itoa(int(e.Line))
		}
	}
	return h
}

// packageList lists the packages of the catalog that f accepts, by scope
// then path.
func (x renderer) packageList(f *search.Filter) []PackageInfo {
	type pkgInfo struct {
		sc index.Scope
		n  int
	}
	pkgs := map[string]*pkgInfo{}
	var order []string
	for i := range x.Entries {
		e := &x.Entries[i]
		sc := x.Search.Scope[i]
		if e.Pkg == "" || !f.Scopes.Has(sc) || f.Pkg != "" && !search.PackageMatches(e.Pkg, f.Pkg) {
			continue
		}
		p := pkgs[e.Pkg]
		if p == nil {
			p = &pkgInfo{sc: sc}
			pkgs[e.Pkg] = p
			order = append(order, e.Pkg)
		}
		p.n++
	}
	slices.SortFunc(order, func(a, b string) int {
		if d := int(pkgs[a].sc) - int(pkgs[b].sc); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	if len(order) > maxListedPackages {
		order = order[:maxListedPackages]
	}
	out := make([]PackageInfo, 0, len(order))
	for _, p := range order {
		out = append(out, PackageInfo{Path: p, Scope: search.ScopeNames[pkgs[p].sc], Entries: pkgs[p].n,
			Source: x.base.Snap != nil && x.base.Snap.Pkgs[p]})
	}
	return out
}

// trimSubject drops the subject of a Go doc comment that starts with the
// declaration's name ("Handle serves ..." → "serves ..."; "A Handler
// serves ..." and "Package handler serves ..." → "serves ..."): the
// listing shows the name already.
func trimSubject(doc, name string) string {
	for _, article := range []string{"", "A ", "An ", "The ", "Package ", "Command "} {
		if rest, ok := strings.CutPrefix(doc, article+name+" "); ok && rest != "" {
			return rest
		}
	}
	return doc
}

// firstSentence returns the first sentence of documentation, as go/doc
// finds it, cut to at most max bytes after a whole word.
func firstSentence(text string, max int) string {
	if text == "" {
		return ""
	}
	var p doc.Package
	s := p.Synopsis(text)
	if len(s) <= max {
		return s
	}
	// The last space that leaves room for the mark, if it keeps more than
	// half; else a cut inside the (long) word.
	cut := strings.LastIndexByte(s[:max-len("…")+1], ' ')
	if cut < max/2 {
		return index.CutText(s, max)
	}
	return strings.TrimRight(s[:cut], " ,;:(") + "…"
}

// echoArg cuts an argument for an error message to maxEcho bytes.
func echoArg(s string) string { return search.Clip(s, index.MaxEcho) }

// controlAt returns the offset of the first control character of s other
// than white space (tab, newline, carriage return), or -1.
func controlAt(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return i
		}
	}
	return -1
}

// Scopes of catalog entries: the host's main module, the other modules of
// the build, and the standard library.
const (
	ScopeMain = "main"
	ScopeDeps = "deps"
	ScopeStd  = "std"
	ScopeAll  = "all"
)
