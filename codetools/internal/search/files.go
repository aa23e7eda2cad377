package search

import (
	"github.com/embedmcp/mcp/codetools/internal/index"
	"slices"
	"strconv"
	"strings"
)

// FileQuery is a file name or path, with a line when it came as file:line
// (from a stack trace, a compiler message or a profile).
type FileQuery struct {
	Path string // slash-separated
	Line int    // 0 when none was given
}

// ParseFileQuery recognises "handlers.go", "internal/admin/admin.go",
// "protocol.go:227", "/build/path/protocol.go:227 +0x339" (a stack-trace
// line) and "server.go:12:5" (a compiler position).
func ParseFileQuery(q string) (FileQuery, bool) {
	s := strings.TrimSpace(q)
	if i := strings.Index(s, " +0x"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if s == "" || strings.ContainsAny(s, " \t") {
		return FileQuery{}, false
	}
	s = strings.ReplaceAll(s, `\`, "/")
	fq := FileQuery{Path: s}
	if i := strings.LastIndex(s, ".go:"); i >= 0 {
		fq.Path = s[:i+len(".go")]
		num, _, _ := strings.Cut(s[i+len(".go:"):], ":")
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 {
			return FileQuery{}, false
		}
		fq.Line = n
	}
	base := fq.Path[strings.LastIndexByte(fq.Path, '/')+1:]
	if !strings.HasSuffix(base, ".go") || len(base) == len(".go") {
		return FileQuery{}, false
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

// FilesFor returns the catalog files that fq names best, those sharing the
// most trailing path elements with it (the base name at least), each with
// its entries by line. It scans the entries: file queries are rare, and an
// index of files would be kept for them alone.
func (x Searcher) FilesFor(fq FileQuery) []*index.FileEntries {
	base := fq.Path[strings.LastIndexByte(fq.Path, '/')+1:]
	suffix := "/" + base
	si := &x.Search
	if si.FileNo == nil {
		return x.filesForSlow(fq, base, suffix)
	}
	// The files whose base name matches, and how well each does.
	tail := make([]int, len(si.FileNames))
	bestN := 0
	for k, f := range si.FileNames {
		if f != "" && (f == base || strings.HasSuffix(f, suffix)) {
			tail[k] = commonTail(f, fq.Path)
			bestN = max(bestN, tail[k])
		}
	}
	if bestN == 0 {
		return nil
	}
	byNo := map[uint16]*index.FileEntries{}
	var best []*index.FileEntries
	for k, n := range tail {
		if n == bestN {
			fe := &index.FileEntries{Path: si.FileNames[k]}
			byNo[uint16(k)] = fe
			best = append(best, fe)
		}
	}
	for i, n := range si.FileNo {
		if tail[n] == bestN {
			fe := byNo[n]
			fe.Entries = append(fe.Entries, int32(i))
		}
	}
	return x.sortFiles(best)
}

// filesForSlow is filesFor for a catalog of too many files to number: it
// compares the file of every entry.
func (x Searcher) filesForSlow(fq FileQuery, base, suffix string) []*index.FileEntries {
	tails := map[string]int{}
	bestN := 0
	for i := range x.Entries {
		f := x.FileOf(&x.Entries[i])
		if _, seen := tails[f]; seen || f == "" || f != base && !strings.HasSuffix(f, suffix) {
			continue
		}
		tails[f] = commonTail(f, fq.Path)
		bestN = max(bestN, tails[f])
	}
	if bestN == 0 {
		return nil
	}
	files := map[string]*index.FileEntries{}
	var best []*index.FileEntries
	for i := range x.Entries {
		f := x.FileOf(&x.Entries[i])
		if n, ok := tails[f]; ok && n == bestN {
			fe := files[f]
			if fe == nil {
				fe = &index.FileEntries{Path: f}
				files[f] = fe
				best = append(best, fe)
			}
			fe.Entries = append(fe.Entries, int32(i))
		}
	}
	return x.sortFiles(best)
}

// sortFiles orders files by path and the entries of each by line.
func (x Searcher) sortFiles(best []*index.FileEntries) []*index.FileEntries {
	for _, fe := range best {
		slices.SortFunc(fe.Entries, func(a, b int32) int {
			if d := x.Entries[a].Line - x.Entries[b].Line; d != 0 {
				return int(d)
			}
			return int(a - b)
		})
	}
	slices.SortFunc(best, func(a, b *index.FileEntries) int { return strings.Compare(a.Path, b.Path) })
	return best
}

// fileSearch answers a file query: the declarations of the files it names
// in line order, or, with a line, the declaration of each file that
// encloses the line. Package entries are left out: they are no
// declaration of one file. It calls add with keys that keep that order and
// returns the number of matches.
func (x Searcher) fileSearch(fq FileQuery, f *Filter, add func(uint64)) int {
	files := x.FilesFor(fq)
	// Files of the main module first.
	order := make([]int, len(files))
	for k := range order {
		order[k] = k
	}
	fileScope := func(fe *index.FileEntries) index.Scope { return x.Search.Scope[fe.Entries[0]] }
	sortStable(order, func(a, b int) bool { return fileScope(files[a]) < fileScope(files[b]) })
	n := 0
	for _, k := range order {
		fe := files[k]
		if fq.Line > 0 {
			if i, _ := x.Enclosing(fe, fq.Line); i >= 0 && f.match(x.Index, i) {
				add(uint64(n)<<indexBits | uint64(i))
				n++
			}
			continue
		}
		for _, i := range fe.Entries {
			if x.Entries[i].Kind != index.KindPackage && !x.Entries[i].Member && f.match(x.Index, int(i)) {
				add(uint64(n)<<indexBits | uint64(i))
				n++
			}
		}
	}
	return n
}

// sortStable is an insertion sort of small slices by less.
func sortStable(s []int, less func(a, b int) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
