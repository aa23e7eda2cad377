package codetools

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/internal/codesnap"
)

func TestWarmReportsTheBuild(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	st, err := c.Warm(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := c.index(ctx)
	if st.Entries != len(x.base.Entries) || st.Entries == 0 || st.Duration <= 0 || st.AllocatedBytes == 0 ||
		st.RetainedBytes == 0 || st.SnapshotFiles != 4 || st.SnapshotDeclarations == 0 || st.RuntimeFunctions != len(fixtureRuntime(t)) {
		t.Errorf("stats = %+v", st)
	}
	again, err := c.Warm(ctx)
	if err != nil || again != st {
		t.Errorf("second Warm = %+v, %v; want the same build", again, err)
	}
}

// TestColdCallsBuildOnce starts 50 queries on a cold catalog at once: the
// function table is read once and all of them answer.
func TestColdCallsBuildOnce(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	var loads atomic.Int32
	release := make(chan struct{})
	load := c.loadRuntime
	c.loadRuntime = func() (*index.RuntimeTable, error) {
		loads.Add(1)
		<-release // hold the build until every caller waits for it
		return load()
	}
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if i%2 == 0 {
				_, err = c.Search(ctx, SearchQuery{Query: "Ptr"})
			} else {
				_, err = c.Definition(ctx, DefinitionQuery{Name: "main.main"})
			}
			errs <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("the function table was read %d times", n)
	}
}

// TestWarmHonoursTheContext: a caller whose context ends stops waiting,
// the build goes on for the others.
func TestWarmHonoursTheContext(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	release := make(chan struct{})
	load := c.loadRuntime
	c.loadRuntime = func() (*index.RuntimeTable, error) { <-release; return load() }
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := c.Warm(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Warm with an ending context: %v", err)
	}
	close(release)
	if st, err := c.Warm(ctx); err != nil || st.Entries == 0 {
		t.Errorf("Warm after release: %+v %v", st, err)
	}
}

// warnings counts the warnings a catalog logs.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Enabled(context.Context, slog.Level) bool { return true }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		w.mu.Lock()
		defer w.mu.Unlock()
		var b strings.Builder
		b.WriteString(r.Message)
		r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.String()); return true })
		w.msgs = append(w.msgs, b.String())
	}
	return nil
}
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

// TestBadSnapshot feeds damaged and foreign snapshots: the catalog serves
// the binary alone, every answer's limitations say why, the log warns
// once, and nothing panics.
func TestBadSnapshot(t *testing.T) {
	good := fixtureSnapshot(t, nil)
	clone := func(edit func(fstest.MapFS)) fstest.MapFS {
		fsys := fstest.MapFS{}
		for k, v := range good {
			fsys[k] = &fstest.MapFile{Data: bytes.Clone(v.Data)}
		}
		edit(fsys)
		return fsys
	}
	replace := func(name, old, new string) func(fstest.MapFS) {
		return func(fsys fstest.MapFS) {
			fsys[name].Data = bytes.Replace(fsys[name].Data, []byte(old), []byte(new), 1)
		}
	}
	tests := []struct {
		name    string
		fsys    fstest.MapFS
		whole   bool   // the snapshot is not used at all
		because string // in the limitations
	}{
		{"manifest is not JSON", clone(func(f fstest.MapFS) { f[codesnap.ManifestName].Data = []byte("{not json") }), true, "decoding manifest.json"},
		{"manifest of another format", clone(replace(codesnap.ManifestName, codesnap.Format, "embedmcp-codetools-snapshot/1")), true,
			`format "embedmcp-codetools-snapshot/1", this catalog reads "embedmcp-codetools-snapshot/2"`},
		{"no manifest", clone(func(f fstest.MapFS) { delete(f, codesnap.ManifestName) }), true, "no snapshot generated yet (no manifest.json): run mcpsnapshot"},
		{"no index", clone(func(f fstest.MapFS) { delete(f, codesnap.IndexName) }), true, "opening index.txt"},
		{"index of another version", clone(replace(codesnap.IndexName, "embedmcp-codetools-index/1", "embedmcp-codetools-index/9")), true, "header"},
		{"malformed index record", clone(replace(codesnap.IndexName, "\nt T ", "\nt T x")), true, "bad number"},
		{"binary garbage", clone(func(f fstest.MapFS) { f[codesnap.IndexName].Data = []byte{0, 1, 2, 0xff, '\n', 0xfe} }), true, "header"},
		{"truncated source file", clone(func(f fstest.MapFS) {
			p := "src/" + fixturePath + "/shapes.go.txt"
			f[p].Data = f[p].Data[:len(f[p].Data)/2]
		}), false, "size differs from the manifest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &warnings{}
			c := NewCatalog(&Options{Snapshot: tt.fsys, BuildInfo: fixtureBuildInfo(""), Logger: slog.New(w)})
			funcs := fixtureRuntime(t)
			c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{Funcs: funcs}, nil }
			for range 3 {
				res, err := c.Search(ctx, SearchQuery{Query: "Ptr"})
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(res.Limitations, tt.because) || res.Coverage.SnapshotError == "" {
					t.Errorf("search limitations %q lack %q", res.Limitations, tt.because)
				}
				d := define(t, c, "main.(*T).Ptr")
				if !strings.Contains(d.Limitations, tt.because) {
					t.Errorf("definition limitations %q lack %q", d.Limitations, tt.because)
				}
				if tt.whole && (d.Source != SourceRuntime || !d.Linked || d.Consistency.Status != StatusUnverified ||
					!strings.Contains(d.Consistency.Reason, tt.because)) {
					t.Errorf("definition without the snapshot: source %s linked %v consistency %+v", d.Source, d.Linked, d.Consistency)
				}
				if strings.Contains(tt.because, "size") {
					// The damaged file is left out; the others serve.
					if d.Source != SourceRuntime {
						t.Errorf("Ptr from the damaged file: source %s", d.Source)
					}
					if d := define(t, c, "main.main"); d.Source != SourceSnapshot {
						t.Errorf("main from an intact file: source %s", d.Source)
					}
				}
			}
			if len(w.msgs) != 1 || !strings.Contains(w.msgs[0], tt.because) {
				t.Errorf("warnings = %q", w.msgs)
			}
		})
	}
}

