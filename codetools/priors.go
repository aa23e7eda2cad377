package codetools

import (
	"sort"
)

// exactID returns the entry whose id is s, or that a function symbol s of
// the running binary (a closure, a method value) was attributed to.
func (x *coreIndex) exactID(s string) (int, bool) {
	i := sort.Search(len(x.entries), func(i int) bool { return x.entries[i].ID >= s })
	if i < len(x.entries) && x.entries[i].ID == s {
		return i, true
	}
	if e, ok := x.lookupSymbol(s); ok {
		return x.exactID(e.ID)
	}
	return 0, false
}
