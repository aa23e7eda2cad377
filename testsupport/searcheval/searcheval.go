// Package searcheval runs the project's search evaluation sets: code_search
// queries with the ids an agent wants found, and tool_detail phrases with
// the answer an agent should get. The sets are plain text files (see
// ParseQueries and ParsePhrases); the tests that run them print the tables
// this package formats (docs/evaluation.md describes the method).
//
// It is test support, not part of the library's API: the evaluation of
// this repository (examples/codeserver) and the evaluation module
// (searcheval) use it.
package searcheval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/embedmcp/mcp"
)

// Kinds of code_search queries.
const (
	KindPhrase    = "phrase"    // a natural phrase
	KindStd       = "std"       // an exact identifier the standard library declares too
	KindIdent     = "ident"     // another exact identifier
	KindQualified = "qualified" // a package- or receiver-qualified name
	KindFile      = "file"      // a file name or file:line
	KindMessage   = "message"   // a log line, reply or error pasted as the program prints it
	KindHost      = "host"      // a phrase about the adopter's own code
	KindDep       = "dep"       // a phrase about a dependency of the service
)

var kinds = []string{KindPhrase, KindMessage, KindStd, KindIdent, KindQualified, KindFile, KindHost, KindDep}

// Query is one code_search query and the ids that answer it.
type Query struct {
	Kind string
	Text string
	Want []string // any of them is a hit
}

// ParseQueries parses a query set: one query a line, tab-separated kind,
// query and expected ids (alternatives separated by " | "); blank lines
// and lines starting with # are skipped.
func ParseQueries(data []byte) ([]Query, error) {
	var out []Query
	err := eachLine(data, 3, func(n int, f []string) error {
		if !slices.Contains(kinds, f[0]) {
			return fmt.Errorf("line %d: unknown kind %q", n, f[0])
		}
		out = append(out, Query{Kind: f[0], Text: f[1], Want: alternatives(f[2])})
		return nil
	})
	return out, err
}

// Phrase is one tool_detail phrase and the answers that are right.
type Phrase struct {
	Text     string
	Outcomes []string // match values that are right: exact, single, ambiguous, none
	Tools    []string // tools that are right; empty for none
}

