package watchers

import (
	"slices"
	"sync"
	"testing"
)

func TestSetOrderAndRemove(t *testing.T) {
	var s Set[func() int]
	if got := s.List(); len(got) != 0 {
		t.Fatalf("zero Set lists %d watchers", len(got))
	}
	var removes []func()
	for i := range 5 {
		removes = append(removes, s.Add(func() int { return i }))
	}
	removes[1]()
	removes[1]() // a second remove does nothing more
	removes[3]()
	var got []int
	for _, fn := range s.List() {
		got = append(got, fn())
	}
	if want := []int{0, 2, 4}; !slices.Equal(got, want) {
		t.Fatalf("watchers called in order %v, want %v", got, want)
	}
	if n := s.Len(); n != 3 {
		t.Errorf("Len = %d, want 3", n)
	}
	// A watcher added after a removal comes last.
	s.Add(func() int { return 9 })
	if fns := s.List(); fns[len(fns)-1]() != 9 {
		t.Errorf("the watcher added last is not listed last")
	}
}

func TestSetConcurrent(t *testing.T) {
	var s Set[func()]
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				remove := s.Add(func() {})
				_ = s.List()
				remove()
			}
		}()
	}
	wg.Wait()
	if n := s.Len(); n != 0 {
		t.Fatalf("Len = %d after every watcher was removed, want 0", n)
	}
}
