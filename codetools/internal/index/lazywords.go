package index

import (
	"cmp"
	"context"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/codeindex"
	"slices"
	"strings"
	"sync"
)

// LazyWords holds the search words built so far for a snapshot without
// them.
type LazyWords struct {
	snap *snapshot.Snapshot
	// files lists the Go files of each package, in compile order (which
	// numbers its init functions as mcpsnapshot does).
	files map[string][]int32

	mu sync.Mutex
	// built maps each package built to its declarations' words by
	// entry id; a package's map is not changed once stored.
	built map[string]map[string]string
	// first is the number of packages the first search index built.
	first int

	once sync.Once
	done chan struct{} // closed once every package is built and indexed
}

// NewLazyWords returns the lazy words of s, or nil if s has words or is
// nil.
func NewLazyWords(s *snapshot.Snapshot) *LazyWords {
	if s == nil || s.Words {
		return nil
	}
	l := &LazyWords{snap: s, files: map[string][]int32{}, built: map[string]map[string]string{}, done: make(chan struct{})}
	for fi := range s.GoFiles {
		f := &s.Files[fi]
		l.files[f.Pkg] = append(l.files[f.Pkg], int32(fi))
	}
	return l
}

// build computes the words of the declarations of package pkg, unless
// they are built already.
func (l *LazyWords) build(pkg string) {
	l.mu.Lock()
	_, ok := l.built[pkg]
	l.mu.Unlock()
	if ok {
		return
	}
	words := map[string]string{}
	srcs := make([]codeindex.Source, 0, len(l.files[pkg]))
	for _, fi := range l.files[pkg] {
		data, err := l.snap.ReadFile(fi, nil)
		if err != nil {
			continue // left out of the catalog at load already
		}
		f := &l.snap.Files[fi]
		srcs = append(srcs, codeindex.Source{Path: f.Path, Name: f.Name, Src: data})
	}
	if parsed, err := codeindex.ParsePackage(srcs); err == nil {
		for _, f := range parsed {
			for _, d := range f.Decls {
				if d.Words != "" && d.Kind != codeindex.Package {
					words[DeclID(pkg, d.Name)] = d.Words
				}
			}
		}
	}
	l.mu.Lock()
	if _, ok := l.built[pkg]; !ok {
		l.built[pkg] = words
	}
	l.mu.Unlock()
}

// Count returns the number of packages built so far, and the number
// the first search index built.
func (l *LazyWords) Count() (built, first int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.built), l.first
}

// WordsOf returns, for buildTerms, the function that gives the search
// words of an entry of x ("" and false for none). Over a snapshot
// without words, it first builds the words of the packages of the main
// scope (scopes holds the scope of each entry), once.
func (x *Index) WordsOf(scopes []Scope) func(i int, e *Entry) (string, bool) {
	s := x.Base.Snap
	l := x.Base.Lazy
	b := x.Base
	if l == nil && b.Pre != nil {
		// The entries hold no words: the search file indexed them. An
		// index built anew (a registered document on a declaration) reads
		// them back, once.
		return func(_ int, e *Entry) (string, bool) {
			if e.Snap < 0 {
				return "", false
			}
			b.wordsOnce.Do(func() { b.words = readSnapWords(s) })
			w := b.words[e.ID]
			return w, w != "" || s.Words
		}
	}
	if l == nil {
		return func(i int, e *Entry) (string, bool) {
			w := ""
			if b.Words != nil && e.Snap >= 0 {
				// Entry i of x is entry i of the base, unless registered
				// documents were merged in.
				j := i
				if j >= len(b.Entries) || b.Entries[j].ID != e.ID {
					j = -1
					if f, ok := LookupEntry(b.Entries, e.ID); ok {
						j = b.EntryIndex(f)
					}
				}
				if j >= 0 && j < len(b.Words) {
					w = b.Words[j]
				}
			}
			return w, w != "" || e.Snap >= 0 && s != nil && s.Words
		}
	}
	l.mu.Lock()
	first := len(l.built) == 0 && l.first == 0
	l.mu.Unlock()
	if first {
		main := map[string]bool{}
		for i := range x.Entries {
			if e := &x.Entries[i]; scopes[i] == ScopeMain && e.Snap >= 0 && e.Kind != KindPackage {
				main[e.Pkg] = true
			}
		}
		for p := range main {
			l.build(p)
		}
		l.mu.Lock()
		l.first = len(main)
		l.mu.Unlock()
	}
	l.mu.Lock()
	built := make(map[string]map[string]string, len(l.built))
	for p, m := range l.built {
		built[p] = m
	}
	l.mu.Unlock()
	return func(_ int, e *Entry) (string, bool) {
		m, ok := built[e.Pkg]
		if !ok || e.Snap < 0 {
			return "", false
		}
		w, ok := m[e.ID]
		return w, ok
	}
}

// ContinueAll builds, once and in the background, the words of the
// packages of x outside the standard library that are not built yet, best
// prior first, then calls rebuild.
func (l *LazyWords) ContinueAll(x *Index, rebuild func()) {
	l.once.Do(func() {
		// The packages outside the standard library, best prior first.
		tier := map[string]uint8{}
		for i := range x.Entries {
			e := &x.Entries[i]
			if e.Snap < 0 || e.Kind == KindPackage || x.Search.Scope[i] == ScopeStd {
				continue
			}
			if t, ok := tier[e.Pkg]; !ok || x.Search.Tier[i] < t {
				tier[e.Pkg] = x.Search.Tier[i]
			}
		}
		l.mu.Lock()
		var pending []string
		for p := range tier {
			if _, ok := l.built[p]; !ok {
				pending = append(pending, p)
			}
		}
		l.mu.Unlock()
		slices.SortFunc(pending, func(a, b string) int {
			return cmp.Or(cmp.Compare(tier[a], tier[b]), cmp.Compare(a, b))
		})
		if len(pending) == 0 {
			close(l.done)
			return
		}
		go func() {
			defer close(l.done)
			for _, p := range pending {
				l.build(p)
			}
			rebuild()
		}()
	})
}

// Wait waits until every package is built and indexed, or ctx ends.
func (l *LazyWords) Wait(ctx context.Context) error {
	select {
	case <-l.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// EntryIndex returns the index of e, an entry of b.Entries.
func (b *Base) EntryIndex(e *Entry) int {
	i, _ := slices.BinarySearchFunc(b.Entries, e.ID, func(a Entry, id string) int { return strings.Compare(a.ID, id) })
	return i
}
