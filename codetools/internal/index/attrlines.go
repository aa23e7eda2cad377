package index

import (
	"strconv"
)

// This file holds the evidence the line table gives about the snapshot:
// each linked function's file, declaration line and code lines compared
// with the snapshot's declarations.

// LineEvidence is what the binary's line table says about the snapshot
// source of one module: how many functions were compared, how many
// differ, and the first that differs (in snapshot file and line order).
type LineEvidence struct {
	Compared int
	Diffs    int
	First    *lineDiff
}

// lineDiff is one difference between the snapshot and the line table.
type lineDiff struct {
	Name               string
	SnapFile, BinFile  string
	SnapLine, BinLine  int32
	snapStart, snapEnd int32 // declaration lines in the snapshot
	What               string
}

// before orders differences by snapshot file and line.
func (d *lineDiff) before(o *lineDiff) bool {
	if d.SnapFile != o.SnapFile {
		return d.SnapFile < o.SnapFile
	}
	return d.SnapLine < o.SnapLine
}

// check compares the table's file and lines for e's declaration with the
// snapshot: the declaration line (own code), and that every line of code
// lies within the declaration.
func (a *Attributor) check(e *Entry, file string, decl, minLine, maxLine int32, own bool) {
	if a.Snap == nil || !isGoFile(file) {
		return
	}
	key := a.moduleKey(e.Pkg)
	ev := a.Evidence[key]
	if ev == nil {
		ev = &LineEvidence{}
		a.Evidence[key] = ev
	}
	if e.Sources&SrcSnapshot == 0 {
		if a.Snap.Pkgs[e.Pkg] {
			ev.Compared++
			a.differ(ev, &lineDiff{Name: e.ID, BinFile: a.display(file, e.Pkg), BinLine: max(decl, minLine), SnapFile: a.display(file, e.Pkg),
				What: "is in the binary but not in the snapshot"})
		}
		return
	}
	if e.Bodyless {
		return // implemented elsewhere: assembly or go:linkname
	}
	ev.Compared++
	sf := &a.Snap.Files[e.Snap]
	// The difference, if any: its binary file is found only then, and it
	// is copied to the heap only then.
	d := lineDiff{Name: e.ID, SnapFile: sf.Display, SnapLine: e.Line, snapStart: e.Line, snapEnd: e.EndLine, BinLine: decl}
	switch {
	case a.snapFileOf(file) != e.Snap:
		d.BinFile = a.display(file, e.Pkg)
		d.BinLine = max(decl, minLine)
		d.What = "is in " + d.BinFile + " in the binary, in " + sf.Display + " in the snapshot"
	case own && decl != e.Line:
		d.What = "is declared at line " + strconv.Itoa(int(e.Line)) + " in the snapshot, line " + strconv.Itoa(int(decl)) + " in the binary"
	case minLine > 0 && minLine < e.Line && !a.inDecl(e.Snap, minLine),
		maxLine > 0 && maxLine > e.EndLine && !a.inDecl(e.Snap, maxLine):
		d.BinLine = minLine
		if maxLine > e.EndLine {
			d.BinLine = maxLine
		}
		d.What = "has code at line " + strconv.Itoa(int(d.BinLine)) + " in the binary, outside its declaration (lines " +
			strconv.Itoa(int(e.Line)) + "-" + strconv.Itoa(int(e.EndLine)) + ") in the snapshot"
	case decl > 0 && !own && (decl < e.Line || decl > e.EndLine) && !a.inDecl(e.Snap, decl):
		d.BinLine = decl
		d.What = "has a closure at line " + strconv.Itoa(int(decl)) + " in the binary, outside its declaration (lines " +
			strconv.Itoa(int(e.Line)) + "-" + strconv.Itoa(int(e.EndLine)) + ") in the snapshot"
	default:
		return
	}
	if d.BinFile == "" {
		d.BinFile = a.display(file, e.Pkg)
	}
	diff := d
	a.differ(ev, &diff)
}

// inDecl reports whether line lies within some declaration of snapshot
// file fi. The line table marks a few instructions of inlined code as the
// caller's own, so code of a function found within another declaration of
// the same file is not taken as evidence of an edit; code found between
// declarations is.
func (a *Attributor) inDecl(fi int32, line int32) bool {
	if fi < 0 || int(fi) >= len(a.Decls) {
		return false
	}
	for i := a.Decls[fi][0]; i < a.Decls[fi][1]; i++ {
		if e := &a.Entries[i]; e.Kind != KindPackage && line >= e.Line && line <= e.EndLine {
			return true
		}
	}
	return false
}

func (a *Attributor) differ(ev *LineEvidence, d *lineDiff) {
	ev.Diffs++
	if ev.First == nil || d.before(ev.First) {
		ev.First = d
	}
}
