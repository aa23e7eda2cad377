package search

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
)

// Ranked returns up to maxCandidates ids of the given entries, closest
// first: by scope (main module first), then shorter id.
func (x Searcher) Ranked(is []int32) []string {
	top := topK{k: index.MaxCandidates}
	for _, i := range is {
		top.push(x.rankKey(tierExact, int(i)))
	}
	var out []string
	for _, k := range top.sorted() {
		out = append(out, x.Entries[KeyEntry(k)].ID)
	}
	return out
}

// Candidates returns up to maxCandidates ids close to an unknown name: the
// literal matches of its last element in every scope, ranked, or else the
// term matches of its words.
func (x Searcher) Candidates(name string) []string {
	top := topK{k: index.MaxCandidates}
	f := Filter{Scopes: allScopes}
	lq := NewLiteralQuery(name)
	if lq.Qualified {
		lq = NewLiteralQuery(lq.Name)
	}
	if x.literal(&lq, &f, top.push) == 0 {
		x.termSearch(x.QueryTerms(name), "", nil, &f, top.k, top.push)
	}
	var out []string
	for _, k := range top.sorted() {
		out = append(out, x.Entries[KeyEntry(k)].ID)
	}
	return out
}

// DropMembers drops the fields and interface methods of found when it
// holds other declarations: a short name means the declaration of that
// name before a member of another type.
func (x Searcher) DropMembers(found []int32) []int32 {
	decls := 0
	for _, i := range found {
		if !x.Entries[i].Member {
			decls++
		}
	}
	if decls == 0 || decls == len(found) {
		return found
	}
	out := found[:0]
	for _, i := range found {
		if !x.Entries[i].Member {
			out = append(out, i)
		}
	}
	return out
}
