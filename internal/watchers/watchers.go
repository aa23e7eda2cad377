// Package watchers keeps the functions registered by a Watch method (a
// ToolSet's, a task store's) and hands them out in the order they were
// registered, so that every notifier of the library keeps its watchers
// the same way.
package watchers

import (
	"maps"
	"slices"
	"sync"
)

// A Set holds watchers of type F (a func type). Its zero value is an empty
// set, ready for use; it is safe for concurrent use.
type Set[F any] struct {
	mu   sync.Mutex
	fns  map[uint64]F
	next uint64
}

// Add registers fn and returns the function that removes it again; calling
// remove more than once does nothing more.
func (s *Set[F]) Add(fn F) (remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fns == nil {
		s.fns = map[uint64]F{}
	}
	id := s.next
	s.next++
	s.fns[id] = fn
	return func() {
		s.mu.Lock()
		delete(s.fns, id)
		s.mu.Unlock()
	}
}

// List returns the watchers registered now, in the order they were added.
// The caller calls them without any lock of the set held, so that a
// watcher may add or remove watchers.
func (s *Set[F]) List() []F {
	s.mu.Lock()
	defer s.mu.Unlock()
	fns := make([]F, 0, len(s.fns))
	for _, id := range slices.Sorted(maps.Keys(s.fns)) {
		fns = append(fns, s.fns[id])
	}
	return fns
}

// Len returns the number of watchers registered.
func (s *Set[F]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.fns)
}
