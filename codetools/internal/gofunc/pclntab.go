package gofunc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Table decodes the Go function table (pclntab) of Go 1.20 and later,
// the layout every toolchain that can build this package writes. It reads
// what debug/gosym does not expose: each function's declaration line
// (startLine), the lines of its own code, and the ranges of code inlined
// into it (PCDATA_InlTreeIndex).
type Table struct {
	Data      []byte // the whole table; the funcdata (go:func.*) lies in it
	order     binary.ByteOrder
	quantum   uint32
	NFunc     int
	FuncNames []byte
	cutab     []byte
	filetab   []byte
	pctab     []byte
	pcln      []byte
	// NoTrees makes a reader name inlined functions through the runtime
	// only (a test switch for the fallback).
	NoTrees bool
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
	inlinedCallSize    = 16 // runtime.InlinedCall
)

// ErrMalformed reports a function table that does not decode; the
// decoding methods panic with it, and a reader recovers.
var ErrMalformed = errors.New("malformed function table")

// Parse checks the header of the function table data and locates its
// parts.
func Parse(data []byte) (*Table, error) {
	if len(data) < 8 {
		return nil, ErrMalformed
	}
	t := &Table{Data: data}
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
		return nil, ErrMalformed
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
			return nil, ErrMalformed
		}
		return data[off:], nil
	}
	t.NFunc = int(word(0))
	var err error
	for i, p := range [...]*[]byte{&t.FuncNames, &t.cutab, &t.filetab, &t.pctab, &t.pcln} {
		if *p, err = sub(3 + i); err != nil {
			return nil, err
		}
	}
	if t.NFunc < 0 || uint64(t.NFunc) > uint64(len(t.pcln))/8 {
		return nil, ErrMalformed
	}
	return t, nil
}

// U32 reads a 32-bit word of the table's byte order at off of b.
func (t *Table) U32(b []byte, off int) uint32 {
	if off < 0 || off+4 > len(b) {
		panic(ErrMalformed)
	}
	return t.order.Uint32(b[off:])
}

// EntryOff returns the entry offset (from the start of the text) of
// function i; i == NFunc gives the end of the last function.
func (t *Table) EntryOff(i int) uint32 { return t.U32(t.pcln, 8*i) }

// FuncData returns the _func record of function i.
func (t *Table) FuncData(i int) []byte {
	off := int(t.U32(t.pcln, 8*i+4))
	if off < 0 || off+fnSize > len(t.pcln) {
		panic(ErrMalformed)
	}
	return t.pcln[off:]
}

// Name returns the symbol name of function i, without copying.
func (t *Table) Name(i int) []byte { return CString(t.FuncNames, t.U32(t.FuncData(i), fnNameOff)) }

