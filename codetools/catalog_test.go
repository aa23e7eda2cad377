package codetools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/embedmcp/mcp/codetools/internal/index"
)

var ctx = context.Background()

func define(t *testing.T, c *Catalog, name string) *Definition {
	t.Helper()
	d, err := c.Definition(ctx, DefinitionQuery{Name: name, MaxCharacters: maxMaxCharacters})
	if err != nil {
		t.Fatalf("Definition(%q): %v", name, err)
	}
	return d
}

func TestSnapshotEntries(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	shapes := readFixture(t, "shapes.go")
	main := readFixture(t, "main.go")
	tests := []struct {
		id, kind  string
		from, to  string // expected definition: from the first occurrence of from through the end of to
		src, docs string
	}{
		{fixturePath + ".(*T).Ptr", KindMethod, "// Ptr doubles", "return t.N\n}", shapes, "Ptr doubles N; it has a pointer receiver.\n\nSecond paragraph of the Ptr documentation.\n"},
		{fixturePath + ".T.Value", KindMethod, "// Value returns", "return t.N }", shapes, "Value returns N; it has a value receiver.\n"},
		{fixturePath + ".T", KindType, "// T is a test", "N int\n}", shapes, "T is a test type with methods on T and *T.\n"},
		{fixturePath + ".Red", KindConst, "// Colors of the rainbow.", "\tBlue\n)", shapes, "Red is the first color.\n"},
		{fixturePath + ".Green", KindConst, "// Colors of the rainbow.", "\tBlue\n)", shapes, "Green is the second color.\n"},
		{fixturePath + ".Blue", KindConst, "// Colors of the rainbow.", "\tBlue\n)", shapes, "Colors of the rainbow.\n"},
		{fixturePath + ".Limit", KindConst, "// Limit is", "Limit = 10", shapes, "Limit is an ungrouped constant.\n"},
		{fixturePath + ".Names", KindVar, "var (", `"b"}` + "\n)", shapes, "Names is documented inside a group.\n"},
		{fixturePath + ".counter", KindVar, "var (", `"b"}` + "\n)", shapes, ""},
		{fixturePath + ".init.0", KindFunc, "func init()", `"first")` + "\n}", main, ""},
		{fixturePath + ".main", KindFunc, "// main prints", "}))\n}", main, "main prints a greeting.\n"},
	}
	for _, tt := range tests {
		d := define(t, c, tt.id)
		start := strings.Index(tt.src, tt.from)
		end := strings.Index(tt.src[start:], tt.to) + start + len(tt.to)
		want := tt.src[start:end]
		if d.Kind != tt.kind || d.Definition != want || d.Documentation != tt.docs || d.Source != SourceSnapshot {
			t.Errorf("%s: kind=%s source=%s\ndefinition=%q\nwant      =%q\ndoc=%q want %q", tt.id, d.Kind, d.Source, d.Definition, want, d.Documentation, tt.docs)
		}
	}
	// The second init function is init.1 and holds the second body.
	if d := define(t, c, fixturePath+".init.1"); !strings.Contains(d.Definition, `"second"`) {
		t.Errorf("init.1 = %q", d.Definition)
	}
	// Generic declarations keep their own ids.
	for _, id := range []string{".Map", ".(*List).Push", ".List.Len", ".List"} {
		define(t, c, fixturePath+id)
	}
	// The build-tagged file is not part of the snapshot.
	if _, err := c.Definition(ctx, DefinitionQuery{Name: fixturePath + ".Tagged"}); !errors.Is(err, ErrUnknownName) {
		t.Errorf("Tagged: err = %v, want ErrUnknownName", err)
	}
	// Package entries carry the package documentation.
	if d := define(t, c, fixturePath+"/sub"); d.Kind != KindPackage || !strings.HasPrefix(d.Documentation, "Package sub is") {
		t.Errorf("package sub: %+v", d)
	}
}

func TestResolveSpellings(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	tests := map[string]string{
		"main.(*T).Ptr":                    fixturePath + ".(*T).Ptr",
		"main.T.Ptr":                       fixturePath + ".(*T).Ptr",
		fixturePath + ".T.Ptr":             fixturePath + ".(*T).Ptr",
		"main.(*T).Value":                  fixturePath + ".T.Value",
		"main.main.func1":                  fixturePath + ".main",
		"main.Map[...]":                    fixturePath + ".Map",
		"main.(*List[...]).Push":           fixturePath + ".(*List).Push",
		"main.(*T).Ptr(0xc000010000)":      fixturePath + ".(*T).Ptr",
		"main.init.1.func1":                fixturePath + ".init.1",
		"example%2ecom/fixture/sub.Helper": fixturePath + "/sub.Helper",
	}
	for in, want := range tests {
		d := define(t, c, in)
		if d.Name != want {
			t.Errorf("Definition(%q).Name = %q, want %q", in, d.Name, want)
		}
		if d.RequestedName != in {
			t.Errorf("Definition(%q).RequestedName = %q", in, d.RequestedName)
		}
	}
}