// ParsePhrases parses a phrase set: one phrase a line, tab-separated
// phrase, right outcomes ("single|ambiguous") and right tools (" | ", or
// "-" for none).
func ParsePhrases(data []byte) ([]Phrase, error) {
	var out []Phrase
	err := eachLine(data, 3, func(n int, f []string) error {
		p := Phrase{Text: f[0], Outcomes: strings.Split(f[1], "|")}
		for _, o := range p.Outcomes {
			if !slices.Contains([]string{"exact", "single", "ambiguous", "none"}, o) {
				return fmt.Errorf("line %d: unknown outcome %q", n, o)
			}
		}
		if f[2] != "-" {
			p.Tools = alternatives(f[2])
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

func eachLine(data []byte, fields int, fn func(n int, f []string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != fields {
			return fmt.Errorf("line %d: %d tab-separated fields, want %d", n, len(f), fields)
		}
		if err := fn(n, f); err != nil {
			return err
		}
	}
	return sc.Err()
}

func alternatives(s string) []string {
	var out []string
	for _, a := range strings.Split(s, "|") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// Answer is what a search engine answered to one query.
type Answer struct {
	IDs   []string // ranked, best first
	Match string   // how the engine matched, if it says
	Bytes int      // size of the answer (text and structured content)
}

// Outcome is one query's evaluation.
type Outcome struct {
	Query
	Answer
	Rank int // 1-based rank of the first wanted id, 0 when absent
}

// Evaluate ranks the answers of a query set.
func Evaluate(qs []Query, answer func(Query) (Answer, error)) ([]Outcome, error) {
	out := make([]Outcome, 0, len(qs))
	for _, q := range qs {
		a, err := answer(q)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", q.Text, err)
		}
		o := Outcome{Query: q, Answer: a}
		for i, id := range a.IDs {
			if slices.Contains(q.Want, id) {
				o.Rank = i + 1
				break
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// Rates are the hit rates of a set of outcomes.
type Rates struct {
	N, Top1, Top3, Top10 int
}

// RatesOf counts the hits of os, or of those of one kind when kind is
// not "".
func RatesOf(os []Outcome, kind string) Rates {
	var r Rates
	for _, o := range os {
		if kind != "" && o.Kind != kind {
			continue
		}
		r.N++
		if o.Rank == 1 {
			r.Top1++
		}
		if o.Rank >= 1 && o.Rank <= 3 {
			r.Top3++
		}
		if o.Rank >= 1 && o.Rank <= 10 {
			r.Top10++
		}
	}
	return r
}

// Pct formats n of d as a percentage.
func Pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f %%", 100*float64(n)/float64(d))
}

// Summary is the table of rates per kind and overall, in Markdown.
func Summary(title string, os []Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | queries | top-1 | top-3 | top-10 |\n| --- | ---: | ---: | ---: | ---: |\n", title)
	for _, k := range append(slices.Clone(kinds), "") {
		r := RatesOf(os, k)
		if r.N == 0 {
			continue
		}
		name := k
		if k == "" {
			name = "**all**"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s |\n", name, r.N, Pct(r.Top1, r.N), Pct(r.Top3, r.N), Pct(r.Top10, r.N))
	}
	return b.String()
}

// Table lists every query with the rank of its answer and the first id
// answered, in Markdown.
func Table(os []Outcome) string {
	var b strings.Builder
	b.WriteString("| kind | query | rank | match | bytes | first answer |\n| --- | --- | ---: | --- | ---: | --- |\n")
	for _, o := range os {
		rank := "-"
		if o.Rank > 0 {
			rank = fmt.Sprint(o.Rank)
		}
		first := ""
		if len(o.IDs) > 0 {
			first = o.IDs[0]
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s |\n", o.Kind, cell(o.Text), rank, o.Match, o.Bytes, cell(first))
	}
	return b.String()
}

func cell(s string) string { return "`" + strings.ReplaceAll(s, "|", `\|`) + "`" }

// Percentile returns the p-th percentile (0..100, nearest rank) of xs.
func Percentile(xs []int, p float64) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Ints(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// ToolAnswer is what tool_detail answered to one phrase.
type ToolAnswer struct {
	Match string
	Tool  string // the tool of an exact or single answer, the first candidate of an ambiguous one
}

// ToolOutcome is one phrase's evaluation.
type ToolOutcome struct {
	Phrase
	ToolAnswer
	Right       bool
	WrongSingle bool
}

// EvaluateTools judges tool_detail's answers: an answer is right when its
// match is one of the phrase's right outcomes and, unless that is none, its
// tool (or first candidate) is one of the right tools. A single answer
// with any other tool is a wrong single.
func EvaluateTools(ps []Phrase, answer func(Phrase) (ToolAnswer, error)) ([]ToolOutcome, error) {
	out := make([]ToolOutcome, 0, len(ps))
	for _, p := range ps {
		a, err := answer(p)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", p.Text, err)
		}
		o := ToolOutcome{Phrase: p, ToolAnswer: a}
		rightTool := slices.Contains(p.Tools, a.Tool)
		o.Right = slices.Contains(p.Outcomes, a.Match) && (a.Match == "none" || len(p.Tools) == 0 || rightTool)
		o.WrongSingle = a.Match == "single" && !rightTool
		out = append(out, o)
	}
	return out, nil
}

// ToolTable lists every phrase with its answer, in Markdown.
func ToolTable(os []ToolOutcome) string {
	var b strings.Builder
	b.WriteString("| phrase | right | answer | tool |\n| --- | --- | --- | --- |\n")
	for _, o := range os {
		mark := "yes"
		switch {
		case o.WrongSingle:
			mark = "**wrong single**"
		case !o.Right:
			mark = "no"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(o.Text), mark, o.Match, o.Tool)
	}
	return b.String()
}

// Client calls the tools of a server as an MCP client would.
type Client struct {
	Server *mcp.Server
	Caller mcp.Caller
}

// Call calls a tool and returns its result and size in bytes: its text
// and structured content together.
func (c *Client) Call(tool string, args any) (*mcp.Result, int, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, 0, err
	}
	res, err := c.Server.CallTool(context.Background(), mcp.NewRequest(c.Caller, tool, raw))
	if err != nil {
		return nil, 0, err
	}
	size := 0
	for _, ct := range res.Content {
		size += len(ct.Text)
	}
	if sc, ok := res.StructuredContent.(json.RawMessage); ok {
		size += len(sc)
	}
	return res, size, nil
}

// Search calls code_search and returns its ranked ids.
func (c *Client) Search(args map[string]any) (Answer, error) {
	res, size, err := c.Call("code_search", args)
	if err != nil {
		return Answer{}, err
	}
	if res.IsError {
		return Answer{}, fmt.Errorf("error result %v", res.Content)
	}
	var out struct {
		Match   string `json:"match"`
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &out); err != nil {
		return Answer{}, err
	}
	a := Answer{Match: out.Match, Bytes: size}
	for _, r := range out.Results {
		a.IDs = append(a.IDs, r.ID)
	}
	return a, nil
}

// Unknown reports the ids of qs that code_definition does not know: a
// renamed declaration must be renamed in the set too.
func (c *Client) Unknown(qs []Query) []string {
	var out []string
	for _, q := range qs {
		for _, id := range q.Want {
			res, _, err := c.Call("code_definition", map[string]any{"name": id, "maxCharacters": 1})
			if err != nil || res.IsError {
				out = append(out, id)
			}
		}
	}
	return out
}

// Detail calls tool_detail with a phrase and returns its answer.
func (c *Client) Detail(phrase string) (ToolAnswer, error) {
	res, _, err := c.Call("tool_detail", map[string]any{"tool": phrase, "verbosity": "none"})
	if err != nil {
		return ToolAnswer{}, err
	}
	var out struct {
		Match string `json:"match"`
		Tool  *struct {
			Name string `json:"name"`
		} `json:"tool"`
		Candidates []struct {
			Name string `json:"name"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &out); err != nil {
		return ToolAnswer{}, err
	}
	a := ToolAnswer{Match: out.Match}
	switch {
	case out.Tool != nil:
		a.Tool = out.Tool.Name
	case len(out.Candidates) > 0:
		a.Tool = out.Candidates[0].Name
	}
	return a, nil
}

// Sizes are the answer sizes of an evaluation: the 10-hit answers (queries
// run with limit 10 that filled the page) and zero-hit answers.
type Sizes struct {
	Full, Zero []int
}

// ZeroHitQueries match nothing in any catalog of this project.
// They are spelled backwards in the source, so that a binary that links
// this package and indexes its own strings does not match them.
var ZeroHitQueries = []string{reverse("xuuq etacinborf xyzzz"), strings.Repeat("q", 8), strings.Repeat(reverse(" hctamon"), 100)}

func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// SizesOf measures the answers of os (run with limit 10) and of the
// zero-hit queries.
func (c *Client) SizesOf(os []Outcome) (Sizes, error) {
	var s Sizes
	for _, o := range os {
		if len(o.IDs) == 10 {
			s.Full = append(s.Full, o.Bytes)
		}
	}
	for _, q := range ZeroHitQueries {
		a, err := c.Search(map[string]any{"query": q, "limit": 10})
		if err != nil {
			return s, err
		}
		if len(a.IDs) != 0 {
			return s, fmt.Errorf("%.40q matched %v", q, a.IDs)
		}
		s.Zero = append(s.Zero, a.Bytes)
	}
	return s, nil
}

// String reports the sizes.
func (s Sizes) String() string {
	return fmt.Sprintf("10-hit answers p50 %d B, p90 %d B (%d answers); zero-hit answers max %d B",
		Percentile(s.Full, 50), Percentile(s.Full, 90), len(s.Full), Percentile(s.Zero, 100))
}

// Check reports the size targets that s misses: a 10-hit answer ≤ 2 KB
// p50, a zero-hit answer ≤ 1 KB.
func (s Sizes) Check() error {
	var errs []error
	if p := Percentile(s.Full, 50); len(s.Full) == 0 || p > 2048 {
		errs = append(errs, fmt.Errorf("10-hit answers: p50 %d bytes over %d answers, want ≤ 2048", p, len(s.Full)))
	}
	if p := Percentile(s.Zero, 100); p > 1024 {
		errs = append(errs, fmt.Errorf("zero-hit answer of %d bytes, want ≤ 1024", p))
	}
	return errors.Join(errs...)
}

// CheckRates reports the hit-rate targets that os misses: top-3 ≥ 90 %,
// top-1 ≥ 70 %.
func CheckRates(os []Outcome) error {
	r := RatesOf(os, "")
	if 100*r.Top3 < 90*r.N || 100*r.Top1 < 70*r.N {
		return fmt.Errorf("top-1 %s, top-3 %s of %d queries: want ≥ 70 %% and ≥ 90 %%", Pct(r.Top1, r.N), Pct(r.Top3, r.N), r.N)
	}
	return nil
}

// CheckTools reports the targets that os misses: ≥ 95 % right, no wrong
// single answer.
func CheckTools(os []ToolOutcome) (right, wrong int, err error) {
	for _, o := range os {
		if o.Right {
			right++
		}
		if o.WrongSingle {
			wrong++
		}
	}
	if 100*right < 95*len(os) || wrong > 0 {
		err = fmt.Errorf("%d of %d right, %d wrong single: want ≥ 95 %% and none", right, len(os), wrong)
	}
	return right, wrong, err
}

// Caller is a caller with the given grants.
func Caller(grants []string) mcp.Caller { return mcp.Caller{Principal: "evaluation", Grants: grants} }

// EvaluateFile runs the query set in file through c with limit 10 and
// measures the answers. It reports the expected ids c does not know as an
// error: a renamed declaration must be renamed in the set too.
func (c *Client) EvaluateFile(file string) ([]Outcome, Sizes, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, Sizes{}, err
	}
	qs, err := ParseQueries(data)
	if err != nil {
		return nil, Sizes{}, fmt.Errorf("%s: %w", file, err)
	}
	if unknown := c.Unknown(qs); len(unknown) > 0 {
		return nil, Sizes{}, fmt.Errorf("%s expects ids that are not in the catalog (rename them in the set): %s",
			file, strings.Join(unknown, ", "))
	}
	outs, err := Evaluate(qs, func(q Query) (Answer, error) {
		return c.Search(map[string]any{"query": q.Text, "limit": 10})
	})
	if err != nil {
		return nil, Sizes{}, err
	}
	sizes, err := c.SizesOf(outs)
	return outs, sizes, err
}

// PhraseRates counts the hits of the natural-language queries of os: the
// phrases and the pasted messages.
func PhraseRates(os []Outcome) Rates {
	a, b := RatesOf(os, KindPhrase), RatesOf(os, KindMessage)
	return Rates{N: a.N + b.N, Top1: a.Top1 + b.Top1, Top3: a.Top3 + b.Top3, Top10: a.Top10 + b.Top10}
}

// CheckHeldOut reports the targets that a held-out set misses (issue 25):
// top-3 ≥ 80 %, top-1 ≥ 60 %, phrases and messages top-3 ≥ 70 %.
func CheckHeldOut(os []Outcome) error {
	var errs []error
	r := RatesOf(os, "")
	if 100*r.Top3 < 80*r.N || 100*r.Top1 < 60*r.N {
		errs = append(errs, fmt.Errorf("top-1 %s, top-3 %s of %d queries: want ≥ 60 %% and ≥ 80 %%", Pct(r.Top1, r.N), Pct(r.Top3, r.N), r.N))
	}
	if p := PhraseRates(os); 100*p.Top3 < 70*p.N {
		errs = append(errs, fmt.Errorf("phrases and messages top-3 %s of %d: want ≥ 70 %%", Pct(p.Top3, p.N), p.N))
	}
	return errors.Join(errs...)
}

// CheckFloor reports a set whose top-3 rate is under 70 %, the floor that
// issue 25 sets for every set.
func CheckFloor(os []Outcome) error { return CheckFloorAt(os, 70) }

// CheckFloorAt reports a set whose top-3 rate is under pct percent.
func CheckFloorAt(os []Outcome, pct int) error {
	if r := RatesOf(os, ""); 100*r.Top3 < pct*r.N {
		return fmt.Errorf("top-3 %s of %d queries: want ≥ %d %%", Pct(r.Top3, r.N), r.N, pct)
	}
	return nil
}

// Report is the evaluation of one set, as a service's own binary writes it
// (EvaluateTo) for a test to read: the binary links that service alone.
type Report struct {
	Outcomes []Outcome
	Sizes    Sizes
}

// EvaluateTo runs the query set in file through c (see EvaluateFile) and
// writes the Report as JSON to w.
func (c *Client) EvaluateTo(file string, w io.Writer) error {
	outs, sizes, err := c.EvaluateFile(file)
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(Report{Outcomes: outs, Sizes: sizes})
}