// CString returns the NUL-terminated string at off of b, without copying.
func CString(b []byte, off uint32) []byte {
	if uint64(off) >= uint64(len(b)) {
		panic(ErrMalformed)
	}
	b = b[off:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	panic(ErrMalformed)
}

// fileName returns file number fno of the compilation unit at cu.
func (t *Table) fileName(cu uint32, fno int32) []byte {
	if fno < 0 || cu == ^uint32(0) {
		return nil
	}
	off := t.U32(t.cutab, int(cu+uint32(fno))*4)
	if off == ^uint32(0) {
		return nil
	}
	return CString(t.filetab, off)
}

// pcvalue iterates over one pc-value table.
type pcvalue struct {
	t     *Table
	p     []byte
	pc    uint32 // end of the current range, relative to the entry
	val   int32
	first bool
	done  bool
}

func (t *Table) values(off uint32) pcvalue {
	if off == 0 || uint64(off) >= uint64(len(t.pctab)) {
		return pcvalue{done: true, val: -1}
	}
	return pcvalue{t: t, p: t.pctab[off:], val: -1, first: true}
}

func (v *pcvalue) varint() uint32 {
	var x, shift uint32
	for {
		if len(v.p) == 0 || shift > 28 {
			panic(ErrMalformed)
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

// FuncLines is what the line tables say about one function.
type FuncLines struct {
	Name      []byte // symbol name, pointing into the table
	Entry     uint32 // entry offset from the start of the text
	File      []byte // file of the entry
	StartLine int32
	// OwnMin and OwnMax bound the lines of the function's own code (not
	// code inlined into it) in File.
	OwnMin, OwnMax int32
	// Tree is the offset of the function's inline tree from the funcdata
	// base (go:func.*), ^0 if none.
	Tree uint32
}

// InlRange is the code of one inline-tree node of a function: the first
// pc (relative to the entry) where it is the innermost frame, and the
// lines it covers in file.
type InlRange struct {
	Index            int32
	PC               uint32
	fno              int32
	MinLine, MaxLine int32
	File             []byte
}

// Func decodes function i. If inl is not nil, the inline ranges of
// the function are appended to inl[:0] and returned.
func (t *Table) Func(i int, inl []InlRange) (FuncLines, []InlRange) {
	d := t.FuncData(i)
	f := FuncLines{
		Entry:     t.U32(d, fnEntryOff),
		Name:      CString(t.FuncNames, t.U32(d, fnNameOff)),
		StartLine: int32(t.U32(d, fnStartLine)),
	}
	cu := t.U32(d, fnCUOffset)
	var inlOff uint32
	f.Tree = ^uint32(0)
	npc := t.U32(d, fnNPCData)
	if npc > pcdataInlTreeIndex && inl != nil {
		inlOff = t.U32(d, fnSize+4*pcdataInlTreeIndex)
		if nfd := d[fnNFuncData]; nfd > funcdataInlTree {
			f.Tree = t.U32(d, fnSize+4*int(npc)+4*funcdataInlTree)
		}
	}
	if inl != nil {
		inl = inl[:0]
	}
	files, lines, tree := t.values(t.U32(d, fnPCFile)), t.values(t.U32(d, fnPCLine)), t.values(inlOff)
	if !files.next() || !lines.next() {
		return f, inl
	}
	tree.next()
	entryFile := files.val
	f.File = t.fileName(cu, entryFile)
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
					if f.OwnMin == 0 || lines.val < f.OwnMin {
						f.OwnMin = lines.val
					}
					f.OwnMax = max(f.OwnMax, lines.val)
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
		inl[j].File = t.fileName(cu, inl[j].fno)
	}
	return f, inl
}

func addInline(inl []InlRange, index int32, pc uint32, fno, line int32) []InlRange {
	for j := range inl {
		if r := &inl[j]; r.Index == index {
			if r.fno == fno {
				r.MinLine = min(r.MinLine, line)
				r.MaxLine = max(r.MaxLine, line)
			}
			return inl
		}
	}
	return append(inl, InlRange{Index: index, PC: pc, fno: fno, MinLine: line, MaxLine: line})
}

// InlinedCall is an entry of an inline tree (runtime.inlinedCall).
type InlinedCall struct {
	NameOff   uint32
	ParentPC  uint32
	StartLine int32
}

// TreeEntry reads entry index of the inline tree at offset tree from the
// funcdata base gofunc, an offset into data.
func (t *Table) TreeEntry(data []byte, gofunc int, tree uint32, index int32) InlinedCall {
	off := gofunc + int(tree) + inlinedCallSize*int(index)
	return InlinedCall{NameOff: t.U32(data, off+4), ParentPC: t.U32(data, off+8), StartLine: int32(t.U32(data, off+12))}
}

// NameOffset returns the offset of name in the function name table, or
// -1 if it is not there.
func (t *Table) NameOffset(name string) int {
	if len(t.FuncNames) > len(name) && string(t.FuncNames[:len(name)]) == name && t.FuncNames[len(name)] == 0 {
		return 0
	}
	pat := make([]byte, 0, len(name)+2)
	pat = append(append(append(pat, 0), name...), 0)
	if i := bytes.Index(t.FuncNames, pat); i >= 0 {
		return i + 1
	}
	return -1
}

// TreeProbe is a function whose inline tree entry 0 is known by name.
type TreeProbe struct {
	Tree    uint32
	NameOff uint32
}

// FindGoFunc returns the offset in data of the funcdata base (the
// linker's "go:func.*" symbol, which it places among the function table's
// data): the one offset at which the inline tree of every probe holds, at
// entry 0, the name the runtime reported. It returns -1 if there is none.
func (t *Table) FindGoFunc(data []byte, probes []TreeProbe) int {
	if len(probes) == 0 {
		return -1
	}
	p0 := probes[0]
	var pat [4]byte
	t.order.PutUint32(pat[:], p0.NameOff)
	for from := 0; from < len(data); {
		i := bytes.Index(data[from:], pat[:])
		if i < 0 {
			return -1
		}
		pos := from + i
		from = pos + 1
		g := pos - 4 - int(p0.Tree)
		if g < 0 || g%4 != 0 {
			continue
		}
		ok := true
		for _, p := range probes[1:] {
			off := g + int(p.Tree) + 4
			if off+4 > len(data) || t.order.Uint32(data[off:]) != p.NameOff {
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
