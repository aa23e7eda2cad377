package mcp_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The tests of this file check the documentation of every module of the
// repository against its code: every exported name has a doc comment, the
// names the Markdown documents give (API names, tests, files) exist, the
// entry points have runnable Examples, and the compatibility report lists
// exactly the conformance suite's expected failures.

// goFile is one parsed Go file of the repository.
type goFile struct {
	path string // slash-separated, relative to the repository root
	file *ast.File
	fset *token.FileSet
}

// repoGoFiles parses every Go file of the repository, test files included,
// in every module, leaving out testdata, hidden directories and installed
// packages.
func repoGoFiles(t *testing.T) []goFile {
	t.Helper()
	var files []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		files = append(files, goFile{filepath.ToSlash(path), f, fset})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files: not run from the repository root?", len(files))
	}
	return files
}

// libraryPackage reports whether the package in dir is part of the
// library's API: the packages of the root, otelmcp and redisstore modules
// that are neither commands nor internal.
func libraryPackage(dir string, f *ast.File) bool {
	if f.Name.Name == "main" || slices.Contains(strings.Split(dir, "/"), "internal") {
		return false
	}
	for _, harness := range []string{"bench", "interop", "searcheval", "scripts", "examples", "testsupport"} {
		if dir == harness || strings.HasPrefix(dir, harness+"/") {
			return false
		}
	}
	return true
}

// receiverExported reports whether a method's receiver type is exported
// (the method is then part of the package's API).
func receiverExported(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

// TestExportedNamesDocumented: every exported function, method, type,
// constant and variable of every package of every module has a doc
// comment (a grouped constant or variable may share its group's), and so
// has every exported field of the library's exported structs (a comment
// may cover the run of fields right below it; a jsonschema tag documents
// a field of a tool's input or output).
func TestExportedNamesDocumented(t *testing.T) {
	t.Parallel()
	var missing []string
	for _, gf := range repoGoFiles(t) {
		if strings.HasSuffix(gf.path, "_test.go") {
			continue
		}
		report := func(pos token.Pos, what string) {
			missing = append(missing, gf.fset.Position(pos).String()+": "+what)
		}
		library := libraryPackage(filepath.ToSlash(filepath.Dir(gf.path)), gf.file)
		for _, decl := range gf.file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || receiverExported(d.Recv)) && d.Doc == nil {
					report(d.Pos(), "func "+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if s.Doc == nil && d.Doc == nil {
							report(s.Pos(), "type "+s.Name.Name)
						}
						if st, ok := s.Type.(*ast.StructType); ok && library {
							for _, field := range undocumentedFields(gf.fset, st) {
								report(field.Pos(), "field "+s.Name.Name+"."+field.Name)
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
								report(n.Pos(), n.Name)
							}
						}
					}
				}
			}
		}
	}
	for _, m := range missing {
		t.Errorf("%s has no doc comment", m)
	}
}

// undocumentedFields returns the exported fields of st that have neither a
// comment of their own nor one above the run of fields they close.
func undocumentedFields(fset *token.FileSet, st *ast.StructType) []*ast.Ident {
	var names []*ast.Ident
	covered, prevEnd := false, 0
	for _, field := range st.Fields.List {
		line := fset.Position(field.Pos()).Line
		documented := field.Doc != nil || field.Comment != nil ||
			(field.Tag != nil && strings.Contains(field.Tag.Value, `jsonschema:"`)) ||
			(covered && line == prevEnd+1)
		covered, prevEnd = documented, fset.Position(field.End()).Line
		for _, n := range field.Names {
			if n.IsExported() && !documented {
				names = append(names, n)
			}
		}
	}
	return names
}

