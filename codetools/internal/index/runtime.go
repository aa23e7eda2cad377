package index

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"os"
	"runtime"
	"strings"
)

// RuntimeTable is the function table of the running binary: the functions
// linked into it and the functions inlined into them.
type RuntimeTable struct {
	Funcs   []RuntimeFunc
	Inlined []inlinedFunc
	// calls lists, for funcs[i], the indexes in inlined of the functions
	// inlined into it: calls[funcs[i].calls[0]:funcs[i].calls[1]].
	Calls []int32
}

// RuntimeFunc is one function of the table.
type RuntimeFunc struct {
	Name string // symbol name as linked
	File string // file of the entry, as recorded by the compiler
	Line int    // line of the func keyword (startLine)
	// minLine and maxLine bound the lines of the function's own code in
	// file; 0 if unknown.
	MinLine, MaxLine int32
	Calls            [2]int32
}

// inlinedFunc is a function whose body was inlined somewhere.
type inlinedFunc struct {
	Name string // symbol name, type arguments elided (F[...].G[...].func1)
	Line int32  // line of the func keyword, 0 if unknown
	file string
	// minLine and maxLine bound the lines of its inlined code.
	minLine, maxLine int32
	// into is the first real function it was found inlined into, as the
	// runtime prints it; sites counts the inline sites.
	into  string
	sites int32
}

// ReadRuntime reads the function table of the running executable.
func ReadRuntime() (*RuntimeTable, error) {
	f, err := OpenSelf()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := gofunc.Section(f)
	if err != nil {
		return nil, err
	}
	t, err := gofunc.Parse(data)
	if err != nil {
		return nil, err
	}
	return DecodeTable(t)
}

