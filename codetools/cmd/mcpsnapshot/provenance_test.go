package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools"
)

// The adopter module of TestProvenanceOfRealBuilds: a main package that
// embeds its snapshot and prints the code_definition answer for each name
// on its command line, a dependency replaced by a local directory and one
// served by a module proxy at two versions.
const (
	adopterMain = `package main

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"os"

	"example.com/local"
	"example.com/versioned"
	"github.com/embedmcp/mcp/codetools"
)

//go:embed snapshot
var snapshotFS embed.FS

// Hello greets through both dependencies.
func Hello() string { return local.Greeting() + versioned.Name() }

func main() {
	snap, _ := fs.Sub(snapshotFS, "snapshot")
	c := codetools.NewCatalog(&codetools.Options{Snapshot: snap})
	out := map[string]any{"hello": Hello()}
	for _, name := range os.Args[1:] {
		d, err := c.Definition(context.Background(), codetools.DefinitionQuery{Name: name})
		if err != nil {
			out[name] = err.Error()
			continue
		}
		out[name] = d.Consistency
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`
	localGo     = "package local\n\n// Greeting is kept by a local replacement.\n//\n//go:noinline\nfunc Greeting() string {\n\treturn \"hello, \"\n}\n"
	versionedGo = "package versioned\n\n// Name comes from a module proxy.\n//\n//go:noinline\nfunc Name() string {\n\treturn \"%s\"\n}\n"
)

