package nav

import (
	"encoding/binary"
	"math/bits"
)

// packed is an immutable array of unsigned integers stored in as many
// bits each as the largest needs (at most 32): the reference table's
// columns of symbol, site and line numbers take a half or less of what
// int32 slices would.
type packed struct {
	data  []byte // width bits per value, then 8 bytes of padding
	width uint8
	n     int
}

// packValues returns vals packed.
func packValues(vals []uint32) packed {
	var most uint32
	for _, v := range vals {
		most = max(most, v)
	}
	p := packed{width: uint8(max(bits.Len32(most), 1)), n: len(vals)}
	p.data = make([]byte, (len(vals)*int(p.width)+7)/8+8)
	for i, v := range vals {
		bit := uint(i) * uint(p.width)
		w := binary.LittleEndian.Uint64(p.data[bit>>3:])
		binary.LittleEndian.PutUint64(p.data[bit>>3:], w|uint64(v)<<(bit&7))
	}
	return p
}

// at returns value i.
func (p *packed) at(i int) uint32 {
	bit := uint(i) * uint(p.width)
	w := binary.LittleEndian.Uint64(p.data[bit>>3:])
	return uint32(w>>(bit&7)) & (1<<p.width - 1)
}

// len returns the number of values.
func (p *packed) len() int { return p.n }

// size returns the bytes p holds.
func (p *packed) size() uint64 { return uint64(cap(p.data)) }

// search returns the smallest i in [lo, hi) with f(p.at(i)) true, or hi
// (sort.Search over a range of p).
func (p *packed) search(lo, hi int, f func(v uint32) bool) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if !f(p.at(m)) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
