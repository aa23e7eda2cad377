package enquiry

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
)

var (
	benchVerbs = []string{"create", "delete", "list", "update", "export", "import", "validate", "merge", "split",
		"archive", "restore", "scan", "index", "rename", "copy", "move", "sync", "render", "compile", "deploy"}
	benchNouns = []string{"order", "invoice", "customer", "report", "file", "module", "schema", "ticket", "user",
		"account", "image", "backup", "metric", "alert", "queue", "record", "field", "method", "package", "branch"}
	benchWords = strings.Fields("the a with into from every single batch remote local cached pending failed " +
		"archived current history version snapshot summary detail status edits conflicts project workspace " +
		"server client region tenant quota limit cursor page filter sort range line column symbol reference " +
		"diagnostic warning error code fix apply preview dry run atomic transaction rollback retry timeout")
)

// benchSet registers n synthetic tools with guides, plus the enquiry tools.
func benchSet(b *testing.B, n int) *mcp.ToolSet {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	sentence := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = benchWords[r.IntN(len(benchWords))]
		}
		return strings.Join(w, " ")
	}
	schema, err := mcp.ParseSchema([]byte(`{"type":"object","required":["id"],"properties":{"id":{"type":"string"},
		"dryRun":{"type":"boolean"},"mode":{"type":"string","enum":["fast","safe"]},"limit":{"type":"integer"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	ts := mcp.NewToolSet()
	tools := make([]mcp.Tool, 0, n)
	for i := range n {
		verb, noun := benchVerbs[i%len(benchVerbs)], benchNouns[(i/len(benchVerbs))%len(benchNouns)]
		name := fmt.Sprintf("acme_%s_%s_%d", verb, noun, i/(len(benchVerbs)*len(benchNouns)))
		tools = append(tools, mcp.NewRawTool(mcp.ToolInfo{
			Name:        name,
			Description: fmt.Sprintf("%s %s %s %s", strings.ToUpper(verb[:1])+verb[1:], noun, sentence(12), sentence(8)),
			InputSchema: schema,
			Permission:  fmt.Sprintf("acme.%s", noun),
			Guide: &mcp.Guide{
				Category:   noun,
				WhenToUse:  fmt.Sprintf("You need to %s a %s %s.", verb, noun, sentence(6)),
				Details:    sentence(30),
				Examples:   []mcp.Example{{Arguments: json.RawMessage(`{"id":"x1","dryRun":true}`), Outcome: sentence(8)}},
				ErrorCodes: []string{fmt.Sprintf("E%05d", i)},
			},
		}, nil))
	}
	if err := ts.Register(tools...); err != nil {
		b.Fatal(err)
	}
	if err := Register(ts, &Options{Prefix: "acme"}); err != nil {
		b.Fatal(err)
	}
	return ts
}

// BenchmarkToolDetail1000 times tool_detail through Server.CallTool (argument
// and output validation included) over 1 000 registered tools, for a caller
// granted all of them, and (-partial) for one granted half of them, whose
// ranking statistics are computed per call.
func BenchmarkToolDetail1000(b *testing.B) {
	ts := benchSet(b, 1000)
	az := mcp.GrantsAuthorizer{}
	srv := mcp.NewServer(ts, az, nil)
	all := mcp.Caller{Principal: "bench", Grants: []string{"acme.*"}}
	half := mcp.Caller{Principal: "bench"}
	for _, n := range benchNouns[:len(benchNouns)/2] {
		half.Grants = append(half.Grants, "acme."+n)
	}
	for _, c := range []struct {
		name, args string
		caller     mcp.Caller
	}{
		{"phrase", `{"tool":"export a customer report with pending conflicts as a dry run"}`, all},
		{"phrase-partial", `{"tool":"export a customer report with pending conflicts as a dry run"}`, half},
		{"phrase-summary", `{"tool":"rollback a failed deploy of the module","verbosity":"summary"}`, all},
		{"exact", `{"tool":"acme_merge_invoice_2"}`, all},
		{"normalised", `{"tool":"Merge Invoice 2","verbosity":"summary"}`, all},
		{"errorCode", `{"errorCode":"E00420"}`, all},
		{"not-found", `{"tool":"zzyzx quux"}`, all},
	} {
		caller := c.caller
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			args := json.RawMessage(c.args)
			res, err := srv.CallTool(ctx, mcp.NewRequest(caller, DefaultDetailName, args))
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := srv.CallTool(ctx, mcp.NewRequest(caller, DefaultDetailName, args)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkToolCatalogue1000 times one default page of tool_catalogue.
func BenchmarkToolCatalogue1000(b *testing.B) {
	srv := mcp.NewServer(benchSet(b, 1000), mcp.GrantsAuthorizer{}, nil)
	caller := mcp.Caller{Principal: "bench", Grants: []string{"acme.*"}}
	args := json.RawMessage(`{"offset":400}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := srv.CallTool(ctx, mcp.NewRequest(caller, DefaultCatalogueName, args)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexBuild1000 times building the index of 1 000 tools, paid once
// per registry change.
func BenchmarkIndexBuild1000(b *testing.B) {
	tools := slices.Collect(benchSet(b, 1000).All())
	b.ReportAllocs()
	for b.Loop() {
		buildIndex(1, tools, "acme", DefaultWeights().fields())
	}
}
