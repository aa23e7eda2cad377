package codetools

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
	"strconv"
)

// This file holds the evidence the line table gives about the snapshot:
// each linked function's file, declaration line and code lines compared
// with the snapshot's declarations.

// lineEvidence is what the binary's line table says about the snapshot
// source of one module: how many functions were compared, how many
// differ, and the first that differs (in snapshot file and line order).
type lineEvidence struct {
	compared int
	diffs    int
	first    *lineDiff
}

// lineDiff is one difference between the snapshot and the line table.
type lineDiff struct {
	name               string
	snapFile, binFile  string
	snapLine, binLine  int32
	snapStart, snapEnd int32 // declaration lines in the snapshot
	what               string
}

// before orders differences by snapshot file and line.
func (d *lineDiff) before(o *lineDiff) bool {
	if d.snapFile != o.snapFile {
		return d.snapFile < o.snapFile
	}
	return d.snapLine < o.snapLine
}

// check compares the table's file and lines for e's declaration with the
// snapshot: the declaration line (own code), and that every line of code
// lies within the declaration.
func (a *attributor) check(e *index.Entry, file string, decl, minLine, maxLine int32, own bool) {
	if a.snap == nil || !isGoFile(file) {
		return
	}
	key := a.moduleKey(e.Pkg)
	ev := a.evidence[key]
	if ev == nil {
		ev = &lineEvidence{}
		a.evidence[key] = ev
	}
	if e.Sources&index.SrcSnapshot == 0 {
		if a.snap.Pkgs[e.Pkg] {
			ev.compared++
			a.differ(ev, &lineDiff{name: e.ID, binFile: a.display(file, e.Pkg), binLine: max(decl, minLine), snapFile: a.display(file, e.Pkg),
				what: "is in the binary but not in the snapshot"})
		}
		return
	}
	if e.Bodyless {
		return // implemented elsewhere: assembly or go:linkname
	}
	ev.compared++
	sf := &a.snap.Files[e.Snap]
	d := &lineDiff{name: e.ID, snapFile: sf.Display, snapLine: e.Line, snapStart: e.Line, snapEnd: e.EndLine,
		binFile: a.display(file, e.Pkg), binLine: decl}
	switch {
	case a.snapFileOf(file) != e.Snap:
		d.binLine = max(decl, minLine)
		d.what = "is in " + d.binFile + " in the binary, in " + sf.Display + " in the snapshot"
	case own && decl != e.Line:
		d.what = "is declared at line " + strconv.Itoa(int(e.Line)) + " in the snapshot, line " + strconv.Itoa(int(decl)) + " in the binary"
	case minLine > 0 && minLine < e.Line && !a.inDecl(e.Snap, minLine),
		maxLine > 0 && maxLine > e.EndLine && !a.inDecl(e.Snap, maxLine):
		d.binLine = minLine
		if maxLine > e.EndLine {
			d.binLine = maxLine
		}
		d.what = "has code at line " + strconv.Itoa(int(d.binLine)) + " in the binary, outside its declaration (lines " +
			strconv.Itoa(int(e.Line)) + "-" + strconv.Itoa(int(e.EndLine)) + ") in the snapshot"
	case decl > 0 && !own && (decl < e.Line || decl > e.EndLine) && !a.inDecl(e.Snap, decl):
		d.binLine = decl
		d.what = "has a closure at line " + strconv.Itoa(int(decl)) + " in the binary, outside its declaration (lines " +
			strconv.Itoa(int(e.Line)) + "-" + strconv.Itoa(int(e.EndLine)) + ") in the snapshot"
	default:
		return
	}
	a.differ(ev, d)
}

// inDecl reports whether line lies within some declaration of snapshot
// file fi. The line table marks a few instructions of inlined code as the
// caller's own, so code of a function found within another declaration of
// the same file is not taken as evidence of an edit; code found between
// declarations is.
func (a *attributor) inDecl(fi int32, line int32) bool {
	if fi < 0 || int(fi) >= len(a.decls) {
		return false
	}
	for i := a.decls[fi][0]; i < a.decls[fi][1]; i++ {
		if e := &a.entries[i]; e.Kind != index.KindPackage && line >= e.Line && line <= e.EndLine {
			return true
		}
	}
	return false
}

func (a *attributor) differ(ev *lineEvidence, d *lineDiff) {
	ev.diffs++
	if ev.first == nil || d.before(ev.first) {
		ev.first = d
	}
}
