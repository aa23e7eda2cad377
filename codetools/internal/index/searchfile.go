package index

import (
	"cmp"
	"slices"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/bm25f"
)

// SortByID sorts es by id, stably, drops the later of equal ids, and
// returns them with words and docs (by entry of es; entries past their
// ends have none) in the same order; a nil words or docs stays nil. The
// entries are large: their order is sorted first, and each is then moved
// once, in place.
func SortByID(es []Entry, words, docs []string) ([]Entry, []string, []string) {
	order := make([]int32, len(es))
	// The ids side by side: the sort reads 16 bytes an entry, not a
	// whole entry's cache lines.
	ids := make([]string, len(es))
	for i := range order {
		order[i] = int32(i)
		ids[i] = es[i].ID
	}
	slices.SortFunc(order, func(i, j int32) int {
		if c := strings.Compare(ids[i], ids[j]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	ids = nil
	aux := [2][]string{words, docs}
	for a, s := range aux {
		if s != nil && len(s) < len(es) {
			aux[a] = append(s, make([]string, len(es)-len(s))...)
		}
	}
	// Entry k of the result is es[order[k]]: follow each cycle of the
	// permutation, marking the places filled with -1.
	for k := range order {
		if order[k] < 0 || int(order[k]) == k {
			continue
		}
		e := es[k]
		var held [2]string
		for a, s := range aux {
			if s != nil {
				held[a] = s[k]
			}
		}
		j := k
		for {
			src := int(order[j])
			order[j] = -1
			if src == k {
				es[j] = e
				for a, s := range aux {
					if s != nil {
						s[j] = held[a]
					}
				}
				break
			}
			es[j] = es[src]
			for _, s := range aux {
				if s != nil {
					s[j] = s[src]
				}
			}
			j = src
		}
	}
	n := 0
	for i := range es {
		if n > 0 && es[i].ID == es[n-1].ID {
			continue
		}
		es[n] = es[i]
		for _, s := range aux {
			if s != nil {
				s[n] = s[i]
			}
		}
		n++
	}
	clear(es[n:])
	for a, s := range aux {
		if s != nil {
			clear(s[n:])
			aux[a] = s[:n:n]
		}
	}
	return es[:n:n], aux[0], aux[1]
}

// prebuiltSplit divides the entries of a catalog into those of the
// snapshot's search file, in its order, and the others.
type prebuiltSplit struct {
	pre  *SnapTerms
	snap []int32 // entry of each document of pre
	rest []int32 // the other entries, in order
}

// splitPrebuilt divides the entries of in, or reports false when they
// are not those the search file indexed (a package selection, the entry
// bound, a registered document on a declaration), or there is none.
func splitPrebuilt(in *SearchInput) (prebuiltSplit, bool) {
	pre := in.Pre
	if pre == nil {
		return prebuiltSplit{}, false
	}
	entries := in.Entries
	sp := prebuiltSplit{pre: pre, snap: make([]int32, 0, pre.N)}
	sum := newIDSum()
	for i := range entries {
		e := &entries[i]
		if e.Sources&SrcSnapshot == 0 {
			sp.rest = append(sp.rest, int32(i))
			continue
		}
		if e.Sources&SrcRegistered != 0 || e.Linkage&RtForeign != 0 || len(sp.snap) == pre.N {
			return prebuiltSplit{}, false
		}
		sp.snap = append(sp.snap, int32(i))
		sum.add(e.ID)
	}
	if len(sp.snap) != pre.N || uint64(sum) != pre.IDSum {
		return prebuiltSplit{}, false
	}
	return sp, true
}

// joinPrebuilt returns the term index of the entries of in from the
// snapshot's prebuilt one and one built now for the other entries.
func joinPrebuilt(in *SearchInput, nameOff []uint16, scopes []Scope, sp prebuiltSplit) (*bm25f.Joined, bool) {
	tb := newTermBuilder(in.Entries, nameOff, scopes, in.Words(scopes), in.Doc, in.File)
	for _, i := range sp.rest {
		tb.add(int(i))
	}
	j, err := bm25f.Join(len(in.Entries), bm25f.Part{Index: sp.pre.Index, Docs: sp.snap}, bm25f.Part{Index: tb.b.Build(), Docs: sp.rest})
	if err != nil {
		return nil, false
	}
	return j, true
}

// readSnapWords reads back the search words of the entries of s, by id,
// which LoadSnapshot leaves out when the search file serves; nil if they
// cannot be read (the index then goes without them).
func readSnapWords(s *snapshot.Snapshot) map[string]string {
	// A snapshot of its own: reading the index again changes no state the
	// catalog's answers read.
	s, err := snapshot.Open(s.FS, snapshot.Interner{}, nil)
	if err != nil {
		return nil
	}
	entries, words, _, _, err := loadDecls(s, 1<<31-1, 0, nil, false, true, nil)
	if err != nil {
		return nil
	}
	m := make(map[string]string, len(entries))
	for i := range entries {
		e := &entries[i]
		if _, seen := m[e.ID]; !seen {
			m[e.ID] = words[i] // the first of equal ids, as the catalog keeps
		}
	}
	return m
}
