package codetools

// unusedPrior scales the term score of a type that the running binary
// does not use, and of its methods and fields (unusedTypes): a library
// that is both client and server (x/crypto/ssh, pkg/sftp, a Modbus or
// SMTP package) links only the side its host uses, and a question about
// a running server ("the client's path against the start directory",
// "the largest number of coils one read may ask for") is about that side,
// though the other holds the same words. Functions are not lowered: an
// option function the host does not call (WithMaxTxPacket) answers a
// question about how to change the service. Against 1, 0.5 raises the ten
// tuning sets of searcheval from 364 to 370 of 458 in the top 3 (0.3:
// 371, 0.7: 370); gofakes3 and this repository's set do not move.
const unusedPrior = 0.5

// unusedTypes returns the entries of the host's and its dependencies'
// types that the running binary does not use, as a bit set by entry
// index: each type of the snapshot with methods none of which is linked
// or inlined, with those methods and the type's fields; and the entries
// of packages it does not use, or barely (unusedPkgMinFuncs). Interfaces
// have no code to link and are unused only with their package. It
// returns nil when no entry is linked (no function table could be read),
// when every type would look unused.
func unusedTypes(entries []entry, scopes []scope) []uint64 {
	type typeKey struct{ pkg, name string }
	linked := map[typeKey]bool{} // by type with methods: whether one is linked
	any := false
	for i := range entries {
		e := &entries[i]
		any = any || e.sources&srcRuntime != 0
		if e.kind == kMethod && !e.member && e.snap >= 0 && scopes[i] != scStd {
			k := typeKey{e.pkg, receiverOf(e)}
			linked[k] = linked[k] || e.sources&srcRuntime != 0
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
		if e.snap < 0 || scopes[i] == scStd {
			continue
		}
		if c, ok := pkgs[e.pkg]; ok && c.funcs >= unusedPkgMinFuncs {
			switch {
			case c.linked == 0:
				mark(i) // a package the binary does not link
				continue
			case (e.kind == kConst || e.kind == kVar) && c.linked*unusedPkgRatio < c.funcs:
				mark(i) // a value of a package the binary barely uses
				continue
			}
		}
		var k typeKey
		switch {
		case e.kind == kType:
			k = typeKey{e.pkg, entryName(e)}
		case e.kind == kMethod || e.member:
			k = typeKey{e.pkg, receiverOf(e)}
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
	unusedPkgMinFuncs = 20
	unusedPkgRatio    = 20
)

// pkgLinks counts the functions and methods of a package and how many of
// them the running binary links.
type pkgLinks struct{ funcs, linked int }

// linkedShares returns, by package of the host and its dependencies, how
// many of its functions and methods the snapshot holds and how many of
// them are linked.
func linkedShares(entries []entry, scopes []scope) map[string]pkgLinks {
	out := map[string]pkgLinks{}
	for i := range entries {
		e := &entries[i]
		if e.snap < 0 || scopes[i] == scStd || e.member || (e.kind != kFunc && e.kind != kMethod) {
			continue
		}
		c := out[e.pkg]
		c.funcs++
		if e.sources&srcRuntime != 0 {
			c.linked++
		}
		out[e.pkg] = c
	}
	return out
}

// isUnused reports whether entry i is in the set of unusedTypes.
func isUnused(set []uint64, i int) bool {
	return set != nil && set[i/64]&(1<<(i%64)) != 0
}
