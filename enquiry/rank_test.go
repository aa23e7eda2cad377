package enquiry

import (
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/embedmcp/mcp"
	"github.com/embedmcp/mcp/internal/bm25f"
)

// refScores is a plain BM25F written from the formula, for checking rank:
// for the docs that pass keep, score(d) = Σ_t s(t)·idf(t)·tf/(k1+tf), s(t)
// = 1/n for a term of a phrase word of n terms, with
// tf = Σ_f w_f·tf_f(d)/(1-b_f+b_f·len_f(d)/avglen_f) and
// idf(t) = ln(1+(N-df+0.5)/(df+0.5)).
func refScores(infos []*mcp.ToolInfo, keep func(*mcp.ToolInfo) bool, prefix, phrase string, w [numFields]float64) map[string]float64 {
	type rdoc struct {
		name   string
		fields [numFields][]string
	}
	var docs []rdoc
	for _, info := range infos {
		if !keep(info) {
			continue
		}
		d := rdoc{name: info.Name}
		var g mcp.Guide
		if info.Guide != nil {
			g = *info.Guide
		}
		var ex []string
		for _, e := range g.Examples {
			ex = append(ex, string(e.Arguments), e.Outcome)
		}
		var params []string
		if s := info.InputSchema; s != nil {
			for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
				params = append(params, name, s.Properties[name].Description)
			}
		}
		texts := []string{normalize(info.Name, prefix), info.Title, info.Description, g.WhenToUse, g.Details,
			strings.Join(ex, " "), strings.Join(params, " ")}
		for f := fieldTitle; f <= fieldExamples; f++ {
			texts[f] = withoutReferences(texts[f])
		}
		for f, text := range texts {
			d.fields[f] = bm25f.Terms(text)
		}
		docs = append(docs, d)
	}
	n := float64(len(docs))
	var avg [numFields]float64
	for _, d := range docs {
		for f := range avg {
			avg[f] += float64(len(d.fields[f])) / n
		}
	}
	// A word of the phrase split into n terms weighs 1/n for each.
	var q []string
	scale := map[string]float64{}
	for _, word := range strings.Fields(phrase) {
		var terms []string
		for _, t := range bm25f.Terms(word) {
			if t != prefix && !slices.Contains(q, t) && !slices.Contains(terms, t) {
				terms = append(terms, t)
			}
		}
		for _, t := range terms {
			scale[t] = 1 / float64(len(terms))
		}
		q = append(q, terms...)
	}
	out := map[string]float64{}
	for _, t := range q {
		df := 0
		for _, d := range docs {
			for f := range d.fields {
				if w[f] > 0 && slices.Contains(d.fields[f], t) {
					df++
					break
				}
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for _, d := range docs {
			tf := 0.0
			for f := range d.fields {
				c := 0
				for _, x := range d.fields[f] {
					if x == t {
						c++
					}
				}
				if c > 0 && w[f] > 0 {
					tf += w[f] * float64(c) / (1 - fieldB[f] + fieldB[f]*float64(len(d.fields[f]))/avg[f])
				}
			}
			if tf > 0 {
				out[d.name] += scale[t] * idf * tf / (k1 + tf)
			}
		}
	}
	return out
}

// rank agrees with the plain formula, over all tools (the precomputed path)
// and over the tools of a few permissions (the per-call path).
func TestRankMatchesFormula(t *testing.T) {
	var tools []mcp.Tool
	var infos []*mcp.ToolInfo
	for _, f := range ek9Fixtures {
		tl := newFixture(t, f)
		tools = append(tools, tl)
		infos = append(infos, tl.Info())
	}
	w := DefaultWeights().fields()
	ix := buildIndex(1, tools, "ek9", w)
	phrases := []string{seedPhrase, "find a class by name", "rename a method everywhere", "edit file", "status edits summary",
		"ek9 statements into a body", "try catch while", "try-catch insertedLineRange", "E07175", "zzz"}
	for _, grants := range [][]string{{"*"}, nil, {permEdit}, {permRefactor, permDiag}} {
		caller := mcp.Caller{Grants: grants}
		may := func(p string) bool { return mcp.GrantsAuthorizer{}.Allowed(context.Background(), caller, p) }
		allowed := ix.allowed(may)
		for _, p := range phrases {
			want := refScores(infos, func(i *mcp.ToolInfo) bool { return may(i.Permission) }, "ek9", p, w)
			got, scoring := ix.rank(query(p, "ek9"), allowed, len(ix.docs))
			if scoring != len(want) || len(got) != len(want) {
				t.Errorf("grants %v %q: %d scored, want %d", grants, p, scoring, len(want))
				continue
			}
			for i, s := range got {
				name := ix.docs[s.doc].name
				if math.Abs(s.score-want[name]) > 0.0006 {
					t.Errorf("grants %v %q: %s scores %v, want %v", grants, p, name, s.score, want[name])
				}
				if i > 0 && better(s, got[i-1]) {
					t.Errorf("grants %v %q: not sorted at %d", grants, p, i)
				}
			}
		}
	}
}

// The top-k selection returns the same head as a full ranking.
func TestRankTopK(t *testing.T) {
	var tools []mcp.Tool
	for _, f := range ek9Fixtures {
		tools = append(tools, newFixture(t, f))
	}
	ix := buildIndex(1, tools, "ek9", DefaultWeights().fields())
	allowed := ix.allowed(func(string) bool { return true })
	full, n := ix.rank(query(seedPhrase, "ek9"), allowed, len(ix.docs))
	for k := 1; k <= 6; k++ {
		top, m := ix.rank(query(seedPhrase, "ek9"), allowed, k)
		if m != n || !slices.Equal(top, full[:k]) {
			t.Errorf("top %d = %v, want %v", k, top, full[:k])
		}
	}
}
