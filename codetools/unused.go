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
// or inlined, with those methods and the type's fields. Interfaces have
// no code to link and are never unused. It returns nil
// when no entry is linked (no function table could be read), when every
// type would look unused.
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
	var set []uint64
	for i := range entries {
		e := &entries[i]
		if e.snap < 0 || scopes[i] == scStd {
			continue
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
			if set == nil {
				set = make([]uint64, (len(entries)+63)/64)
			}
			set[i/64] |= 1 << (i % 64)
		}
	}
	return set
}

// isUnused reports whether entry i is in the set of unusedTypes.
func isUnused(set []uint64, i int) bool {
	return set != nil && set[i/64]&(1<<(i%64)) != 0
}
