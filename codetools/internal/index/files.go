package index

import (
	"bytes"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"github.com/embedmcp/mcp/internal/boundedjson"
	"path"
	"strings"
	"sync"
)

// FileEntries are the entries declared in one file, by line.
type FileEntries struct {
	Path    string
	Entries []int32
}

// Enclosing returns the entry of fe whose declaration encloses line, and
// whether that is known exactly (from the snapshot's spans) rather than
// guessed from the function table (the function that starts last before
// the line). It returns -1 when no declaration does.
func (x *Index) Enclosing(fe *FileEntries, line int) (int, bool) {
	best, after := -1, -1
	for _, i := range fe.Entries {
		e := &x.Entries[i]
		if e.Kind == KindPackage || e.Member || e.EndLine == 0 {
			continue
		}
		switch {
		case int(e.Line) <= line && line <= int(e.EndLine):
			// The innermost: the one that starts last (a spec of a group).
			if best < 0 || e.Line >= x.Entries[best].Line {
				best = int(i)
			}
		case int(e.Line) > line && int(e.EndLine) >= line && after < 0:
			// The line is in the doc comment or the group's header.
			after = int(i)
		}
	}
	if best >= 0 {
		return best, true
	}
	// A line within a doc comment belongs to the declaration it documents
	// when its span starts before the line.
	if after >= 0 {
		if e := &x.Entries[after]; e.Snap >= 0 && x.Base.Snap != nil && x.SpanStartLine(e) <= line {
			return after, true
		}
	}
	// Without spans: the function that starts last at or before the line.
	guess := -1
	for _, i := range fe.Entries {
		e := &x.Entries[i]
		if (e.Kind == KindFunc || e.Kind == KindMethod) && e.EndLine == 0 && e.Line > 0 && int(e.Line) <= line &&
			(guess < 0 || e.Line > x.Entries[guess].Line) {
			guess = int(i)
		}
	}
	return guess, false
}

// SpanStartLine returns the line where the snapshot span of e (its doc
// comment included) starts, counting lines in the snapshot file.
func (x *Index) SpanStartLine(e *Entry) int {
	text, err := x.Base.Snap.ReadSpan(e.Snap, 0, e.Start)
	if err != nil {
		return int(e.Line)
	}
	return strings.Count(text, "\n") + 1
}

// AbsFile maps an absolute build path to a snapshot file, through the
// directories of the function table: the directory of a package, or a file
// below the root of a module whose package directories it names.
func (x *Index) AbsFile(p string) (int32, bool) {
	s := x.Base.Snap
	dir, name := path.Dir(p), path.Base(p)
	if pkg, ok := x.Base.Dirs[dir]; ok {
		if fi, ok := x.fileOf(pkg, name); ok {
			return fi, true
		}
	}
	// The root of each module (or GOROOT/src), from a package directory.
	for d, pkg := range x.Base.Dirs {
		rel := "/" + pkg
		if m, ok := snapshot.ModuleFor(s.Mods, pkg); ok && !snapshot.IsStdPkg(pkg) {
			rel = strings.TrimPrefix(pkg, m.Path)
			root := strings.TrimSuffix(d, rel)
			if (rel == "" || strings.HasSuffix(d, rel)) && strings.HasPrefix(p, root+"/") {
				sub := path.Dir(strings.TrimPrefix(p, root+"/"))
				pkgOf := m.Path
				if sub != "." {
					pkgOf += "/" + sub
				}
				if fi, ok := x.fileOf(pkgOf, name); ok {
					return fi, true
				}
			}
			continue
		}
		if root := strings.TrimSuffix(d, rel); root != d && strings.HasPrefix(p, root+"/") {
			if fi, ok := x.fileOf(path.Dir(strings.TrimPrefix(p, root+"/")), name); ok {
				return fi, true
			}
		}
	}
	return -1, false
}

// fileOf returns the snapshot file name of package (or module) pkg.
func (x *Index) fileOf(pkg, name string) (int32, bool) {
	s := x.Base.Snap
	for i := range s.Files {
		if s.Files[i].Pkg == pkg && s.Files[i].Name == name {
			return int32(i), true
		}
	}
	return -1, false
}

// SameName lists up to maxCandidates snapshot files with base name name.
func (x *Index) SameName(name string) []string {
	var out []string
	for i := range x.Base.Snap.Files {
		if f := &x.Base.Snap.Files[i]; f.Name == name && len(out) < MaxCandidates {
			out = append(out, f.Display)
		}
	}
	return out
}

// lineCache keeps the line starts of the snapshot files that answers
// quoted lately, so that a line's text is one small read.
type lineCache struct {
	mu    sync.Mutex
	files map[int32][]int32
}

// MaxEcho bounds how much of an argument an error repeats, and of a line
// an answer quotes.
const MaxEcho = 200

// maxCachedFiles bounds the files whose line starts a catalog keeps; the
// cache is emptied when it is full.
const maxCachedFiles = 128

// LineStarts returns the byte offsets at which the lines of snapshot file
// fi start, followed by the file's size.
func (b *Base) LineStarts(fi int32) ([]int32, error) {
	c := &b.lines
	c.mu.Lock()
	starts, ok := c.files[fi]
	c.mu.Unlock()
	if ok {
		return starts, nil
	}
	data, err := b.Snap.ReadFile(fi, nil)
	if err != nil {
		return nil, err
	}
	starts = make([]int32, 1, bytes.Count(data, []byte{'\n'})+2)
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		if off < len(data) {
			starts = append(starts, int32(off))
		}
	}
	starts = append(starts, int32(len(data)))
	c.mu.Lock()
	if c.files == nil || len(c.files) >= maxCachedFiles {
		c.files = map[int32][]int32{}
	}
	c.files[fi] = starts
	c.mu.Unlock()
	return starts, nil
}

// LineText returns line n of snapshot file fi without its line end and
// leading white space, cut to maxEcho bytes; "" if it cannot be read.
func (b *Base) LineText(fi, n int32) string {
	if b.Snap == nil || fi < 0 {
		return ""
	}
	starts, err := b.LineStarts(fi)
	if err != nil || n < 1 || int(n) >= len(starts) {
		return ""
	}
	text, err := b.Snap.ReadSpan(fi, starts[n-1], starts[n])
	if err != nil {
		return ""
	}
	return CutText(strings.TrimSpace(text), MaxEcho)
}

// MainModule returns the path of the host's main module.
func (b *Base) MainModule() string {
	if b.Snap != nil && b.Snap.MainMod != "" {
		return b.Snap.MainMod
	}
	return ""
}

// CutText cuts s to at most max bytes at a rune boundary, marking a cut
// with "…".
func CutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return boundedjson.Truncate(s, max-len("…")) + "…"
}