func TestDefinitionErrors(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	_, err := c.Definition(ctx, DefinitionQuery{Name: "main.nope"})
	if !errors.Is(err, ErrUnknownName) || errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("unknown name: err = %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `"main.nope"`) || !strings.Contains(msg, "code_search") {
		t.Errorf("unknown name message = %q", msg)
	}
	for _, q := range []DefinitionQuery{
		{Name: ""}, {Name: "  "}, {Name: "x", Offset: -1}, {Name: "x", MaxCharacters: -1}, {Name: "x", MaxCharacters: maxMaxCharacters + 1},
		{Name: fixturePath + ".Limit", Offset: 1 << 20},
	} {
		if _, err := c.Definition(ctx, q); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Definition(%+v): err = %v, want ErrInvalidArgument", q, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Definition(cctx, DefinitionQuery{Name: "main.main"}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: err = %v", err)
	}
}

func TestDefinitionFields(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	shapes := readFixture(t, "shapes.go")
	c := consistentCatalog(t, fixtureBuildInfo(rev), nil)
	d := define(t, c, "main.(*T).Ptr")
	sum := sha256.Sum256([]byte(d.Definition))
	switch {
	case d.Server != "test" || d.ObservedAt != 1700000000:
		t.Errorf("server/observedAt = %q/%d", d.Server, d.ObservedAt)
	case d.SourceFile != fixturePath+"/shapes.go" || d.Line != lineOf(t, shapes, "func (t *T) Ptr"):
		t.Errorf("sourceFile:line = %s:%d", d.SourceFile, d.Line)
	case d.PackageKey != fixturePath || d.Kind != KindMethod:
		t.Errorf("packageKey/kind = %q/%q", d.PackageKey, d.Kind)
	case d.SHA256 != hex.EncodeToString(sum[:]) || d.DefinitionCharacters != utf8.RuneCountInString(d.Definition):
		t.Errorf("sha256/characters = %s/%d", d.SHA256, d.DefinitionCharacters)
	case d.More || d.NextArguments != nil || d.Offset != 0:
		t.Errorf("paging = %v %v %d", d.More, d.NextArguments, d.Offset)
	case !d.Linked || d.Runtime == nil || d.Runtime.File != fixturePath+"/shapes.go" || !d.Runtime.Exact:
		t.Errorf("linked/runtime = %v %+v", d.Linked, d.Runtime)
	case d.Build == nil || d.Build.VCSRevision != rev || d.Build.Module == nil || d.Build.Module.Path != fixturePath:
		t.Errorf("build = %+v", d.Build)
	case d.Snapshot == nil || d.Snapshot.FileSHA256 == "" || d.Snapshot.File != fixturePath+"/shapes.go":
		t.Errorf("snapshot = %+v", d.Snapshot)
	case d.Consistency.Status != StatusMatch || d.Consistency.Lines.Status != StatusMatch || d.Consistency.Version.Status != StatusMatch:
		t.Errorf("consistency = %+v", d.Consistency)
	case d.DiskCompared || d.UpstreamCompared || d.Limitations == "":
		t.Errorf("diskCompared/upstreamCompared/limitations = %v %v %q", d.DiskCompared, d.UpstreamCompared, d.Limitations)
	}
	// A type has no runtime line; the module's evidence decides.
	if d := define(t, c, "main.T"); d.Linked || d.Consistency.Status != StatusMatch {
		t.Errorf("type: linked=%v %+v", d.Linked, d.Consistency)
	}
	// A function linked through its own entry and closures.
	if d := define(t, c, "main.main"); !d.Linked || d.Runtime == nil || !d.Runtime.Exact || !d.Runtime.Closures {
		t.Errorf("main: %+v", d.Runtime)
	}
	// Declared but not linked (List.Len is never called).
	if d := define(t, c, "main.List.Len"); d.Linked || !strings.Contains(d.LinkedEvidence, "not in the function table") {
		t.Errorf("List.Len: linked=%v %q", d.Linked, d.LinkedEvidence)
	}
}

func TestDefinitionWithoutSource(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	d := define(t, c, fixturePath+".onlyInBinary")
	if d.SourceAvailable || d.Definition != "" || d.Source != SourceRuntime || !d.Linked || d.SHA256 != "" {
		t.Errorf("runtime-only: %+v", d)
	}
	if d.SourceFile != fixturePath+"/gone.go" || d.Line != 7 || !strings.Contains(d.Limitations, "Source is unavailable") {
		t.Errorf("runtime-only location/limitations: %s:%d %q", d.SourceFile, d.Line, d.Limitations)
	}
	if d.Consistency.Status != StatusUnverified {
		t.Errorf("runtime-only consistency: %+v", d.Consistency)
	}
	// A catalog without a snapshot answers runtime metadata.
	c2 := NewCatalog(&Options{BuildInfo: fixtureBuildInfo("")})
	c2.loadRuntime = c.loadRuntime
	if d := define(t, c2, "main.(*T).Ptr"); d.SourceAvailable || d.Line == 0 || d.SourceFile != fixturePath+"/shapes.go" {
		t.Errorf("no snapshot: %+v", d)
	}
}