// OpenSelf opens the executable file of this process. On Linux,
// /proc/self/exe is the running file even if the path was replaced since
// it started.
func OpenSelf() (*os.File, error) {
	if runtime.GOOS == "linux" {
		if f, err := os.Open("/proc/self/exe"); err == nil {
			return f, nil
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locating executable: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return nil, fmt.Errorf("opening executable: %w", err)
	}
	return f, nil
}

// errNotSelf reports a function table that is not the running process's.
var errNotSelf = errors.New("the executable file does not match the running process (was it replaced after start?)")

// DecodeTable reads every function. It converts a malformed table into an
// error instead of a panic.
func DecodeTable(t *gofunc.Table) (rt *RuntimeTable, err error) {
	defer func() {
		if r := recover(); r != nil {
			rt, err = nil, fmt.Errorf("%w: %v", gofunc.ErrMalformed, r)
		}
	}()
	base, err := textBase(t)
	if err != nil {
		return nil, err
	}
	rt = &RuntimeTable{Funcs: make([]RuntimeFunc, 0, t.NFunc)}
	files := map[string]string{}
	str := func(b []byte) string {
		if s, ok := files[string(b)]; ok {
			return s
		}
		s := string(b)
		files[s] = s
		return s
	}
	// Inlined functions are named from the inline trees, whose base is
	// found first from a few probes; else by asking the runtime.
	inl := newInlineCollector()
	goFunc := -1
	if !t.NoTrees {
		goFunc = t.FindGoFunc(t.Data, probes(t, base, inl))
	}
	ranges := make([]gofunc.InlRange, 0, 32)
	for i := 0; i < t.NFunc; i++ {
		var f gofunc.FuncLines
		f, ranges = t.Func(i, ranges)
		if len(f.Name) == 0 {
			continue
		}
		rf := RuntimeFunc{Name: string(f.Name), File: str(f.File), Line: int(f.StartLine),
			MinLine: f.OwnMin, MaxLine: f.OwnMax}
		rf.Calls[0] = int32(len(rt.Calls))
		switch {
		case len(ranges) == 0:
		case goFunc >= 0 && f.Tree != ^uint32(0):
			for k := range ranges {
				c := t.TreeEntry(t.Data, goFunc, f.Tree, ranges[k].Index)
				rt.Calls = append(rt.Calls, inl.record(gofunc.CString(t.FuncNames, c.NameOff), c.StartLine, rf.Name, &ranges[k], str))
			}
		default:
			rt.Calls = inl.add(rt.Calls, rf.Name, base+uintptr(f.Entry), ranges, str)
		}
		rf.Calls[1] = int32(len(rt.Calls))
		rt.Funcs = append(rt.Funcs, rf)
	}
	rt.Inlined = inl.result()
	return rt, nil
}

// probes returns up to four functions whose inline tree entry 0 the
// runtime names, for FindGoFunc.
func probes(t *gofunc.Table, base uintptr, inl *inlineCollector) []gofunc.TreeProbe {
	probes := make([]gofunc.TreeProbe, 0, 4)
	ranges := make([]gofunc.InlRange, 0, 32)
	for i := 0; i < t.NFunc && len(probes) < cap(probes); i++ {
		var f gofunc.FuncLines
		f, ranges = t.Func(i, ranges)
		if f.Tree == ^uint32(0) || len(ranges) == 0 || ranges[0].Index != 0 {
			continue
		}
		name := inl.name(base + uintptr(f.Entry) + uintptr(ranges[0].PC))
		if name == "" || strings.IndexByte(name, '[') >= 0 {
			continue
		}
		if off := t.NameOffset(name); off >= 0 {
			probes = append(probes, gofunc.TreeProbe{Tree: f.Tree, NameOff: uint32(off)})
		}
	}
	if len(probes) < 2 {
		return nil
	}
	return probes
}

// textBase returns the address the table's entry offsets are relative to
// in this process, and checks that the table describes this process: the
// runtime must name the functions at a sample of the table's entries as
// the table does.
func textBase(t *gofunc.Table) (uintptr, error) {
	pc, _, _, ok := runtime.Caller(0)
	fn := runtime.FuncForPC(pc)
	if !ok || fn == nil {
		return 0, errors.New("cannot locate this function in the running process")
	}
	self := fn.Name()
	var base uintptr
	found := false
	for i := 0; i < t.NFunc; i++ {
		if string(t.Name(i)) == self {
			base, found = fn.Entry()-uintptr(t.EntryOff(i)), true
			break
		}
	}
	if !found {
		return 0, errNotSelf
	}
	step := t.NFunc/16 + 1
	for i := 0; i < t.NFunc; i += step {
		name := t.Name(i)
		if bytes.IndexByte(name, '[') >= 0 || bytes.IndexByte(name, '.') < 0 {
			continue // printed as F[...], or not a Go function
		}
		got := runtime.FuncForPC(base + uintptr(t.EntryOff(i)))
		if got == nil || got.Name() != string(name) {
			return 0, errNotSelf
		}
	}
	return base, nil
}

// inlineCollector aggregates the inlined functions of the table by name.
// Where the inline trees cannot be located in the file, it names them by
// asking the runtime to unwind one pc of each inline range
// (runtime.CallersFrames reads the trees of the running process).
type inlineCollector struct {
	byName map[string]int32
	out    []inlinedFunc
	pcs    []uintptr
}

func newInlineCollector() *inlineCollector {
	return &inlineCollector{byName: map[string]int32{}}
}

// name returns the name of the innermost function at pc, as the runtime
// unwinds it.
func (c *inlineCollector) name(pc uintptr) string {
	c.pcs = append(c.pcs[:0], pc+1, 1)
	fr, _ := runtime.CallersFrames(c.pcs).Next()
	if fr.PC != pc {
		return ""
	}
	return fr.Function
}

func (c *inlineCollector) add(calls []int32, outer string, entry uintptr, ranges []gofunc.InlRange, str func([]byte) string) []int32 {
	// Each pc is followed by an invalid one (1) so that CallersFrames
	// expands the inlined frames at it, and the group of frames of a pc
	// starts with the frame whose PC is that pc.
	c.pcs = c.pcs[:0]
	for _, r := range ranges {
		c.pcs = append(c.pcs, entry+uintptr(r.PC)+1, 1)
	}
	frames := runtime.CallersFrames(c.pcs)
	g := 0
	for g < len(ranges) {
		fr, more := frames.Next()
		if fr.PC == entry+uintptr(ranges[g].PC) && fr.Function != "" {
			calls = append(calls, c.record([]byte(fr.Function), 0, outer, &ranges[g], str))
			g++
		}
		if !more {
			break
		}
	}
	return calls
}

// record counts one inline site of the function name, declared at line
// (0 if unknown), in the real function outer, and returns the function's
// index.
func (c *inlineCollector) record(name []byte, line int32, outer string, r *gofunc.InlRange, str func([]byte) string) int32 {
	i, ok := c.byName[string(name)]
	if !ok {
		s := string(name)
		if strings.IndexByte(s, '[') >= 0 {
			// One entry for all instantiations of a generic function.
			s = gofunc.ElideTypeArgs(s)
			if j, ok := c.byName[s]; ok {
				c.byName[string(name)] = j
				return c.count(j, line, r)
			}
			c.byName[string(name)] = int32(len(c.out))
		}
		i = int32(len(c.out))
		c.byName[s] = i
		c.out = append(c.out, inlinedFunc{Name: s, Line: line, file: str(r.File), minLine: r.MinLine, maxLine: r.MaxLine, into: gofunc.PrintedName(outer)})
	}
	return c.count(i, line, r)
}

func (c *inlineCollector) count(i, line int32, r *gofunc.InlRange) int32 {
	f := &c.out[i]
	f.sites++
	if f.Line == 0 {
		f.Line = line
	}
	if r.MinLine > 0 && f.file == string(r.File) {
		if f.minLine == 0 || r.MinLine < f.minLine {
			f.minLine = r.MinLine
		}
		f.maxLine = max(f.maxLine, r.MaxLine)
	}
	return i
}

func (c *inlineCollector) result() []inlinedFunc { return c.out }
