package codetools

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/embedmcp/mcp/codetools/internal/gofunc"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools/internal/symfixture"
	"github.com/embedmcp/mcp/codetools/internal/symfixture/admin"
	"github.com/embedmcp/mcp/internal/codesnap"
)

const (
	modPath    = "github.com/embedmcp/mcp"
	symPkg     = modPath + "/codetools/internal/symfixture"
	adminPkg   = symPkg + "/admin"
	adminFile  = adminPkg + "/admin.go"
	driverFile = symPkg + "/driver.go"
)

// funcName returns the symbol of the code of function value f, as a
// stack trace prints it.
func funcName(f any) string {
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
}

// symSnapshot is a snapshot of the symfixture packages as they are on
// disk (and so in this test binary).
func symSnapshot(t *testing.T) *Catalog {
	t.Helper()
	var files []srcFile
	for _, f := range []struct{ pkg, dir, name string }{
		{symPkg, "internal/symfixture", "driver.go"},
		{adminPkg, "internal/symfixture/admin", "admin.go"},
	} {
		data, err := os.ReadFile(filepath.Join(f.dir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, srcFile{f.pkg, f.name, string(data)})
	}
	man := codesnap.Manifest{MainPackage: modPath + "/cmd/none", GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		Modules: []codesnap.Module{{Path: modPath, Main: true}}}
	return NewCatalog(&Options{Snapshot: makeSnapshot(t, man, files)})
}

// TestSymbolTruth links the symfixture packages into this binary and
// checks that every closure, method value, generic instantiation and
// inlined function of admin is attributed to its real declaration, with
// the evidence of how it is linked, against what the runtime itself says
// of the functions.
func TestSymbolTruth(t *testing.T) {
	check, method, strs, tripled := symfixture.Wire("s3cret", 2)
	<-admin.Started
	if !check("Bearer s3cret") || method("x") || len(strs) != 2 || tripled != 6 || admin.Hooks[0]() != 7 {
		t.Fatal("fixture misbehaves")
	}
	for _, withSnapshot := range []bool{true, false} {
		c := NewCatalog(&Options{})
		if withSnapshot {
			c = symSnapshot(t)
		}
		// The closure of the inlined RequireToken is named after Wire.
		closure := funcName(check)
		if !strings.HasPrefix(closure, symPkg+".Wire.RequireToken.func") {
			t.Fatalf("closure of the inlined RequireToken is %s; the compiler no longer inlines it", closure)
		}
		d := define(t, c, closure)
		if d.Name != adminPkg+".RequireToken" || d.RequestedName != closure || !d.Linked || d.Runtime == nil ||
			!d.Runtime.Inlined || !d.Runtime.Closures || d.Runtime.InlinedInto != symPkg+".Wire" || d.Runtime.File != adminFile {
			t.Errorf("snapshot %v: %s resolves to %s, runtime %+v", withSnapshot, closure, d.Name, d.Runtime)
		}
		if !d.Runtime.Exact || d.Runtime.Line != lineOf(t, readFile(t, "internal/symfixture/admin/admin.go"), "func RequireToken") {
			t.Errorf("snapshot %v: RequireToken at line %d (exact %v), want its declaration line", withSnapshot, d.Runtime.Line, d.Runtime.Exact)
		}
		if !strings.Contains(d.LinkedEvidence, "inlined (into "+symPkg+".Wire") {
			t.Errorf("linked evidence %q does not name Wire", d.LinkedEvidence)
		}
		// The method value's wrapper resolves to the method.
		fm := funcName(method)
		if fm != adminPkg+".(*Token).Check-fm" {
			t.Fatalf("method value symbol %s", fm)
		}
		if d := define(t, c, fm); d.Name != adminPkg+".(*Token).Check" || !d.Linked || !d.Runtime.Closures || d.Runtime.File != adminFile {
			t.Errorf("snapshot %v: %s resolves to %s, runtime %+v", withSnapshot, fm, d.Name, d.Runtime)
		}
		// A function that exists only inlined is linked, inlined, with its
		// declaration line from the inline tree.
		d = define(t, c, adminPkg+".Triple")
		if !d.Linked || d.Runtime == nil || !d.Runtime.Inlined || !d.Runtime.Exact || d.Runtime.File != adminFile ||
			d.Runtime.Line != lineOf(t, readFile(t, "internal/symfixture/admin/admin.go"), "func Triple") {
			t.Errorf("snapshot %v: Triple: linked %v, runtime %+v", withSnapshot, d.Linked, d.Runtime)
		}
		// The generic function is linked (inlined into Wire).
		if d := define(t, c, adminPkg+".Map"); !d.Linked || !d.Runtime.Inlined {
			t.Errorf("snapshot %v: Map: %+v", withSnapshot, d.Runtime)
		}
		// A generic function instantiated over an interface, whose shape is
		// named with spaces, is linked on its own; the closure of the
		// generic function inlined into it belongs to that function, also
		// under the name the runtime prints for it (Keys[...].func1).
		if d := define(t, c, symPkg+".Keys"); !d.Linked || d.Runtime == nil || !d.Runtime.Exact || d.Runtime.File != driverFile ||
			d.Runtime.Line != lineOf(t, readFile(t, "internal/symfixture/driver.go"), "func Keys") {
			t.Errorf("snapshot %v: Keys: linked %v, runtime %+v", withSnapshot, d.Linked, d.Runtime)
		}
		if got := symfixture.Keyed; len(got) != 1 || got[0] != "s3cret" || len(symfixture.KeyFuncs) != 1 {
			t.Fatalf("Keys returned %q", got)
		}
		keyClosure := funcName(symfixture.KeyFuncs[0])
		if !strings.HasPrefix(keyClosure, symPkg+".Keys[...].func") {
			t.Fatalf("closure of KeyFunc inlined into Keys prints as %s", keyClosure)
		}
		for _, name := range []string{adminPkg + ".KeyFunc", keyClosure} {
			if d := define(t, c, name); d.Name != adminPkg+".KeyFunc" || !d.Linked || !d.Runtime.Inlined || !d.Runtime.Closures ||
				d.Runtime.File != adminFile || d.Runtime.InlinedInto != symPkg+".Keys[...]" {
				t.Errorf("snapshot %v: %s resolves to %s, linked %v, runtime %+v", withSnapshot, name, d.Name, d.Linked, d.Runtime)
			}
		}
		// The goroutine of admin's init function belongs to init.0.
		x, err := c.index(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := x.Lookup(adminPkg + ".init.0"); !ok || e.Sources&index.SrcRuntime == 0 {
			t.Errorf("snapshot %v: init.0 not linked", withSnapshot)
		}
		// The closure in Hooks' initializer belongs to Hooks when the
		// snapshot tells which variable holds it, and to nothing otherwise.
		hook := funcName(admin.Hooks[0])
		d, err = c.Definition(ctx, DefinitionQuery{Name: hook})
		switch {
		case withSnapshot && (err != nil || d.Name != adminPkg+".Hooks"):
			t.Errorf("%s with a snapshot: %v %v", hook, d, err)
		case !withSnapshot && !errors.Is(err, ErrUnknownName):
			t.Errorf("%s without a snapshot: %v, want ErrUnknownName", hook, err)
		}
		// No entry of the fixture names a file it is not in.
		for _, e := range x.Entries {
			if strings.HasPrefix(e.Pkg, symPkg) && e.Sources&index.SrcRuntime != 0 {
				want := adminFile
				if e.Pkg == symPkg {
					want = driverFile
				}
				if x.base.RtFileOf(&e) != want || x.FileOf(&e) != want {
					t.Errorf("snapshot %v: %s placed in %s / %s", withSnapshot, e.ID, x.FileOf(&e), x.base.RtFileOf(&e))
				}
			}
		}
		if withSnapshot {
			// The line table agrees with the snapshot for all of it.
			d := define(t, c, adminPkg+".RequireToken")
			if d.Consistency.Lines.Status != StatusMatch {
				t.Errorf("lines: %+v", d.Consistency)
			}
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestInlineTreesAgreeWithRuntime reads the inline trees of this binary
// from the file and through runtime.CallersFrames (the fallback) and
// expects the same functions at every inline site.
func TestInlineTreesAgreeWithRuntime(t *testing.T) {
	f, err := index.OpenSelf()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := gofunc.Section(f)
	if err != nil {
		t.Fatal(err)
	}
	decode := func(noTrees bool) *index.RuntimeTable {
		tab, err := gofunc.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		tab.NoTrees = noTrees
		rt, err := index.DecodeTable(tab)
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	trees, frames := decode(false), decode(true)
	if len(trees.Inlined) < 100 || len(trees.Funcs) != len(frames.Funcs) {
		t.Fatalf("%d inlined functions, %d/%d functions", len(trees.Inlined), len(trees.Funcs), len(frames.Funcs))
	}
	withLine := 0
	for _, f := range trees.Inlined {
		if f.Line > 0 {
			withLine++
		}
	}
	if withLine != len(trees.Inlined) {
		t.Errorf("%d of %d inlined functions have a declaration line", withLine, len(trees.Inlined))
	}
	diffs := 0
	for i := range trees.Funcs {
		a := trees.Calls[trees.Funcs[i].Calls[0]:trees.Funcs[i].Calls[1]]
		b := frames.Calls[frames.Funcs[i].Calls[0]:frames.Funcs[i].Calls[1]]
		if len(a) != len(b) {
			t.Fatalf("%s: %d inline sites from the trees, %d from the runtime", trees.Funcs[i].Name, len(a), len(b))
		}
		// Compare the declarations the names stand for: the runtime prints
		// the bodies of range-over-func loops without the functions they
		// were inlined through.
		decl := func(name string) string {
			// The runtime prints a generic symbol from its first type
			// argument to its last as one "[...]", dropping the names
			// between (F[...].G[...].func1 prints as F[...].func1).
			sym, ok := gofunc.ParseSymbol(gofunc.PrintedName(name))
			if !ok || len(sym.Readings()) == 0 {
				return name
			}
			return sym.Pkg + "." + sym.Readings()[0].Outer
		}
		for k := range a {
			if na, nb := decl(trees.Inlined[a[k]].Name), decl(frames.Inlined[b[k]].Name); na != nb {
				if diffs++; diffs < 10 {
					t.Errorf("%s: %s from the tree, %s from the runtime", trees.Funcs[i].Name, na, nb)
				}
			}
		}
	}
}

// TestGenericInstantiationsLinked links a TLS client and server into this
// binary, whose crypto code instantiates generic functions over
// interfaces (shapes named with spaces, as in
// crypto/hkdf.Expand[go.shape.interface { BlockSize() int; … }]), and
// checks that every generic function of the table is in the catalog,
// linked, under its declaration.
func TestGenericInstantiationsLinked(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	res, err := srv.Client().Get(srv.URL)
	srv.Close()
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	rt, err := index.ReadRuntime()
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewCatalog(&Options{}).index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checked, spaced := 0, 0
	for _, f := range rt.Funcs {
		if strings.IndexByte(f.Name, '[') < 0 || f.File == "<autogenerated>" || strings.HasPrefix(f.Name, "main.") {
			continue
		}
		sym, ok := gofunc.ParseSymbol(f.Name)
		if !ok {
			t.Errorf("%s: not read as a declaration", f.Name)
			continue
		}
		if !sym.Own {
			continue
		}
		checked++
		if strings.IndexByte(f.Name, ' ') >= 0 {
			spaced++
		}
		id := index.DeclID(sym.Pkg, sym.Readings()[0].Outer)
		if e, ok := x.Lookup(id); !ok || e.Sources&index.SrcRuntime == 0 {
			t.Errorf("%s: %s not linked in the catalog", f.Name, id)
		}
	}
	if spaced == 0 {
		t.Fatalf("none of %d generic functions is instantiated over an interface; the test proves nothing", checked)
	}
	t.Logf("%d generic functions, %d over shapes named with spaces", checked, spaced)
}

// TestNothingInvented builds the runtime catalog of this test binary and
// checks every entry that comes from the function table against the Go
// source of the packages linked into it (as go list reports them): the
// declaration must exist, and the file must be one of its package's.
func TestNothingInvented(t *testing.T) {
	if testing.Short() {
		t.Skip("lists and parses every package of the test binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	symfixture.Wire("x", 1)
	args := []string{"list", "-deps", "-test", "-json=ImportPath,Dir,Standard,GoFiles,CgoFiles,SFiles,TestGoFiles,Module"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				args = append(args, "-race")
			}
		}
	}
	out, err := exec.Command("go", append(args, ".")...).Output()
	if err != nil {
		t.Fatal(err)
	}
	decls := map[string]bool{}
	files := map[string]bool{}
	c := NewCatalog(&Options{})
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath, Dir                        string
			Standard                               bool
			GoFiles, CgoFiles, SFiles, TestGoFiles []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		path, _, _ := strings.Cut(p.ImportPath, " ")
		goFiles := append(append([]string(nil), p.GoFiles...), p.CgoFiles...)
		if path == modPath+"/codetools" {
			goFiles = append(goFiles, p.TestGoFiles...)
		}
		inits := 0
		for _, name := range goFiles {
			if filepath.IsAbs(name) {
				continue // generated in the build cache
			}
			data, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range funcDecls(string(data), &inits) {
				decls[index.DeclID(path, d)] = true
			}
		}
		for _, name := range append(goFiles, p.SFiles...) {
			if filepath.IsAbs(name) {
				continue
			}
			// An external test package (x_test) shares its directory with x.
			files[snapshot.DisplayPath(filepath.Join(p.Dir, name), strings.TrimSuffix(path, "_test"), c.build.mods, c.build.info.MainModule.Path)] = true
		}
	}
	x, err := c.index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checked, bad := 0, 0
	for _, e := range x.Entries {
		if e.Sources&index.SrcRuntime == 0 || strings.HasSuffix(e.Pkg, ".test") {
			continue
		}
		if e.Linkage&index.RtForeign != 0 {
			// C code and file-local assembly: listed under its symbol, with
			// no package or Go declaration, and a real file if any (or the
			// bare name the table records).
			if e.Pkg != "" || strings.Contains(x.FileOf(&e), "/") && !files[x.FileOf(&e)] || e.Linkage != index.RtForeign {
				t.Errorf("C function %s: package %q file %q", e.ID, e.Pkg, x.FileOf(&e))
			}
			continue
		}
		checked++
		// Code generated by cgo has no source file; assembly functions and
		// functions a go:linkname directive names for another package have
		// no Go declaration of their own name: their file must be real.
		generated := strings.HasPrefix(x.FileOf(&e), "<cgo>/")
		elsewhere := strings.HasSuffix(x.FileOf(&e), ".s") || !strings.Contains(x.FileOf(&e), "/"+e.Pkg+"/") && !strings.HasPrefix(x.FileOf(&e), e.Pkg+"/")
		if !generated && (!decls[e.ID] && !elsewhere || !files[x.FileOf(&e)]) {
			if bad++; bad <= 20 {
				t.Errorf("%s (%s): declared %v, file %s known %v", e.ID, e.Kind, decls[e.ID], x.FileOf(&e), files[x.FileOf(&e)])
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d runtime entries checked", checked)
	}
	t.Logf("%d runtime entries checked, %d invented", checked, bad)
}

// funcDecls returns the names of the functions and methods declared in
// Go source src ("F", "T.M", "(*T).M", "init.N"), from the lines that
// start with "func" (a cheap stand-in for go/parser, which is slow under
// the race detector).
func funcDecls(src string, inits *int) []string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		rest, ok := strings.CutPrefix(line, "func ")
		if !ok {
			continue
		}
		recv := ""
		if strings.HasPrefix(rest, "(") {
			rest = gofunc.StripTypeArgs(rest)
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				continue
			}
			fields := strings.Fields(rest[1:end])
			if len(fields) == 0 {
				continue
			}
			typ := fields[len(fields)-1]
			if i := strings.IndexByte(typ, '['); i >= 0 {
				typ = typ[:i]
			}
			if strings.HasPrefix(typ, "*") {
				recv = "(" + typ + ")."
			} else {
				recv = typ + "."
			}
			rest = strings.TrimSpace(rest[end+1:])
		}
		name := rest
		if i := strings.IndexAny(name, "([ "); i >= 0 {
			name = name[:i]
		}
		if name == "init" && recv == "" {
			name = "init." + strconv.Itoa(*inits)
			*inits++
		}
		out = append(out, recv+name)
	}
	return out
}
