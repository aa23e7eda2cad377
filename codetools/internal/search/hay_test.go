package search

import (
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp/codetools/internal/index"
)

// The haystack leaves the package prefix out of the ids; a literal query
// still finds, and ranks, every entry whose lower-cased id or
// documentation holds it, as a haystack of whole ids does: within the
// prefix, across its dot, in the name, in the documentation.
func TestLiteralPackagePrefix(t *testing.T) {
	entries := []index.Entry{
		{ID: "example.com/app", Pkg: "example.com/app", Kind: index.KindPackage},
		{ID: "example.com/app.(*Server).ServeHTTP", Pkg: "example.com/app", Kind: index.KindMethod},
		{ID: "example.com/app.NewServer", Pkg: "example.com/app", Kind: index.KindFunc},
		{ID: "github.com/BurntSushi/toml.Decode", Pkg: "github.com/BurntSushi/toml", Kind: index.KindFunc},
		{ID: "gopkg.in/yaml.v3.Marshal", Pkg: "gopkg.in/yaml.v3", Kind: index.KindFunc},
		{ID: "gopkg.in/yaml.v3.yaml_emitter_t", Pkg: "gopkg.in/yaml.v3", Kind: index.KindType},
		{ID: "k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch", Pkg: "k8s.io/client-go/tools/cache", Kind: index.KindMethod},
		{ID: "k8s.io/client-go/tools/cache.NewReflector", Pkg: "k8s.io/client-go/tools/cache", Kind: index.KindFunc},
		{ID: "net/http.(*Server).Serve", Pkg: "net/http", Kind: index.KindMethod},
		{ID: "net/http.Serve", Pkg: "net/http", Kind: index.KindFunc},
		{ID: "registered.tool", Pkg: "example.com/app", Kind: index.KindTool},
	}
	docs := []string{"Package app serves prices.", "ServeHTTP answers GET /v1/prices with the cache.", "", "Decode reads TOML.",
		"Marshal serializes the value into a YAML document.", "", "ListAndWatch lists all items and watches them.",
		"NewReflector creates a new Reflector.", "Serve accepts incoming HTTP connections on the listener.", "", "A registered tool."}
	for i := range entries {
		entries[i].Reg, entries[i].Snap, entries[i].Sources = -1, int32(i), index.SrcSnapshot
	}
	b := &index.Base{Entries: entries}
	b.SetDocs(docs)
	x := &index.Index{Base: b, Entries: b.Entries}
	x.BuildHaystack()
	x.Search = index.BuildSearch(&index.SearchInput{Entries: x.Entries, Doc: x.DocOf, MainMod: "example.com/app",
		Words: func([]index.Scope) func(int, *index.Entry) (string, bool) {
			return func(int, *index.Entry) (string, bool) { return "", false }
		}})
	if len(x.HayPkgs) == 0 || strings.Contains(x.Hay, "client-go") {
		t.Fatalf("the haystack holds the package prefixes: %q", x.Hay)
	}
	// The same index over a haystack of whole ids.
	whole := *x
	whole.HayPkgs = nil
	var hay strings.Builder
	whole.Offs = make([]uint32, len(entries)+1)
	for i, e := range entries {
		whole.Offs[i] = uint32(hay.Len())
		index.WriteLower(&hay, e.ID)
		hay.WriteByte(0)
		index.WriteLower(&hay, docs[i])
		hay.WriteByte(0)
	}
	whole.Offs[len(entries)] = uint32(hay.Len())
	whole.Hay = hay.String()
	whole.Freq = [256]uint32{}
	for i := 0; i < len(whole.Hay); i++ {
		whole.Freq[whole.Hay[i]]++
	}
	f := &Filter{Scopes: allScopes}
	for _, q := range []string{"example", "example.com/app", "app.", "app.new", "p.(*server).serve", ".serve", "serve",
		"burntsushi", "Sushi/toml.dec", "toml.Decode", "yaml.v3", "v3.marshal", "yaml", "in/yaml.v3.yaml_", "cache.(*reflector)",
		"tools/cache.newreflector", "client-go", "http.serve", "net/http.(*Server).Serve", "prices", "o.", ".", "registered.tool", "zzz"} {
		lq := NewLiteralQuery(q)
		var got, want []uint64
		n := Searcher{x}.literal(&lq, f, func(k uint64) { got = append(got, k) })
		m := Searcher{&whole}.literal(&lq, f, func(k uint64) { want = append(want, k) })
		slices.Sort(got)
		slices.Sort(want)
		if n != m || !slices.Equal(got, want) {
			t.Errorf("%q: %d matches %v, want %d %v", q, n, got, m, want)
		}
		words := surfaceWords(q + " serve reflector")
		for i := range entries {
			if g, w := (Searcher{x}).surfaceWords(i, words), (Searcher{&whole}).surfaceWords(i, words); g != w {
				t.Errorf("%q: entry %d holds %d surface words, want %d", q, i, g, w)
			}
		}
	}
}
