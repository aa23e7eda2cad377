package codetools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// pclntab decodes the Go function table (pclntab) of Go 1.20 and later,
// the layout every toolchain that can build this package writes. It reads
// what debug/gosym does not expose: each function's declaration line
// (startLine), the lines of its own code, and the ranges of code inlined
// into it (PCDATA_InlTreeIndex).
type pclntab struct {
	data      []byte // the whole table; the funcdata (go:func.*) lies in it
	order     binary.ByteOrder
	quantum   uint32
	nfunc     int
	funcnames []byte
	cutab     []byte
	filetab   []byte
	pctab     []byte
	pcln      []byte
	// noTrees makes decode name inlined functions through the runtime
	// only (a test switch for the fallback).
	noTrees bool
}

const go120Magic = 0xfffffff1

// _func field offsets (runtime/runtime2.go, Go 1.20+).
const (
	fnEntryOff  = 0
	fnNameOff   = 4
	fnPCFile    = 20
	fnPCLine    = 24
	fnNPCData   = 28
	fnCUOffset  = 32
	fnStartLine = 36
	fnNFuncData = 43
	fnSize      = 44

	pcdataInlTreeIndex = 2
	funcdataInlTree    = 3
	inlinedCallSize    = 16 // runtime.inlinedCall
)

var errPclntab = errors.New("malformed function table")

func newPclntab(data []byte) (*pclntab, error) {
	if len(data) < 8 {
		return nil, errPclntab
	}
	t := &pclntab{data: data}
	switch {
	case binary.LittleEndian.Uint32(data) == go120Magic:
		t.order = binary.LittleEndian
	case binary.BigEndian.Uint32(data) == go120Magic:
		t.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("function table format %#x is not Go 1.20's or later's", binary.LittleEndian.Uint32(data))
	}
	t.quantum = uint32(data[6])
	ptr := int(data[7])
	if ptr != 4 && ptr != 8 || t.quantum == 0 || len(data) < 8+8*ptr {
		return nil, errPclntab
	}
	word := func(i int) uint64 {
		if ptr == 4 {
			return uint64(t.order.Uint32(data[8+4*i:]))
		}
		return t.order.Uint64(data[8+8*i:])
	}
	sub := func(i int) ([]byte, error) {
		off := word(i)
		if off > uint64(len(data)) {
			return nil, errPclntab
		}
		return data[off:], nil
	}
	t.nfunc = int(word(0))
	var err error
	for i, p := range [...]*[]byte{&t.funcnames, &t.cutab, &t.filetab, &t.pctab, &t.pcln} {
		if *p, err = sub(3 + i); err != nil {
			return nil, err
		}
	}
	if t.nfunc < 0 || uint64(t.nfunc) > uint64(len(t.pcln))/8 {
		return nil, errPclntab
	}
	return t, nil
}

func (t *pclntab) u32(b []byte, off int) uint32 {
	if off < 0 || off+4 > len(b) {
		panic(errPclntab)
	}
	return t.order.Uint32(b[off:])
}

// entryOff returns the entry offset (from the start of the text) of
// function i; i == nfunc gives the end of the last function.
func (t *pclntab) entryOff(i int) uint32 { return t.u32(t.pcln, 8*i) }

// funcData returns the _func record of function i.
func (t *pclntab) funcData(i int) []byte {
	off := int(t.u32(t.pcln, 8*i+4))
	if off < 0 || off+fnSize > len(t.pcln) {
		panic(errPclntab)
	}
	return t.pcln[off:]
}

