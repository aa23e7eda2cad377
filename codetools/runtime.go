package codetools

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/embedmcp/mcp/codetools/internal/gofunc"
)

// runtimeTable is the function table of the running binary: the functions
// linked into it and the functions inlined into them.
type runtimeTable struct {
	funcs   []runtimeFunc
	inlined []inlinedFunc
	// calls lists, for funcs[i], the indexes in inlined of the functions
	// inlined into it: calls[funcs[i].calls[0]:funcs[i].calls[1]].
	calls []int32
}

// runtimeFunc is one function of the table.
type runtimeFunc struct {
	name string // symbol name as linked
	file string // file of the entry, as recorded by the compiler
	line int    // line of the func keyword (startLine)
	// minLine and maxLine bound the lines of the function's own code in
	// file; 0 if unknown.
	minLine, maxLine int32
	calls            [2]int32
}

// inlinedFunc is a function whose body was inlined somewhere.
type inlinedFunc struct {
	name string // symbol name, type arguments elided (F[...].G[...].func1)
	line int32  // line of the func keyword, 0 if unknown
	file string
	// minLine and maxLine bound the lines of its inlined code.
	minLine, maxLine int32
	// into is the first real function it was found inlined into, as the
	// runtime prints it; sites counts the inline sites.
	into  string
	sites int32
}

// runtimeLimitations describes what the runtime source reads.
const runtimeLimitations = "Runtime entries come from the function table (pclntab) of the running executable, read once " +
	"(on first use or Catalog.Warm) and then cached: every linked function with its file and declaration line, and " +
	"every function inlined into another one; closures, method values and inlined code are attributed to the " +
	"declaration that contains them. Functions removed by the linker are not listed. Build provenance comes from " +
	"debug.ReadBuildInfo."

// readRuntime reads the function table of the running executable.
func readRuntime() (*runtimeTable, error) {
	f, err := openSelf()
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
	return decodeTable(t)
}

// openSelf opens the executable file of this process. On Linux,
// /proc/self/exe is the running file even if the path was replaced since
// it started.
func openSelf() (*os.File, error) {
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

// decode reads every function. It converts a malformed table into an
// error instead of a panic.
func decodeTable(t *gofunc.Table) (rt *runtimeTable, err error) {
	defer func() {
		if r := recover(); r != nil {
			rt, err = nil, fmt.Errorf("%w: %v", gofunc.ErrMalformed, r)
		}
	}()
	base, err := textBase(t)
	if err != nil {
		return nil, err
	}
	rt = &runtimeTable{funcs: make([]runtimeFunc, 0, t.NFunc)}
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
		rf := runtimeFunc{name: string(f.Name), file: str(f.File), line: int(f.StartLine),
			minLine: f.OwnMin, maxLine: f.OwnMax}
		rf.calls[0] = int32(len(rt.calls))
		switch {
		case len(ranges) == 0:
		case goFunc >= 0 && f.Tree != ^uint32(0):
			for k := range ranges {
				c := t.TreeEntry(t.Data, goFunc, f.Tree, ranges[k].Index)
				rt.calls = append(rt.calls, inl.record(gofunc.CString(t.FuncNames, c.NameOff), c.StartLine, rf.name, &ranges[k], str))
			}
		default:
			rt.calls = inl.add(rt.calls, rf.name, base+uintptr(f.Entry), ranges, str)
		}
		rf.calls[1] = int32(len(rt.calls))
		rt.funcs = append(rt.funcs, rf)
	}
	rt.inlined = inl.result()
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
		c.out = append(c.out, inlinedFunc{name: s, line: line, file: str(r.File), minLine: r.MinLine, maxLine: r.MaxLine, into: gofunc.PrintedName(outer)})
	}
	return c.count(i, line, r)
}

func (c *inlineCollector) count(i, line int32, r *gofunc.InlRange) int32 {
	f := &c.out[i]
	f.sites++
	if f.line == 0 {
		f.line = line
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
