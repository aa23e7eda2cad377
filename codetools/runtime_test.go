package codetools

import (
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"runtime"
	"strings"
	"testing"
)

// probeType exercises method spellings in the real binary.
type probeType struct{ n int }

// probePtr is a pointer-receiver method linked into the test binary.
//
//go:noinline
func (p *probeType) probePtr() int { return p.n + 1 }

// runtimeProbe is a function linked into the test binary.
//
//go:noinline
func runtimeProbe(n int) int {
	f := func() int { return n * 2 }
	return f() + (&probeType{n}).probePtr()
}

// declLine returns the line of the declaration of name in this file.
func declLine(t *testing.T, name string) int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "runtime_test.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			return fset.Position(fd.Pos()).Line
		}
	}
	t.Fatalf("%s not declared", name)
	return 0
}

func TestRuntimeSource(t *testing.T) {
	if runtimeProbe(1) != 4 {
		t.Fatal("probe")
	}
	c := NewCatalog(&Options{Server: "self"})
	const pkg = "github.com/embedmcp/mcp/codetools"
	d, err := c.Definition(ctx, DefinitionQuery{Name: pkg + ".runtimeProbe"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Source != SourceRuntime || !d.Linked || d.SourceAvailable || d.PackageKey != pkg {
		t.Errorf("runtimeProbe: %+v", d)
	}
	if d.SourceFile != pkg+"/runtime_test.go" || d.Line != declLine(t, "runtimeProbe") {
		t.Errorf("runtimeProbe at %s:%d, want %s/runtime_test.go:%d", d.SourceFile, d.Line, pkg, declLine(t, "runtimeProbe"))
	}
	// Both receiver spellings and the closure resolve to the declarations.
	for in, want := range map[string]string{
		pkg + ".probeType.probePtr":    pkg + ".(*probeType).probePtr",
		pkg + ".runtimeProbe.func1":    pkg + ".runtimeProbe",
		pkg + ".(*probeType).probePtr": pkg + ".(*probeType).probePtr",
	} {
		d, err := c.Definition(ctx, DefinitionQuery{Name: in})
		if err != nil || d.Name != want {
			t.Errorf("Definition(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	// The answer agrees with runtime.FuncForPC of a known function.
	pc := reflectPC(runtimeProbe)
	fn := runtime.FuncForPC(pc)
	_, line := fn.FileLine(fn.Entry())
	if d.Line != line {
		t.Errorf("line %d, runtime.FuncForPC says %d", d.Line, line)
	}
	res, err := c.Search(ctx, SearchQuery{Query: "runtimeprobe"})
	if err != nil || res.Total != 1 || res.Results[0].Name != pkg+".runtimeProbe" {
		t.Fatalf("search: %v %+v", err, res)
	}
	cov := res.Coverage
	if cov.RuntimeError != "" || cov.Entries < 1000 || cov.Std == 0 || !cov.NoSnapshot {
		t.Errorf("coverage = %+v", cov)
	}
	// Standard library and build-machine paths are never absolute.
	d, err = c.Definition(ctx, DefinitionQuery{Name: "runtime.main"})
	if err != nil {
		t.Fatal(err)
	}
	if d.SourceFile != "$GOROOT/src/runtime/proc.go" {
		t.Errorf("runtime.main file = %q", d.SourceFile)
	}
	x, _ := c.index(ctx)
	wd, _ := os.Getwd()
	for i := range x.Entries {
		e := &x.Entries[i]
		if f := x.FileOf(e); snapshot.IsAbs(f) || strings.Contains(f, wd) {
			t.Fatalf("%s has absolute file %q", e.ID, f)
		}
	}
	if d.Build == nil || d.Build.GoVersion != runtime.Version() {
		t.Errorf("build = %+v", d.Build)
	}
}

// reflectPC returns the entry PC of f.
func reflectPC(f func(int) int) uintptr {
	return **(**uintptr)(unsafePointer(&f))
}
