package gofunc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// table reads the function table of the test binary.
func table(t *testing.T) *Table {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return tableOf(t, exe)
}

// tableOf reads the function table of the executable file exe.
func tableOf(t *testing.T, exe string) *Table {
	t.Helper()
	f, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := Section(f)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

//go:noinline
func declared() (pc uintptr, line int) {
	pc, _, line, _ = runtime.Caller(0)
	return pc, line
}

// The table of the running test binary names this package's functions
// with the file and declaration line the runtime reports, and the lines
// of their own code around the line the runtime gives for a pc in it.
func TestTableOfTheTestBinary(t *testing.T) {
	tab := table(t)
	if tab.NFunc < 1000 {
		t.Fatalf("%d functions", tab.NFunc)
	}
	pc, line := declared()
	fn := runtime.FuncForPC(pc)
	want := fn.Name()
	found := false
	for i := range tab.NFunc {
		if string(tab.Name(i)) != want {
			continue
		}
		found = true
		f, _ := tab.Func(i, nil)
		if string(f.Name) != want || filepath.Base(string(f.File)) != "gofunc_test.go" {
			t.Errorf("function %d: %s in %s", i, f.Name, f.File)
		}
		if f.StartLine != int32(line-1) || f.OwnMin > int32(line) || f.OwnMax < int32(line) {
			t.Errorf("%s: declared at %d, own lines %d-%d; the runtime places pc at line %d", f.Name, f.StartLine, f.OwnMin, f.OwnMax, line)
		}
	}
	if !found {
		t.Fatalf("%s is not in the table", want)
	}
	if tab.NameOffset(want) < 0 || tab.NameOffset("no.such.function") != -1 {
		t.Error("NameOffset")
	}
}

// Inline ranges name lines of the file the inlined code comes from.
func TestInlineRanges(t *testing.T) {
	tab := table(t)
	n := 0
	ranges := make([]InlRange, 0, 32)
	for i := 0; i < tab.NFunc && n < 50; i++ {
		var f FuncLines
		f, ranges = tab.Func(i, ranges)
		for _, r := range ranges {
			if len(r.File) == 0 || r.MinLine <= 0 || r.MaxLine < r.MinLine {
				t.Fatalf("%s: inline range %+v", f.Name, r)
			}
			n++
		}
	}
	if n == 0 {
		t.Error("no inline ranges in the test binary")
	}
}

// Bad input is an error, not a panic.
func TestMalformed(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("short"), bytes.Repeat([]byte{0xff}, 64)} {
		if _, err := Parse(data); err == nil {
			t.Errorf("Parse(%q): no error", data)
		}
	}
	if _, err := Section(strings.NewReader("not an executable")); err == nil {
		t.Error("Section of text: no error")
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !errors.Is(r.(error), ErrMalformed) {
				t.Errorf("CString past the end: %v", r)
			}
		}()
		CString([]byte("abc"), 10)
	}()
}
