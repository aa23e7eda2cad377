package codetools

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
func (a *attributor) check(e *entry, file string, decl, minLine, maxLine int32, own bool) {
	if a.snap == nil || !isGoFile(file) {
		return
	}
	key := a.moduleKey(e.pkg)
	ev := a.evidence[key]
	if ev == nil {
		ev = &lineEvidence{}
		a.evidence[key] = ev
	}
	if e.sources&srcSnapshot == 0 {
		if a.snap.Pkgs[e.pkg] {
			ev.compared++
			a.differ(ev, &lineDiff{name: e.id, binFile: a.display(file, e.pkg), binLine: max(decl, minLine), snapFile: a.display(file, e.pkg),
				what: "is in the binary but not in the snapshot"})
		}
		return
	}
	if e.bodyless {
		return // implemented elsewhere: assembly or go:linkname
	}
	ev.compared++
	sf := &a.snap.Files[e.snap]
	d := &lineDiff{name: e.id, snapFile: sf.Display, snapLine: e.line, snapStart: e.line, snapEnd: e.endLine,
		binFile: a.display(file, e.pkg), binLine: decl}
	switch {
	case a.snapFileOf(file) != e.snap:
		d.binLine = max(decl, minLine)
		d.what = "is in " + d.binFile + " in the binary, in " + sf.Display + " in the snapshot"
	case own && decl != e.line:
		d.what = "is declared at line " + itoa(int(e.line)) + " in the snapshot, line " + itoa(int(decl)) + " in the binary"
	case minLine > 0 && minLine < e.line && !a.inDecl(e.snap, minLine),
		maxLine > 0 && maxLine > e.endLine && !a.inDecl(e.snap, maxLine):
		d.binLine = minLine
		if maxLine > e.endLine {
			d.binLine = maxLine
		}
		d.what = "has code at line " + itoa(int(d.binLine)) + " in the binary, outside its declaration (lines " +
			itoa(int(e.line)) + "-" + itoa(int(e.endLine)) + ") in the snapshot"
	case decl > 0 && !own && (decl < e.line || decl > e.endLine) && !a.inDecl(e.snap, decl):
		d.binLine = decl
		d.what = "has a closure at line " + itoa(int(decl)) + " in the binary, outside its declaration (lines " +
			itoa(int(e.line)) + "-" + itoa(int(e.endLine)) + ") in the snapshot"
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
		if e := &a.entries[i]; e.kind != kPackage && line >= e.line && line <= e.endLine {
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