// TestDocsNameWhatExists: the tests, fuzz targets, benchmarks, examples and
// files the Markdown documents name exist.
func TestDocsNameWhatExists(t *testing.T) {
	t.Parallel()
	files := repoGoFiles(t)
	funcs := map[string]bool{}
	paths := map[string]bool{}
	for _, gf := range files {
		for _, d := range gf.file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				funcs[fn.Name.Name] = true
			}
		}
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		paths[filepath.ToSlash(path)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]bool{}
	for p := range paths {
		base[p[strings.LastIndex(p, "/")+1:]] = true
	}
	testName := regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark|Example)[A-Z0-9_]\w*`)
	fileName := regexp.MustCompile("`([\\w./-]+\\.(?:go|md|sh|yaml|mjs))`")
	placeholders := map[string]bool{"FuzzName": true, "TestMyTool": true, "TestFS": true} // TestFS: testing/fstest's
	for _, doc := range markdownDocs(t) {
		text := readFile(t, doc)
		for _, name := range testName.FindAllString(text, -1) {
			if !funcs[name] && !placeholders[name] {
				t.Errorf("%s names %s, which no Go file declares", doc, name)
			}
		}
		if doc == "docs/evaluation.md" {
			continue // its file names are queries, of this repository and of another
		}
		for _, m := range fileName.FindAllStringSubmatch(text, -1) {
			p := m[1]
			rel := filepath.ToSlash(filepath.Join(filepath.Dir(doc), p))
			if !paths[p] && !paths[rel] && (strings.Contains(p, "/") || !base[p]) {
				t.Errorf("%s names the file %s, which does not exist", doc, p)
			}
		}
	}
}

// markdownDocs returns the repository's hand-written Markdown documents
// (the generated tool pages of docs/tools are checked by their own tests).
func markdownDocs(t *testing.T) []string {
	t.Helper()
	docs := []string{"README.md", "SECURITY.md", "docs/security.md", "interop/COMPATIBILITY.md", "docs/evaluation.md", "docs/codetools.md", "docs/tasks.md", "docs/runtime.md", "docs/operators.md", "docs/oauth.md", "docs/contributing.md", "docs/design.md", "docs/views.md", "bench/RESULTS.md", "bench/NOTES.md"}
	for _, d := range docs {
		if _, err := os.Stat(d); err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// apiPackages are the packages whose names the documents use, by the name
// they are imported under, and their directories.
var apiPackages = map[string]string{
	"mcp": ".", "codetools": "codetools", "enquiry": "enquiry", "mcptest": "mcptest",
	"runtimetools": "runtimetools", "otelmcp": "otelmcp", "redisstore": "redisstore",
	"oauthmcp": "oauthmcp",
	"console":  "console",
	"tasks":    "tasks",
}

// packageAPI is what a package exports: its top-level names, and for each
// type its methods and fields.
type packageAPI struct {
	names   map[string]bool
	members map[string]map[string]bool // type name → method and field names
}

func loadAPI(t *testing.T, dir string) packageAPI {
	t.Helper()
	api := packageAPI{names: map[string]bool{}, members: map[string]map[string]bool{}}
	member := func(typ, name string) {
		if api.members[typ] == nil {
			api.members[typ] = map[string]bool{}
		}
		api.members[typ][name] = true
	}
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range matches {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					api.names[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					member(id.Name, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							api.names[n.Name] = true
						}
					case *ast.TypeSpec:
						api.names[s.Name.Name] = true
						var fields *ast.FieldList
						switch x := s.Type.(type) {
						case *ast.StructType:
							fields = x.Fields
						case *ast.InterfaceType:
							fields = x.Methods
						}
						if fields == nil {
							continue
						}
						for _, field := range fields.List {
							for _, n := range field.Names {
								member(s.Name.Name, n.Name)
							}
							if len(field.Names) == 0 { // embedded: its name is the type's
								typ := field.Type
								if s, ok := typ.(*ast.StarExpr); ok {
									typ = s.X
								}
								if sel, ok := typ.(*ast.SelectorExpr); ok {
									typ = sel.Sel
								}
								if id, ok := typ.(*ast.Ident); ok {
									member(s.Name.Name, id.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	return api
}

// TestDocsNameRealAPI: the API names the Markdown documents give exist:
// package-qualified names (mcp.NewServer, codetools.Options.Snapshot) in
// their package, and members of the library's types in code spans
// (`HandlerOptions.BodyTimeout`, `Catalog.AddRoutes`) on one of the types
// of that name.
func TestDocsNameRealAPI(t *testing.T) {
	t.Parallel()
	apis := map[string]packageAPI{}
	types := map[string][]packageAPI{}
	for name, dir := range apiPackages {
		api := loadAPI(t, dir)
		apis[name] = api
		for typ := range api.members {
			if ast.IsExported(typ) {
				types[typ] = append(types[typ], api)
			}
		}
	}
	qualified := regexp.MustCompile(`\b(mcp|codetools|enquiry|mcptest|runtimetools|otelmcp|redisstore|oauthmcp)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)
	spanned := regexp.MustCompile("`\\(?\\*?([A-Z]\\w*)\\)?\\.([A-Z]\\w*)")
	for _, doc := range markdownDocs(t) {
		switch doc {
		case "bench/RESULTS.md", "bench/NOTES.md":
			continue // their mcp is also go-sdk's and mcp-go's package
		case "docs/evaluation.md":
			continue // its ids are the answers of a past run
		}
		text := readFile(t, doc)
		for _, m := range qualified.FindAllStringSubmatch(text, -1) {
			api := apis[m[1]]
			switch {
			case !api.names[m[2]]:
				t.Errorf("%s names %s.%s, which package %s does not declare", doc, m[1], m[2], m[1])
			case m[3] != "" && api.members[m[2]] != nil && !api.members[m[2]][m[3]]:
				t.Errorf("%s names %s, but %s.%s has no method or field %s", doc, m[0], m[1], m[2], m[3])
			}
		}
		for _, m := range spanned.FindAllStringSubmatch(text, -1) {
			candidates, ok := types[m[1]]
			if !ok {
				continue // not one of the library's types (http.Server, ...)
			}
			if !slices.ContainsFunc(candidates, func(api packageAPI) bool { return api.members[m[1]][m[2]] }) {
				t.Errorf("%s names %s.%s, but no %s of the library has a method or field %s", doc, m[1], m[2], m[1], m[2])
			}
		}
	}
}