// FuzzSnapshotIndex loads snapshots whose index is arbitrary bytes: the
// catalog never panics and always answers.
func FuzzSnapshotIndex(f *testing.F) {
	good := fixtureSnapshot(f, nil)
	f.Add(good[codesnap.IndexName].Data)
	f.Add([]byte("embedmcp-codetools-index/1\ndecls 99999999\nfile src/example.com/fixture/shapes.go.txt\nf X 1 2 0 999999999 0 0\n"))
	f.Add([]byte("embedmcp-codetools-index/1\nfile src/example.com/fixture/shapes.go.txt\nm (*T).X 5 3 10 2 0 0 b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{}
		for k, v := range good {
			fsys[k] = v
		}
		fsys[codesnap.IndexName] = &fstest.MapFile{Data: data}
		c := NewCatalog(&Options{Snapshot: fsys, BuildInfo: fixtureBuildInfo("")})
		c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{}, nil }
		if _, err := c.Search(ctx, SearchQuery{Query: "T"}); err != nil {
			t.Fatal(err)
		}
		res, err := c.Search(ctx, SearchQuery{Query: "example.com", Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Results {
			if _, err := c.Definition(ctx, DefinitionQuery{Name: h.Name}); err != nil && !errors.Is(err, ErrUnknownName) {
				t.Fatalf("%s: %v", h.Name, err)
			}
		}
	})
}

// TestPackagesSelection limits the catalog the way mcpsnapshot's flags
// limit a snapshot.
func TestPackagesSelection(t *testing.T) {
	ids := func(sel *Selection) map[string]bool {
		t.Helper()
		c := consistentCatalog(t, binaryInfo(), nil)
		c.opts.Packages = sel
		x, err := c.index(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, e := range x.Entries {
			out[e.Pkg] = true
		}
		return out
	}
	all := ids(nil)
	if !all["errors"] || !all[depPath] || !all[fixturePath] || !all[fixturePath+"/sub"] {
		t.Fatalf("nil selection: %v", all)
	}
	for _, tt := range []struct {
		sel       Selection
		want, not []string
	}{
		{Selection{}, []string{fixturePath, fixturePath + "/sub"}, []string{"errors", depPath}},
		{Selection{Deps: true}, []string{fixturePath, depPath}, []string{"errors"}},
		{Selection{Modules: []string{"example.com/d..."}}, []string{depPath}, []string{"errors"}},
		{Selection{Std: true, Exclude: []string{fixturePath + "/sub"}}, []string{"errors", fixturePath}, []string{fixturePath + "/sub", depPath}},
		{Selection{Deps: true, Exclude: []string{depPath}}, []string{fixturePath}, []string{depPath}},
	} {
		got := ids(&tt.sel)
		for _, p := range tt.want {
			if !got[p] {
				t.Errorf("%s: %s missing", tt.sel.String(), p)
			}
		}
		for _, p := range tt.not {
			if got[p] {
				t.Errorf("%s: %s present", tt.sel.String(), p)
			}
		}
	}
	c := NewCatalog(&Options{Packages: &Selection{Exclude: []string{"bad pattern"}}, BuildInfo: fixtureBuildInfo("")})
	c.loadRuntime = func() (*index.RuntimeTable, error) { return &index.RuntimeTable{}, nil }
	if res, err := c.Search(ctx, SearchQuery{Query: "x"}); err != nil || !strings.Contains(res.Coverage.RegisteredError, "bad pattern") {
		t.Errorf("bad selection: %v %+v", err, res)
	}
}

func TestMatchPattern(t *testing.T) {
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{"net/...", "net", true}, {"net/...", "net/http", true}, {"net/...", "network", false},
		{"github.com/aws/...", "github.com/aws/aws-sdk-go-v2/service/s3", true},
		{".../internal/...", "example.com/x/internal/y", true}, {"example.com/x", "example.com/x/y", false},
		{"example.com/...x", "example.com/abx", true}, {"...", "anything", true},
	} {
		if got := matchPattern(tt.pattern, tt.path); got != tt.want {
			t.Errorf("matchPattern(%q, %q) = %v", tt.pattern, tt.path, got)
		}
	}
}

// TestCloseStopsWatch: Register follows the ToolSet's changes until Close,
// which stops the watch it started.
func TestCloseStopsWatch(t *testing.T) {
	c := NewCatalog(nil)
	ts := mcp.NewToolSet()
	if err := Register(ts, c); err != nil {
		t.Fatal(err)
	}
	known := func(name string) bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return slices.ContainsFunc(c.tools, func(d regDoc) bool { return d.id == ToolIDPrefix+name })
	}
	tool := func(name string) mcp.Tool {
		return mcp.NewRawTool(mcp.ToolInfo{Name: name, Description: "A tool."},
			func(context.Context, *mcp.Request) (*mcp.Result, error) { return mcp.TextResult(""), nil })
	}
	if err := ts.Register(tool("before_close")); err != nil {
		t.Fatal(err)
	}
	if !known("before_close") {
		t.Fatal("a tool registered before Close is not in the catalog")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ts.Register(tool("after_close")); err != nil {
		t.Fatal(err)
	}
	if known("after_close") {
		t.Error("Close did not stop the watch: a tool registered after it reached the catalog")
	}
	if err := c.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}
