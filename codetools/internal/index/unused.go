package index

// UnusedTypes returns the entries of the host's and its dependencies'
// types that the running binary does not use, as a bit set by entry
// index: each type of the snapshot with methods none of which is linked
// or inlined, with those methods and the type's fields; and the entries
// of packages it does not use, or barely (unusedPkgMinFuncs). Interfaces
// have no code to link and are unused only with their package. It
// returns nil when no entry is linked (no function table could be read),
// when every type would look unused.
func UnusedTypes(entries []Entry, scopes []Scope) []uint64 {
	type typeKey struct{ pkg, name string }
	linked := map[typeKey]bool{} // by type with methods: whether one is linked
	any := false
	for i := range entries {
		e := &entries[i]
		any = any || e.Sources&SrcRuntime != 0
		if e.Kind == KindMethod && !e.Member && e.Snap >= 0 && scopes[i] != ScopeStd {
			k := typeKey{e.Pkg, ReceiverOf(e)}
			linked[k] = linked[k] || e.Sources&SrcRuntime != 0
		}
	}
	if !any {
		return nil
	}
	pkgs := linkedShares(entries, scopes)
	var set []uint64
	mark := func(i int) {
		if set == nil {
			set = make([]uint64, (len(entries)+63)/64)
		}
		set[i/64] |= 1 << (i % 64)
	}
	for i := range entries {
		e := &entries[i]
		if e.Snap < 0 || scopes[i] == ScopeStd {
			continue
		}
		if c, ok := pkgs[e.Pkg]; ok && c.funcs >= UnusedPkgMinFuncs {
			switch {
			case c.linked == 0:
				mark(i) // a package the binary does not link
				continue
			case (e.Kind == KindConst || e.Kind == KindVar) && c.linked*UnusedPkgRatio < c.funcs:
				mark(i) // a value of a package the binary barely uses
				continue
			}
		}
		var k typeKey
		switch {
		case e.Kind == KindType:
			k = typeKey{e.Pkg, EntryName(e)}
		case e.Kind == KindMethod || e.Member:
			k = typeKey{e.Pkg, ReceiverOf(e)}
		default:
			continue
		}
		if l, ok := linked[k]; ok && !l {
			mark(i)
		}
	}
	return set
}

// Packages the running binary does not use, or barely: of a package with
// at least unusedPkgMinFuncs functions and methods in the snapshot, every
// entry is unused when none of them is linked, and its constants and
// variables are when fewer than one in unusedPkgRatio is (x/sys/unix,
// whose thousands of constants, NL80211_CMD_DISCONNECT or
// DEVLINK_ATTR_INFO_SERIAL_NUMBER, held the words of questions about a
// CoAP or DNS server). Both raised the fourteen tuning sets of searcheval
// from 395 to 400 of 701 in the top 1 and from 530 to 531 in the top 3.
const (
	UnusedPkgMinFuncs = 20
	UnusedPkgRatio    = 20
)

// pkgLinks counts the functions and methods of a package and how many of
// them the running binary links.
type pkgLinks struct{ funcs, linked int }

// linkedShares returns, by package of the host and its dependencies, how
// many of its functions and methods the snapshot holds and how many of
// them are linked.
func linkedShares(entries []Entry, scopes []Scope) map[string]pkgLinks {
	out := map[string]pkgLinks{}
	for i := range entries {
		e := &entries[i]
		if e.Snap < 0 || scopes[i] == ScopeStd || e.Member || (e.Kind != KindFunc && e.Kind != KindMethod) {
			continue
		}
		c := out[e.Pkg]
		c.funcs++
		if e.Sources&SrcRuntime != 0 {
			c.linked++
		}
		out[e.Pkg] = c
	}
	return out
}

// IsUnused reports whether entry i is in the set UnusedTypes returns.
func IsUnused(set []uint64, i int) bool {
	return set != nil && set[i/64]&(1<<(i%64)) != 0
}