// writeProxyModule adds module example.com/versioned at version to the
// file proxy in dir.
func writeProxyModule(t *testing.T, dir, version string) {
	t.Helper()
	at := filepath.Join(dir, "example.com", "versioned", "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	mod := "module example.com/versioned\n\ngo 1.26\n"
	f, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, content := range map[string]string{"go.mod": mod, "versioned.go": strings.Replace(versionedGo, "%s", version, 1)} {
		w, err := zw.Create("example.com/versioned@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, content)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(at, version+".mod"), []byte(mod), 0o644)
	os.WriteFile(filepath.Join(at, version+".info"), []byte(`{"Version":"`+version+`","Time":"2026-01-01T00:00:00Z"}`), 0o644)
	list, _ := os.ReadFile(filepath.Join(at, "list"))
	os.WriteFile(filepath.Join(at, "list"), append(list, version+"\n"...), 0o644)
}

func lineOf(src, s string) int {
	return strings.Count(src[:strings.Index(src, s)], "\n") + 1
}

// copyCached adds a module from the local module cache to the file proxy.
func copyCached(t *testing.T, proxy, path, version string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "cache", "download", filepath.FromSlash(path), "@v")
	dst := filepath.Join(proxy, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".info", ".mod", ".zip"} {
		data, err := os.ReadFile(filepath.Join(src, version+ext))
		if err != nil {
			t.Skipf("%s@%s is not in the module cache: %v", path, version, err)
		}
		os.WriteFile(filepath.Join(dst, version+ext), data, 0o644)
	}
	os.WriteFile(filepath.Join(dst, "list"), []byte(version+"\n"), 0o644)
}

// TestProvenanceOfRealBuilds builds a real adopter binary twice and asks
// it about its own code:
//
//   - generate, commit, build: the main module's snapshot matches;
//   - then, without regenerating: an edit that moves lines of the main
//     module makes it stale, naming the first function that differs; an
//     edit of a locally replaced module that moves no line leaves it
//     unverified; a version bump of a dependency makes it stale.
func TestProvenanceOfRealBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	needGo(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not available")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	proxy := filepath.Join(work, "proxy")
	writeProxyModule(t, proxy, "v1.0.0")
	writeProxyModule(t, proxy, "v1.1.0")
	copyCached(t, proxy, "github.com/google/jsonschema-go", "v0.4.3")
	copyCached(t, proxy, "github.com/google/go-cmp", "v0.7.0") // for go mod tidy: jsonschema-go tests use it
	// For go mod tidy: the library's own tests import runtimetools.
	copyCached(t, proxy, "github.com/google/pprof", "v0.0.0-20260906184651-6331bc6350fe")
	app := filepath.Join(work, "app")
	for name, content := range map[string]string{
		"app/go.mod": "module example.com/app\n\ngo 1.26\n\nrequire (\n\texample.com/local v0.0.0-00010101000000-000000000000\n" +
			"\texample.com/versioned v1.0.0\n\tgithub.com/embedmcp/mcp v0.0.0-00010101000000-000000000000\n)\n\n" +
			"replace example.com/local => ../local\n\nreplace github.com/embedmcp/mcp => " + root + "\n",
		"app/main.go":    adopterMain,
		"local/go.mod":   "module example.com/local\n\ngo 1.26\n",
		"local/local.go": localGo,
	} {
		p := filepath.Join(work, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOPROXY=file://"+filepath.ToSlash(proxy), "GOSUMDB=off", "GOFLAGS=-modcacherw",
		"GOMODCACHE="+filepath.Join(work, "modcache"), "GONOSUMDB=*", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	sh := func(dir, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	sh(app, "go", "mod", "tidy")
	cfg := config{dir: app, env: env, out: "snapshot", pkg: ".", sel: codetools.Selection{Deps: true}}
	if _, err := runConfig(ctx, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	sh(app, "git", "init", "-q")
	sh(app, "git", "add", "-A")
	sh(app, "git", "commit", "-qm", "generated")
	bin := filepath.Join(work, "app.bin")
	build := func() {
		sh(app, "go", "build", "-buildvcs=true", "-o", bin, ".")
	}
	query := func() map[string]codetools.Consistency {
		t.Helper()
		cmd := exec.Command(bin, "main.Hello", "example.com/local.Greeting", "example.com/versioned.Name")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(out, &raw); err != nil {
			t.Fatalf("%s: %s", err, out)
		}
		got := map[string]codetools.Consistency{}
		for k, v := range raw {
			var c codetools.Consistency
			if k != "hello" && json.Unmarshal(v, &c) != nil {
				t.Fatalf("%s: %s", k, v)
			}
			got[k] = c
		}
		return got
	}
	expect := func(t *testing.T, c codetools.Consistency, status string, reason ...string) {
		t.Helper()
		if c.Status != status {
			t.Errorf("status %s, want %s: %s", c.Status, status, c.Reason)
		}
		for _, r := range reason {
			if !strings.Contains(c.Reason, r) {
				t.Errorf("reason %q lacks %q", c.Reason, r)
			}
		}
	}
	build()
	first := query()
	t.Run("commit after generate: match", func(t *testing.T) {
		expect(t, first["main.Hello"], codetools.StatusMatch, "line table agrees", "clean git checkout")
		expect(t, first["example.com/versioned.Name"], codetools.StatusMatch, "v1.0.0")
	})
	// Without regenerating: move lines of the main module, change the
	// local module's code on the same lines, bump the dependency.
	edited := strings.Replace(adopterMain, "// Hello greets", "// An added line.\n\n// Hello greets", 1)
	os.WriteFile(filepath.Join(app, "main.go"), []byte(edited), 0o644)
	os.WriteFile(filepath.Join(work, "local", "local.go"), []byte(strings.Replace(localGo, "hello, ", "howdy, ", 1)), 0o644)
	sh(app, "go", "get", "example.com/versioned@v1.1.0")
	build()
	second := query()
	t.Run("moved lines: stale, naming the first function", func(t *testing.T) {
		c := second["main.Hello"]
		expect(t, c, codetools.StatusStale, fmt.Sprintf("example.com/app.Hello is declared at line %d in the snapshot, line %d in the binary",
			lineOf(adopterMain, "func Hello"), lineOf(edited, "func Hello")))
		if c.FirstDifference == nil || c.FirstDifference.Name != "example.com/app.Hello" {
			t.Errorf("first difference %+v", c.FirstDifference)
		}
	})
	t.Run("local replacement edited on the same lines: unverified", func(t *testing.T) {
		expect(t, first["example.com/local.Greeting"], codetools.StatusUnverified, "replaced by the local directory ../local")
		expect(t, second["example.com/local.Greeting"], codetools.StatusUnverified, "replaced by the local directory ../local")
		if second["example.com/local.Greeting"].Lines.Status != codetools.StatusMatch {
			t.Errorf("lines %+v", second["example.com/local.Greeting"].Lines)
		}
	})
	t.Run("dependency bumped: stale", func(t *testing.T) {
		expect(t, second["example.com/versioned.Name"], codetools.StatusStale, "is v1.0.0", "v1.1.0 h1:")
	})
	// mcpsnapshot -check sees all of it.
	cfg.check = true
	_, err = runConfig(ctx, cfg, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "differs src/example.com/app/main.go.txt.gz") ||
		!strings.Contains(err.Error(), "src/example.com/local/local.go.txt.gz") || !strings.Contains(err.Error(), "manifest.json") {
		t.Errorf("-check after the edits: %v", err)
	}
}