// TestCompatibilityMatchesExpectedFailures: interop/COMPATIBILITY.md lists
// exactly the scenarios of the conformance suite's expected-failures files,
// each for the runs whose file lists it, and names the versions of the
// suites and clients that the lockfiles and go.mod pin.
func TestCompatibilityMatchesExpectedFailures(t *testing.T) {
	const doc = "interop/COMPATIBILITY.md"
	text := readFile(t, doc)
	// The runs, as the table's "Suite versions" column names them.
	files := map[string]string{
		"0.1.16":           "interop/conformance/expected-failures.yaml",
		"0.2 (2025-11-25)": "interop/conformance/next/expected-failures-2025-11-25.yaml",
		"0.2 (2026-07-28)": "interop/conformance/next/expected-failures-2026-07-28.yaml",
	}
	entry := regexp.MustCompile(`(?m)^  - ([a-z0-9-]+)`)
	want := map[string]bool{} // "run scenario"
	for run, file := range files {
		for _, m := range entry.FindAllStringSubmatch(readFile(t, file), -1) {
			want[run+" "+m[1]] = true
		}
	}
	got := map[string]bool{}
	_, table, ok := strings.Cut(text, "| Scenario | Suite versions | Why it fails |")
	if !ok {
		t.Fatalf("%s has no table of expected failures", doc)
	}
	name := regexp.MustCompile("`([a-z0-9-]+)`")
	for _, line := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			break
		}
		for _, run := range strings.Split(strings.TrimSpace(cells[2]), ", ") {
			if _, ok := files[run]; !ok {
				t.Errorf("%s: unknown suite version %q in %q", doc, run, line)
			}
			for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
				got[run+" "+m[1]] = true
			}
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("%s does not list the expected failure %s", doc, k)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("%s lists %s, which no expected-failures file does", doc, k)
		}
	}

	// The pinned versions.
	pinned := regexp.MustCompile(`"(@modelcontextprotocol/[a-z]+)": "([^"]+)"`)
	var versions []string
	for _, pkg := range []string{"interop/conformance/package.json", "interop/conformance/next/package.json", "interop/clients/package.json"} {
		for _, m := range pinned.FindAllStringSubmatch(readFile(t, pkg), -1) {
			versions = append(versions, m[1]+" "+m[2])
		}
	}
	required := regexp.MustCompile(`(?m)^\s+github\.com/(modelcontextprotocol/go-sdk|mark3labs/mcp-go) (v\S+)`)
	for _, m := range required.FindAllStringSubmatch(readFile(t, "interop/go.mod"), -1) {
		versions = append(versions, m[1]+" "+m[2])
	}
	if len(versions) != 6 {
		t.Fatalf("found the versions %q, want the two suites, two Node clients and two Go clients", versions)
	}
	for _, v := range versions {
		_, version, _ := strings.Cut(v, " ")
		for _, d := range []string{doc, "README.md"} {
			if !strings.Contains(readFile(t, d), "| "+version+" |") {
				t.Errorf("%s does not give %s in a table, the version the test command runs", d, v)
			}
		}
	}
}

// TestEntryPointsHaveExamples: the entry points of every package of the
// library have runnable Examples (with an Output comment, so that go test
// runs them), which godoc shows beside them. redisstore's needs a Redis,
// so it is compiled, not run.
func TestEntryPointsHaveExamples(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"mcp": {"ExampleAddTool", "ExampleNewHandler", "ExampleServer_Handle", "ExampleServeStdio",
			"ExampleProtocol", "ExampleToolMiddleware", "ExampleMiddleware", "ExampleHandler_Close"},
		"codetools":    {"ExampleRegister", "ExampleNewServeMux", "ExampleCatalog_Warm"},
		"enquiry":      {"ExampleRegister"},
		"runtimetools": {"ExampleRegister", "ExampleNewLogRing", "ExampleHealth_Run"},
		"mcptest":      {"ExampleCheckTool", "ExampleRecord"},
		"otelmcp":      {"ExampleMiddleware"},
		"redisstore":   {"Example"},
		"oauthmcp":     {"ExampleNew", "ExampleScopeMap"},
		"console":      {"ExampleNew"},
		"tasks":        {"ExampleNewMemoryStore", "ExampleTestStore"},
	}
	for pkg, dir := range apiPackages {
		runnable := map[string]bool{}
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") {
					continue
				}
				output := false
				for _, c := range f.Comments {
					if c.Pos() > fn.Body.Lbrace && c.End() < fn.Body.Rbrace &&
						(strings.HasPrefix(c.Text(), "Output:") || strings.HasPrefix(c.Text(), "Unordered output:")) {
						output = true
					}
				}
				runnable[fn.Name.Name] = output || pkg == "redisstore"
			}
		}
		for _, name := range want[pkg] {
			if ok, found := runnable[name]; !found {
				t.Errorf("package %s has no %s", pkg, name)
			} else if !ok {
				t.Errorf("%s of package %s has no Output comment: go test compiles it but does not run it", name, pkg)
			}
		}
	}
}

