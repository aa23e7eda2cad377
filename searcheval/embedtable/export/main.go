// Command export writes the training data of align.py: for each tuning
// set of searcheval (heldout.Tuning; never a held-out set), its queries
// with the ids they expect, and every declaration of the service's -deps
// snapshot with the text code_search embeds for it, each text also cut
// into the tokens of a staticembed table.
//
//	go run ./embedtable/export -snapshots DIR -out FILE [-table FILE]
//
// run in the searcheval module. A snapshot missing under DIR
// (DIR/<command>/snapshot, as SEARCHEVAL_SNAPSHOTS keeps them) is written
// there with mcpsnapshot. FILE gets one JSON object a line, one per
// service:
//
//	{"service": ...,
//	 "decls":   [{"id": ..., "text": ..., "tokens": [...]}, ...],
//	 "queries": [{"kind": ..., "text": ..., "want": [ids], "phrase": bool, "tokens": [...]}, ...]}
//
// "phrase" says whether code_search fuses the query with the vectors (it
// reads as a phrase in words). The texts of the declarations are those
// codetools.WriteVectors gives an Embedder.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/searcheval/heldout"
	"github.com/embedmcp/mcp/staticembed"
	"github.com/embedmcp/mcp/testsupport/searcheval"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, log io.Writer) error {
	fl := flag.NewFlagSet("export", flag.ContinueOnError)
	snaps := fl.String("snapshots", "", "`directory` of the -deps snapshots (required)")
	out := fl.String("out", "", "output `file` (required)")
	table := fl.String("table", "", "table `file` whose tokens are written; default: staticembed's")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *snaps == "" || *out == "" {
		return errors.New("usage: export -snapshots DIR -out FILE [-table FILE]")
	}
	tab := staticembed.Default()
	if *table != "" {
		data, err := os.ReadFile(*table)
		if err != nil {
			return err
		}
		if tab, err = staticembed.Parse(data); err != nil {
			return err
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, s := range heldout.Tuning {
		if slices.ContainsFunc(heldout.Services, func(h heldout.Service) bool { return h.Set == s.Set }) {
			return fmt.Errorf("%s is a held-out set", s.Set)
		}
		rec, err := exportService(ctx, s, *snaps, tab)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
		fmt.Fprintf(log, "%s: %d declarations, %d queries\n", s.Name, len(rec.Decls), len(rec.Queries))
	}
	return f.Close()
}

type decl struct {
	ID   string   `json:"id"`
	Text string   `json:"text"`
	Toks []string `json:"tokens"`
}

type query struct {
	Kind   string   `json:"kind"`
	Text   string   `json:"text"`
	Want   []string `json:"want"`
	Phrase bool     `json:"phrase"`
	Toks   []string `json:"tokens"`
}

type record struct {
	Service string  `json:"service"`
	Decls   []decl  `json:"decls"`
	Queries []query `json:"queries"`
}

func exportService(ctx context.Context, s heldout.Service, snaps string, tab *staticembed.Table) (*record, error) {
	module, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	snap := filepath.Join(snaps, filepath.Base(s.Main), "snapshot")
	if _, err := os.Stat(snap); err != nil {
		dir := filepath.Join(snaps, filepath.Base(s.Main))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if snap, err = heldout.Snapshot(module, s, dir); err != nil {
			return nil, err
		}
	}
	rec := &recorder{}
	var buf bytes.Buffer
	if _, err := codetools.WriteVectors(ctx, &buf, os.DirFS(snap), rec); err != nil {
		return nil, err
	}
	ids, err := vectorIDs(buf.Bytes(), len(rec.texts))
	if err != nil {
		return nil, err
	}
	r := &record{Service: s.Name}
	for i, text := range rec.texts {
		r.Decls = append(r.Decls, decl{ID: ids[i], Text: text, Toks: tokens(tab, text)})
	}
	data, err := os.ReadFile(filepath.Join(module, s.Set))
	if err != nil {
		return nil, err
	}
	qs, err := searcheval.ParseQueries(data)
	if err != nil {
		return nil, err
	}
	for _, q := range qs {
		r.Queries = append(r.Queries, query{Kind: q.Kind, Text: q.Text, Want: q.Want, Phrase: isPhrase(q.Text), Toks: tokens(tab, q.Text)})
	}
	return r, nil
}

// tokens returns the tokens of text in tab; the table's Embed averages
// the vectors of all but the unknown token ("[UNK]", not in the
// vocabulary).
func tokens(tab *staticembed.Table, text string) []string {
	return tab.Tokens(text)
}

// recorder is an Embedder that keeps the texts it is given and answers
// a one-dimensional vector for each.
type recorder struct{ texts []string }

func (r *recorder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		r.texts = append(r.texts, t)
		out[i] = []float32{1}
	}
	return out, nil
}

func (r *recorder) EmbedderName() string { return "export" }

// vectorsMagic is the first line of a vectors file (search.VectorsMagic).
const vectorsMagic = "embedmcp-vectors/1\n"

// vectorIDs reads the declarations' ids, in order, from the vectors file
// that WriteVectors wrote with one dimension: the magic, the Embedder's
// name, the dimensions and the count (uvarints, the name length-prefixed),
// then per vector its id (length-prefixed), the text's hash (8 bytes) and
// one byte.
func vectorIDs(data []byte, n int) ([]string, error) {
	p, ok := bytes.CutPrefix(data, []byte(vectorsMagic))
	if !ok {
		return nil, errors.New("not a vectors file")
	}
	bad := errors.New("truncated vectors file")
	l, m := binary.Uvarint(p)
	if m <= 0 || uint64(len(p)-m) < l {
		return nil, bad
	}
	p = p[m+int(l):]
	for range 2 { // dimensions, count
		if _, m = binary.Uvarint(p); m <= 0 {
			return nil, bad
		}
		p = p[m:]
	}
	ids := make([]string, 0, n)
	for range n {
		l, m := binary.Uvarint(p)
		if m <= 0 || uint64(len(p)-m) < l+9 {
			return nil, bad
		}
		ids = append(ids, string(p[m:m+int(l)]))
		p = p[m+int(l)+9:]
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("%d bytes after the last vector", len(p))
	}
	return ids, nil
}

// isPhrase is search.IsPhrase: two words or more, of letters (hyphens
// and apostrophes within, a comma, question or full stop after).
func isPhrase(query string) bool {
	ws := strings.Fields(query)
	if len(ws) < 2 {
		return false
	}
	for _, w := range ws {
		w = strings.TrimRight(w, ",.?")
		if w == "" {
			return false
		}
		for j, r := range w {
			switch {
			case unicode.IsLetter(r):
			case (r == '-' || r == '\'') && j > 0 && j < len(w)-1:
			default:
				return false
			}
		}
	}
	return true
}
