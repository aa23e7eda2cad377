package bm25f

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestJoinedScoresAsOne: documents split between an index that went
// through its encoding and one built apart rank, joined, exactly as one
// index of all of them: the same scores, matches, frequencies,
// statistics and variants.
func TestJoinedScoresAsOne(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	const n, nf = 300, 3
	docs := randomDocs(r, n, nf)
	docs[17][0] = append(docs[17][0], "gammas", "gam")
	all := NewBuilder(nf)
	for _, d := range docs {
		all.AddTerms(d...)
	}
	whole := all.Build()
	// Part one holds the even documents (encoded and decoded), part two
	// the odd ones.
	var even, odd []int32
	a, b := NewBuilder(nf), NewBuilder(nf)
	for d := range docs {
		if d%2 == 0 {
			even = append(even, int32(d))
			a.AddTerms(docs[d]...)
		} else {
			odd = append(odd, int32(d))
			b.AddTerms(docs[d]...)
		}
	}
	enc, err := a.Build().AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Join(n, Part{Index: pa, Docs: even}, Part{Index: b.Build(), Docs: odd})
	if err != nil {
		t.Fatal(err)
	}
	if j.Stats() != whole.Stats(nil) {
		t.Errorf("stats %+v, want %+v", j.Stats(), whole.Stats(nil))
	}
	p := &Params{K1: 1.2, W: [MaxFields]float64{2, 1, 0.5}, B: [MaxFields]float64{0.5, 0.75, 0.3}, Strong: 1}
	q := []Concept{{Terms: []string{"gamma", "delta"}, Weights: []float64{1, 0.4}}, {Terms: []string{"token"}, Weights: []float64{1}, Scale: 0.5}}
	st := whole.Stats(nil)
	var want, got Scores
	whole.Score(q, p, &st, nil, &want)
	j.Score(q, p, &st, &got)
	if len(got.Touched) != len(want.Touched) || len(want.Touched) == 0 {
		t.Fatalf("%d documents scored, want %d", len(got.Touched), len(want.Touched))
	}
	for _, d := range want.Touched {
		if got.Score[d] != want.Score[d] || got.Matched[d] != want.Matched[d] || got.Strong[d] != want.Strong[d] {
			t.Errorf("document %d: %v %b %b, want %v %b %b", d, got.Score[d], got.Matched[d], got.Strong[d],
				want.Score[d], want.Matched[d], want.Strong[d])
		}
	}
	for _, term := range []string{"gamma", "token", "gammas", "nothing"} {
		if j.DocFreq(term) != whole.DocFreq(term) {
			t.Errorf("DocFreq(%q) = %d, want %d", term, j.DocFreq(term), whole.DocFreq(term))
		}
	}
	if v, w := j.Variants("gamma", 3, 3, 5), whole.Variants("gamma", 3, 3, 5); !slices.Equal(v, w) {
		t.Errorf("variants %q, want %q", v, w)
	}
}

// TestJoinErrors: parts that number a document twice, or leave one out,
// are refused.
func TestJoinErrors(t *testing.T) {
	b := NewBuilder(1)
	b.Add("alpha")
	b.Add("beta")
	ix := b.Build()
	for name, parts := range map[string][]Part{
		"twice":   {{Index: ix, Docs: []int32{0, 0}}},
		"missing": {{Index: ix, Docs: []int32{0, 2}}},
		"short":   {{Index: ix, Docs: []int32{0}}},
	} {
		if _, err := Join(3, parts...); err == nil {
			t.Errorf("%s: joined", name)
		}
	}
}

// TestDecodeDamaged: an encoding cut short or with a byte changed is
// an error wrapping ErrEncoding, or decodes to an index that scores
// without panicking.
func TestDecodeDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	b := NewBuilder(2)
	for _, d := range randomDocs(r, 40, 2) {
		b.AddTerms(d...)
	}
	enc, err := b.Build().AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(enc); cut += 7 {
		if _, err := Decode(enc[:cut]); !errors.Is(err, ErrEncoding) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
	p := &Params{K1: 1.2, W: [MaxFields]float64{1, 1}}
	for pos := range enc {
		bad := slices.Clone(enc)
		bad[pos] ^= 0x33
		ix, err := Decode(bad)
		if err != nil {
			if !errors.Is(err, ErrEncoding) {
				t.Fatalf("byte %d: %v", pos, err)
			}
			continue
		}
		st := ix.Stats(nil)
		var s Scores
		ix.Score(Plain([]string{"alpha", "gamma", "token"}), p, &st, nil, &s)
		ix.Variants("gamma", 3, 3, 5)
	}
}
