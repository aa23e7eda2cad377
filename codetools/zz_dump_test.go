package codetools

import (
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	want := os.Getenv("ZZFN")
	if want == "" {
		t.Skip()
	}
	f, _ := openSelf()
	data, _ := pclntabSection(f)
	tb, _ := newPclntab(data)
	for i := 0; i < tb.nfunc; i++ {
		d := tb.funcData(i)
		name := string(cstring(tb.funcnames, tb.u32(d, fnNameOff)))
		if name != want {
			continue
		}
		cu := tb.u32(d, fnCUOffset)
		npc := tb.u32(d, fnNPCData)
		inlOff := tb.u32(d, fnSize+4*pcdataInlTreeIndex)
		t.Logf("%s npc=%d inl=%d start=%d", name, npc, inlOff, tb.u32(d, fnStartLine))
		files, lines, tree := tb.values(tb.u32(d, fnPCFile)), tb.values(tb.u32(d, fnPCLine)), tb.values(inlOff)
		for lines.next() {
			t.Logf("line %d until %d", lines.val, lines.pc)
		}
		for files.next() {
			t.Logf("file %s until %d", tb.fileName(cu, files.val), files.pc)
		}
		for tree.next() {
			t.Logf("inl %d until %d", tree.val, tree.pc)
		}
		fl, _ := tb.function(i, make([]inlRange, 0, 4))
		t.Logf("own %d-%d", fl.ownMin, fl.ownMax)
	}
}