// cstring returns the NUL-terminated string at off of b, without copying.
func cstring(b []byte, off uint32) []byte {
	if uint64(off) >= uint64(len(b)) {
		panic(errPclntab)
	}
	b = b[off:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	panic(errPclntab)
}

// fileName returns file number fno of the compilation unit at cu.
func (t *pclntab) fileName(cu uint32, fno int32) []byte {
	if fno < 0 || cu == ^uint32(0) {
		return nil
	}
	off := t.u32(t.cutab, int(cu+uint32(fno))*4)
	if off == ^uint32(0) {
		return nil
	}
	return cstring(t.filetab, off)
}

// pcvalue iterates over one pc-value table.
type pcvalue struct {
	t     *pclntab
	p     []byte
	pc    uint32 // end of the current range, relative to the entry
	val   int32
	first bool
	done  bool
}

func (t *pclntab) values(off uint32) pcvalue {
	if off == 0 || uint64(off) >= uint64(len(t.pctab)) {
		return pcvalue{done: true, val: -1}
	}
	return pcvalue{t: t, p: t.pctab[off:], val: -1, first: true}
}

func (v *pcvalue) varint() uint32 {
	var x, shift uint32
	for {
		if len(v.p) == 0 || shift > 28 {
			panic(errPclntab)
		}
		b := v.p[0]
		v.p = v.p[1:]
		x |= uint32(b&0x7f) << shift
		if b&0x80 == 0 {
			return x
		}
		shift += 7
	}
}

// next advances to the next range [previous pc, v.pc) with value v.val.
func (v *pcvalue) next() bool {
	if v.done {
		return false
	}
	uv := v.varint()
	if uv == 0 && !v.first {
		v.done = true
		return false
	}
	v.first = false
	if uv&1 != 0 {
		uv = ^(uv >> 1)
	} else {
		uv >>= 1
	}
	v.val += int32(uv)
	v.pc += v.varint() * v.t.quantum
	return true
}

// funcLines is what the line tables say about one function.
type funcLines struct {
	name      []byte // symbol name, pointing into the table
	entry     uint32 // entry offset from the start of the text
	file      []byte // file of the entry
	startLine int32
	// ownMin and ownMax bound the lines of the function's own code (not
	// code inlined into it) in file.
	ownMin, ownMax int32
	// tree is the offset of the function's inline tree from the funcdata
	// base (go:func.*), ^0 if none.
	tree uint32
}

// inlRange is the code of one inline-tree node of a function: the first
// pc (relative to the entry) where it is the innermost frame, and the
// lines it covers in file.
type inlRange struct {
	index            int32
	pc               uint32
	fno              int32
	minLine, maxLine int32
	file             []byte
}

// function decodes function i. If inl is not nil, the inline ranges of
// the function are appended to inl[:0] and returned.
func (t *pclntab) function(i int, inl []inlRange) (funcLines, []inlRange) {
	d := t.funcData(i)
	f := funcLines{
		entry:     t.u32(d, fnEntryOff),
		name:      cstring(t.funcnames, t.u32(d, fnNameOff)),
		startLine: int32(t.u32(d, fnStartLine)),
	}
	cu := t.u32(d, fnCUOffset)
	var inlOff uint32
	f.tree = ^uint32(0)
	npc := t.u32(d, fnNPCData)
	if npc > pcdataInlTreeIndex && inl != nil {
		inlOff = t.u32(d, fnSize+4*pcdataInlTreeIndex)
		if nfd := d[fnNFuncData]; nfd > funcdataInlTree {
			f.tree = t.u32(d, fnSize+4*int(npc)+4*funcdataInlTree)
		}
	}
	if inl != nil {
		inl = inl[:0]
	}
	files, lines, tree := t.values(t.u32(d, fnPCFile)), t.values(t.u32(d, fnPCLine)), t.values(inlOff)
	if !files.next() || !lines.next() {
		return f, inl
	}
	tree.next()
	entryFile := files.val
	f.file = t.fileName(cu, entryFile)
	var pc uint32
	for {
		end := lines.pc
		if !files.done && files.pc < end {
			end = files.pc
		}
		if !tree.done && tree.pc < end {
			end = tree.pc
		}
		if end > pc && lines.val > 0 {
			if tree.done || tree.val < 0 {
				if files.val == entryFile {
					if f.ownMin == 0 || lines.val < f.ownMin {
						f.ownMin = lines.val
					}
					f.ownMax = max(f.ownMax, lines.val)
				}
			} else {
				inl = addInline(inl, tree.val, pc, files.val, lines.val)
			}
		}
		pc = end
		if lines.pc == end && !lines.next() {
			break
		}
		if !files.done && files.pc == end {
			files.next()
		}
		if !tree.done && tree.pc == end {
			tree.next()
		}
	}
	for j := range inl {
		inl[j].file = t.fileName(cu, inl[j].fno)
	}
	return f, inl
}

func addInline(inl []inlRange, index int32, pc uint32, fno, line int32) []inlRange {
	for j := range inl {
		if r := &inl[j]; r.index == index {
			if r.fno == fno {
				r.minLine = min(r.minLine, line)
				r.maxLine = max(r.maxLine, line)
			}
			return inl
		}
	}
	return append(inl, inlRange{index: index, pc: pc, fno: fno, minLine: line, maxLine: line})
}

// inlinedCall is an entry of an inline tree (runtime.inlinedCall).
type inlinedCall struct {
	nameOff   uint32
	parentPC  uint32
	startLine int32
}

// treeEntry reads entry index of the inline tree at offset tree from the
// funcdata base gofunc, an offset into data.
func (t *pclntab) treeEntry(data []byte, gofunc int, tree uint32, index int32) inlinedCall {
	off := gofunc + int(tree) + inlinedCallSize*int(index)
	return inlinedCall{nameOff: t.u32(data, off+4), parentPC: t.u32(data, off+8), startLine: int32(t.u32(data, off+12))}
}

// nameOffset returns the offset of name in the function name table, or
// -1 if it is not there.
func (t *pclntab) nameOffset(name string) int {
	if len(t.funcnames) > len(name) && string(t.funcnames[:len(name)]) == name && t.funcnames[len(name)] == 0 {
		return 0
	}
	pat := make([]byte, 0, len(name)+2)
	pat = append(append(append(pat, 0), name...), 0)
	if i := bytes.Index(t.funcnames, pat); i >= 0 {
		return i + 1
	}
	return -1
}

// treeProbe is a function whose inline tree entry 0 is known by name.
type treeProbe struct {
	tree    uint32
	nameOff uint32
}

// findGoFunc returns the offset in data of the funcdata base (the
// linker's "go:func.*" symbol, which it places among the function table's
// data): the one offset at which the inline tree of every probe holds, at
// entry 0, the name the runtime reported. It returns -1 if there is none.
func (t *pclntab) findGoFunc(data []byte, probes []treeProbe) int {
	if len(probes) == 0 {
		return -1
	}
	p0 := probes[0]
	var pat [4]byte
	t.order.PutUint32(pat[:], p0.nameOff)
	for from := 0; from < len(data); {
		i := bytes.Index(data[from:], pat[:])
		if i < 0 {
			return -1
		}
		pos := from + i
		from = pos + 1
		g := pos - 4 - int(p0.tree)
		if g < 0 || g%4 != 0 {
			continue
		}
		ok := true
		for _, p := range probes[1:] {
			off := g + int(p.tree) + 4
			if off+4 > len(data) || t.order.Uint32(data[off:]) != p.nameOff {
				ok = false
				break
			}
		}
		if ok {
			return g
		}
	}
	return -1
}