// TestPackagesFollowConventions checks the conventions of docs/design.md
// that can be read off the code, in every package of the library:
// context.Context is the first parameter wherever one is taken; options are
// passed as pointers (*XOptions, which may be nil); Register and Tools have
// the shapes Register(ts *mcp.ToolSet, …) error and Tools(…) ([]mcp.Tool,
// error); the only exported variables are error sentinels (no mutable
// package-level state); no init functions.
func TestPackagesFollowConventions(t *testing.T) {
	t.Parallel()
	typeName := func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			return fmt.Sprint(x.X) + "." + x.Sel.Name
		case *ast.StarExpr:
			if s, ok := x.X.(*ast.SelectorExpr); ok {
				return "*" + fmt.Sprint(s.X) + "." + s.Sel.Name
			}
			if id, ok := x.X.(*ast.Ident); ok {
				return "*" + id.Name
			}
		case *ast.ArrayType:
			if x.Len == nil {
				if s, ok := x.Elt.(*ast.SelectorExpr); ok {
					return "[]" + fmt.Sprint(s.X) + "." + s.Sel.Name
				}
			}
		}
		return ""
	}
	for _, gf := range repoGoFiles(t) {
		if strings.HasSuffix(gf.path, "_test.go") {
			continue
		}
		at := func(n ast.Node) string { return gf.fset.Position(n.Pos()).String() }
		// context.Context first, everywhere.
		ast.Inspect(gf.file, func(n ast.Node) bool {
			ft, ok := n.(*ast.FuncType)
			if !ok || ft.Params == nil {
				return true
			}
			i := 0
			for _, field := range ft.Params.List {
				if typeName(field.Type) == "context.Context" && i != 0 {
					t.Errorf("%s: context.Context is parameter %d, not the first", at(field), i+1)
				}
				i += max(len(field.Names), 1)
			}
			return true
		})
		if !libraryPackage(filepath.ToSlash(filepath.Dir(gf.path)), gf.file) {
			continue
		}
		for _, decl := range gf.file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					t.Errorf("%s: an init function", at(d))
				}
				if !d.Name.IsExported() || (d.Recv != nil && !receiverExported(d.Recv)) {
					continue
				}
				for _, field := range d.Type.Params.List {
					if name := typeName(field.Type); strings.HasSuffix(name, "Options") && !strings.HasPrefix(name, "*") {
						t.Errorf("%s: %s takes %s by value; options are a pointer that may be nil", at(field), d.Name.Name, name)
					}
				}
				var results []string
				if d.Type.Results != nil {
					for _, r := range d.Type.Results.List {
						results = append(results, typeName(r.Type))
					}
				}
				params := d.Type.Params.List
				switch {
				case d.Recv != nil:
				case d.Name.Name == "Register" && (len(params) == 0 || typeName(params[0].Type) != "*mcp.ToolSet" || !slices.Equal(results, []string{"error"})):
					t.Errorf("%s: Register is not Register(ts *mcp.ToolSet, …) error", at(d))
				case d.Name.Name == "Tools" && !slices.Equal(results, []string{"[]mcp.Tool", "error"}):
					t.Errorf("%s: Tools does not return ([]mcp.Tool, error)", at(d))
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, spec := range d.Specs {
					s := spec.(*ast.ValueSpec)
					for i, n := range s.Names {
						if !n.IsExported() {
							continue
						}
						// A sentinel moved to another package stays
						// behind for one release as that package's.
						if sel, ok := s.Values[i].(*ast.SelectorExpr); ok && strings.HasPrefix(n.Name, "Err") && strings.HasPrefix(sel.Sel.Name, "Err") {
							continue
						}
						call, ok := s.Values[i].(*ast.CallExpr)
						if !strings.HasPrefix(n.Name, "Err") || !ok || (fmt.Sprint(call.Fun) != "&{errors New}" && fmt.Sprint(call.Fun) != "&{fmt Errorf}") {
							t.Errorf("%s: exported variable %s is not an error sentinel (errors.New, fmt.Errorf)", at(n), n.Name)
						}
					}
				}
			}
		}
	}
}
