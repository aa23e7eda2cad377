package codetools

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
	"slices"
	"strconv"
	"strings"
)

// fileQuery is a file name or path, with a line when it came as file:line
// (from a stack trace, a compiler message or a profile).
type fileQuery struct {
	path string // slash-separated
	line int    // 0 when none was given
}

// parseFileQuery recognises "handlers.go", "internal/admin/admin.go",
// "protocol.go:227", "/build/path/protocol.go:227 +0x339" (a stack-trace
// line) and "server.go:12:5" (a compiler position).
func parseFileQuery(q string) (fileQuery, bool) {
	s := strings.TrimSpace(q)
	if i := strings.Index(s, " +0x"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if s == "" || strings.ContainsAny(s, " \t") {
		return fileQuery{}, false
	}
	s = strings.ReplaceAll(s, `\`, "/")
	fq := fileQuery{path: s}
	if i := strings.LastIndex(s, ".go:"); i >= 0 {
		fq.path = s[:i+len(".go")]
		num, _, _ := strings.Cut(s[i+len(".go:"):], ":")
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 {
			return fileQuery{}, false
		}
		fq.line = n
	}
	base := fq.path[strings.LastIndexByte(fq.path, '/')+1:]
	if !strings.HasSuffix(base, ".go") || len(base) == len(".go") {
		return fileQuery{}, false
	}
	return fq, true
}

// commonTail returns the number of trailing path elements that a and b
// share.
func commonTail(a, b string) int {
	n := 0
	for a != "" && b != "" {
		ia, ib := strings.LastIndexByte(a, '/'), strings.LastIndexByte(b, '/')
		if a[ia+1:] != b[ib+1:] {
			break
		}
		n++
		if ia < 0 || ib < 0 {
			break
		}
		a, b = a[:ia], b[:ib]
	}
	return n
}

// fileEntries are the entries declared in one file, by line.
type fileEntries struct {
	path    string
	entries []int32
}

// filesFor returns the catalog files that fq names best, those sharing the
// most trailing path elements with it (the base name at least), each with
// its entries by line. It scans the entries: file queries are rare, and an
// index of files would be kept for them alone.
func (x searcher) filesFor(fq fileQuery) []*fileEntries {
	base := fq.path[strings.LastIndexByte(fq.path, '/')+1:]
	suffix := "/" + base
	si := &x.search
	if si.FileNo == nil {
		return x.filesForSlow(fq, base, suffix)
	}
	// The files whose base name matches, and how well each does.
	tail := make([]int, len(si.FileNames))
	bestN := 0
	for k, f := range si.FileNames {
		if f != "" && (f == base || strings.HasSuffix(f, suffix)) {
			tail[k] = commonTail(f, fq.path)
			bestN = max(bestN, tail[k])
		}
	}
	if bestN == 0 {
		return nil
	}
	byNo := map[uint16]*fileEntries{}
	var best []*fileEntries
	for k, n := range tail {
		if n == bestN {
			fe := &fileEntries{path: si.FileNames[k]}
			byNo[uint16(k)] = fe
			best = append(best, fe)
		}
	}
	for i, n := range si.FileNo {
		if tail[n] == bestN {
			fe := byNo[n]
			fe.entries = append(fe.entries, int32(i))
		}
	}
	return x.sortFiles(best)
}

// filesForSlow is filesFor for a catalog of too many files to number: it
// compares the file of every entry.
func (x searcher) filesForSlow(fq fileQuery, base, suffix string) []*fileEntries {
	tails := map[string]int{}
	bestN := 0
	for i := range x.entries {
		f := x.entries[i].File
		if _, seen := tails[f]; seen || f == "" || f != base && !strings.HasSuffix(f, suffix) {
			continue
		}
		tails[f] = commonTail(f, fq.path)
		bestN = max(bestN, tails[f])
	}
	if bestN == 0 {
		return nil
	}
	files := map[string]*fileEntries{}
	var best []*fileEntries
	for i := range x.entries {
		f := x.entries[i].File
		if n, ok := tails[f]; ok && n == bestN {
			fe := files[f]
			if fe == nil {
				fe = &fileEntries{path: f}
				files[f] = fe
				best = append(best, fe)
			}
			fe.entries = append(fe.entries, int32(i))
		}
	}
	return x.sortFiles(best)
}

// sortFiles orders files by path and the entries of each by line.
func (x searcher) sortFiles(best []*fileEntries) []*fileEntries {
	for _, fe := range best {
		slices.SortFunc(fe.entries, func(a, b int32) int {
			if d := x.entries[a].Line - x.entries[b].Line; d != 0 {
				return int(d)
			}
			return int(a - b)
		})
	}
	slices.SortFunc(best, func(a, b *fileEntries) int { return strings.Compare(a.path, b.path) })
	return best
}

// fileSearch answers a file query: the declarations of the files it names
// in line order, or, with a line, the declaration of each file that
// encloses the line. Package entries are left out: they are no
// declaration of one file. It calls add with keys that keep that order and
// returns the number of matches.
func (x searcher) fileSearch(fq fileQuery, f *filter, add func(uint64)) int {
	files := x.filesFor(fq)
	// Files of the main module first.
	order := make([]int, len(files))
	for k := range order {
		order[k] = k
	}
	fileScope := func(fe *fileEntries) index.Scope { return x.search.Scope[fe.entries[0]] }
	sortStable(order, func(a, b int) bool { return fileScope(files[a]) < fileScope(files[b]) })
	n := 0
	for _, k := range order {
		fe := files[k]
		if fq.line > 0 {
			if i, _ := x.enclosing(fe, fq.line); i >= 0 && f.match(x.coreIndex, i) {
				add(uint64(n)<<indexBits | uint64(i))
				n++
			}
			continue
		}
		for _, i := range fe.entries {
			if x.entries[i].Kind != index.KindPackage && !x.entries[i].Member && f.match(x.coreIndex, int(i)) {
				add(uint64(n)<<indexBits | uint64(i))
				n++
			}
		}
	}
	return n
}

// enclosing returns the entry of fe whose declaration encloses line, and
// whether that is known exactly (from the snapshot's spans) rather than
// guessed from the function table (the function that starts last before
// the line). It returns -1 when no declaration does.
func (x *coreIndex) enclosing(fe *fileEntries, line int) (int, bool) {
	best, after := -1, -1
	for _, i := range fe.entries {
		e := &x.entries[i]
		if e.Kind == index.KindPackage || e.Member || e.EndLine == 0 {
			continue
		}
		switch {
		case int(e.Line) <= line && line <= int(e.EndLine):
			// The innermost: the one that starts last (a spec of a group).
			if best < 0 || e.Line >= x.entries[best].Line {
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
		if e := &x.entries[after]; e.Snap >= 0 && x.base.snap != nil && x.spanStartLine(e) <= line {
			return after, true
		}
	}
	// Without spans: the function that starts last at or before the line.
	guess := -1
	for _, i := range fe.entries {
		e := &x.entries[i]
		if (e.Kind == index.KindFunc || e.Kind == index.KindMethod) && e.EndLine == 0 && e.Line > 0 && int(e.Line) <= line &&
			(guess < 0 || e.Line > x.entries[guess].Line) {
			guess = int(i)
		}
	}
	return guess, false
}

// spanStartLine returns the line where the snapshot span of e (its doc
// comment included) starts, counting lines in the snapshot file.
func (x *coreIndex) spanStartLine(e *index.Entry) int {
	text, err := x.base.snap.ReadSpan(e.Snap, 0, e.Start)
	if err != nil {
		return int(e.Line)
	}
	return strings.Count(text, "\n") + 1
}

// sortStable is an insertion sort of small slices by less.
func sortStable(s []int, less func(a, b int) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