func TestDefinitionPaging(t *testing.T) {
	// A huge generated file with multi-byte characters.
	var b strings.Builder
	b.WriteString("package main\n\n// Huge is a generated function.\nfunc Huge() []string {\n\treturn []string{\n")
	for i := 0; i < 20000; i++ {
		b.WriteString("\t\t\"héllo 世界 🌍 line\",\n")
	}
	b.WriteString("\t}\n}\n")
	src := b.String()
	c := newFixtureCatalog(t, "", map[string]string{"huge.go": src})
	want := src[strings.Index(src, "// Huge"):]
	want = strings.TrimSuffix(want, "\n")
	wantSum := sha256.Sum256([]byte(want))
	const max = 1000
	q := DefinitionQuery{Name: "main.Huge", MaxCharacters: max}
	var got strings.Builder
	pages := 0
	for {
		d, err := c.Definition(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if !utf8.ValidString(d.Definition) || utf8.RuneCountInString(d.Definition) > max {
			t.Fatalf("page %d: invalid chunk of %d characters", pages, utf8.RuneCountInString(d.Definition))
		}
		if d.SHA256 != hex.EncodeToString(wantSum[:]) || d.DefinitionCharacters != utf8.RuneCountInString(want) {
			t.Fatalf("page %d: sha256/characters = %s/%d", pages, d.SHA256, d.DefinitionCharacters)
		}
		got.WriteString(d.Definition)
		if !d.More {
			if d.NextArguments != nil {
				t.Fatal("nextArguments set on the last page")
			}
			break
		}
		if d.NextArguments.Offset != q.Offset+max || d.NextArguments.Name != "example.com/fixture.Huge" {
			t.Fatalf("nextArguments = %+v", d.NextArguments)
		}
		q = DefinitionQuery{Name: d.NextArguments.Name, Offset: d.NextArguments.Offset, MaxCharacters: d.NextArguments.MaxCharacters}
	}
	if got.String() != want {
		t.Fatalf("reassembled definition differs (%d vs %d bytes)", got.Len(), len(want))
	}
	if wantPages := (utf8.RuneCountInString(want) + max - 1) / max; pages != wantPages {
		t.Errorf("pages = %d, want %d", pages, wantPages)
	}
}

func TestChunkAndTruncate(t *testing.T) {
	s := "aé世🌍b"
	tests := []struct {
		off, max int
		want     string
	}{{0, 1, "a"}, {1, 2, "é世"}, {3, 10, "🌍b"}, {5, 3, ""}, {0, 100, s}}
	for _, tt := range tests {
		got, total := chunk(s, tt.off, tt.max)
		if got != tt.want || total != 5 {
			t.Errorf("chunk(%d, %d) = %q, %d", tt.off, tt.max, got, total)
		}
	}
	doc := strings.Repeat("世", maxDocumentationCharacters+1)
	got, cut := truncateChars(doc, maxDocumentationCharacters)
	if !cut || utf8.RuneCountInString(got) != maxDocumentationCharacters || !utf8.ValidString(got) {
		t.Errorf("truncateChars: %d characters, cut=%v", utf8.RuneCountInString(got), cut)
	}
	if got, cut := truncateChars("short", 10); got != "short" || cut {
		t.Errorf("truncateChars(short) = %q, %v", got, cut)
	}
}

func TestDocumentationTruncated(t *testing.T) {
	c := newFixtureCatalog(t, "", nil)
	long := strings.Repeat("ü", maxDocumentationCharacters+10)
	if err := c.Register(Doc{Name: "main.T", Documentation: long}); err != nil {
		t.Fatal(err)
	}
	d := define(t, c, "main.T")
	if !d.DocumentationTruncated || utf8.RuneCountInString(d.Documentation) != maxDocumentationCharacters {
		t.Errorf("documentation: %d characters, truncated=%v", utf8.RuneCountInString(d.Documentation), d.DocumentationTruncated)
	}
	// The registered doc attaches to the snapshot entry: source text stays.
	if d.Source != SourceSnapshot || !strings.Contains(d.Definition, "type T struct") || len(d.Sources) != 2 {
		t.Errorf("merged entry: source=%s sources=%v", d.Source, d.Sources)
	}
}

// TestKindNamesMatchTheIndex checks that the Kind constants of the API are
// the names the index gives its kinds, in the index's order, and that
// the index names a tool entry without ToolIDPrefix.
func TestKindNamesMatchTheIndex(t *testing.T) {
	want := []string{KindFunc, KindMethod, KindType, KindConst, KindVar, KindPackage, KindTool, KindDoc, KindField}
	for k := index.Kind(0); int(k) < len(index.KindNames); k++ {
		if got := k.String(); got != want[k] {
			t.Errorf("index kind %d is named %q, the API says %q", k, got, want[k])
		}
		if p, ok := index.ParseKind(want[k]); !ok || p != k {
			t.Errorf("ParseKind(%q) = %d, %v; want %d", want[k], p, ok, k)
		}
	}
	e := &index.Entry{ID: ToolIDPrefix + "code_search", Kind: index.KindTool}
	if got := index.EntryName(e); got != "code_search" {
		t.Errorf("the name of tool entry %s is %q, want code_search", e.ID, got)
	}
}
