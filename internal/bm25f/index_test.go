package bm25f

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomDocs returns n documents of nf fields with words from a small
// vocabulary, some repeated many times.
func randomDocs(r *rand.Rand, n, nf int) [][][]string {
	vocab := []string{"alpha", "beta", "gamma", "delta", "token", "bearer", "check", "server", "handl", "request"}
	docs := make([][][]string, n)
	for d := range docs {
		docs[d] = make([][]string, nf)
		for f := range docs[d] {
			k := r.IntN(6)
			if r.IntN(50) == 0 {
				k = 300 // longer than a stored length
			}
			for range k {
				docs[d][f] = append(docs[d][f], vocab[r.IntN(len(vocab))])
			}
		}
	}
	return docs
}

// refScore is BM25F written from the formula over plain slices.
func refScore(docs [][][]string, keep func(int) bool, q []string, p *Params) map[int]float64 {
	nf := len(docs[0])
	var n float64
	var avg [MaxFields]float64
	for d := range docs {
		if keep(d) {
			n++
			for f := 0; f < nf; f++ {
				avg[f] += float64(min(len(docs[d][f]), maxTF))
			}
		}
	}
	for f := range avg {
		avg[f] /= n
	}
	out := map[int]float64{}
	for _, t := range q {
		df := 0.0
		for d := range docs {
			if !keep(d) {
				continue
			}
			for f := 0; f < nf; f++ {
				if slices.Contains(docs[d][f], t) {
					df++
					break
				}
			}
		}
		if df == 0 {
			continue
		}
		idf := IDF(n, df)
		for d := range docs {
			if !keep(d) {
				continue
			}
			tf := 0.0
			for f := 0; f < nf; f++ {
				c := 0
				for _, x := range docs[d][f] {
					if x == t {
						c++
					}
				}
				c = min(c, maxTF)
				if c > 0 && p.W[f] > 0 {
					l := float64(min(len(docs[d][f]), maxTF))
					tf += p.W[f] * float64(c) / (1 - p.B[f] + p.B[f]*l/avg[f])
				}
			}
			if tf > 0 {
				out[d] += idf * tf / (p.K1 + tf)
			}
		}
	}
	return out
}

func TestScoreMatchesFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, nf := range []int{1, 5, MaxFields} {
		docs := randomDocs(r, 300, nf)
		b := NewBuilder(nf)
		for _, d := range docs {
			b.AddTerms(d...)
		}
		ix := b.Build()
		if ix.Len() != len(docs) || ix.Fields() != nf {
			t.Fatalf("Len %d Fields %d", ix.Len(), ix.Fields())
		}
		p := &Params{K1: 1.2}
		for f := 0; f < nf; f++ {
			p.W[f] = float64(f + 1)
			p.B[f] = 0.75
		}
		p.W[0] = 0 // a field that is not searched
		var s Scores
		for _, keep := range []func(int) bool{nil, func(d int) bool { return d%3 != 0 }} {
			var allow func(int32) bool
			k := func(int) bool { return true }
			if keep != nil {
				allow = func(d int32) bool { return keep(int(d)) }
				k = keep
			}
			st := ix.Stats(allow)
			for _, q := range [][]string{{"token"}, {"bearer", "token", "check"}, {"missing"}, {"alpha", "beta", "gamma", "delta"}} {
				want := refScore(docs, k, q, p)
				ix.Score(Plain(q), p, &st, allow, &s)
				if len(s.Touched) != len(want) {
					t.Errorf("fields %d %q: %d scored, want %d", nf, q, len(s.Touched), len(want))
				}
				for _, d := range s.Touched {
					if math.Abs(s.Score[d]-want[int(d)]) > 1e-9 {
						t.Errorf("fields %d %q: doc %d scores %v, want %v", nf, q, d, s.Score[d], want[int(d)])
					}
					for i, term := range q {
						has := false
						for f := 1; f < nf; f++ {
							has = has || slices.Contains(docs[d][f], term)
						}
						if got := s.Matched[d]&(1<<i) != 0; got != has {
							t.Errorf("fields %d %q: doc %d matched %q = %v", nf, q, d, term, got)
						}
					}
				}
			}
		}
	}
}

// Reused Scores give the same result as fresh ones.
func TestScoresReuse(t *testing.T) {
	b := NewBuilder(2)
	b.Add("bearer token", "checks the token")
	b.Add("server", "serves requests")
	b.Add("", "")
	ix := b.Build()
	p := &Params{K1: 1.2, W: [MaxFields]float64{2, 1}, B: [MaxFields]float64{0.5, 0.75}, Strong: 1}
	st := ix.Stats(nil)
	var s Scores
	ix.Score(Plain([]string{"token"}), p, &st, nil, &s)
	ix.Score(Plain([]string{"server"}), p, &st, nil, &s)
	if len(s.Touched) != 1 || s.Touched[0] != 1 || s.Score[0] != 0 || s.Matched[0] != 0 || s.Strong[1] != 1 {
		t.Errorf("after reuse: touched %v scores %v matched %v strong %v", s.Touched, s.Score, s.Matched, s.Strong)
	}
	if ix.DocFreq("token") != 1 || ix.DocFreq("serv") != 1 || ix.DocFreq("nothing") != 0 {
		t.Errorf("DocFreq token %d serv %d", ix.DocFreq("token"), ix.DocFreq("serv"))
	}
}

// A concept scores each document by its best form, never by the sum of
// its forms; variants are other forms found in the index.
func TestConceptsAndVariants(t *testing.T) {
	b := NewBuilder(1)
	b.Add("recover")             // 0
	b.Add("recoverer")           // 1
	b.Add("recover recoverer")   // 2
	b.Add("validation validate") // 3
	b.Add("listen")              // 4
	ix := b.Build()
	if got := ix.Variants("recover", 4, 4, 5); !slices.Equal(got, []string{"recoverer"}) {
		t.Errorf("Variants(recover) = %q", got)
	}
	if got := ix.Variants("validation", 4, 5, 5); !slices.Equal(got, []string{"validat"}) {
		t.Errorf("Variants(validation) = %q", got)
	}
	if got := ix.Variants("lis", 4, 4, 5); got != nil {
		t.Errorf("Variants(lis) = %q: shorter than the stem", got)
	}
	p := &Params{K1: 1.2, W: [MaxFields]float64{1}, B: [MaxFields]float64{0.5}, Strong: 1}
	st := ix.Stats(nil)
	var s Scores
	ix.Score([]Concept{{Terms: []string{"recover", "recoverer"}, Weights: []float64{1, 0.5}}}, p, &st, nil, &s)
	var plain Scores
	ix.Score(Plain([]string{"recover"}), p, &st, nil, &plain)
	if s.Score[0] != plain.Score[0] || s.Score[1] <= 0 || s.Score[1] >= s.Score[0] || s.Strong[1] != 0 || s.Strong[0] != 1 {
		t.Errorf("scores %v strong %v, plain %v", s.Score[:3], s.Strong[:3], plain.Score[:3])
	}
	// Document 2 holds both forms: it counts the better one only.
	if math.Abs(s.Score[2]-plain.Score[2]) > 1e-12 {
		t.Errorf("doc with both forms scores %v, want %v", s.Score[2], plain.Score[2])
	}
}

// The eighth field holds terms alone and with others, once and more.
func TestEighthField(t *testing.T) {
	b := NewBuilder(MaxFields)
	b.AddTerms(nil, nil, nil, nil, nil, nil, nil, []string{"alpha"})
	b.AddTerms(nil, nil, nil, nil, nil, nil, []string{"alpha"}, []string{"alpha", "alpha", "beta"})
	b.AddTerms([]string{"beta"}, nil, nil, nil, nil, nil, nil, []string{"beta"})
	ix := b.Build()
	var p Params
	p.K1 = 1.2
	p.B[7], p.B[0] = 0.5, 0.5
	p.W[7] = 1
	st := ix.Stats(nil)
	var s Scores
	ix.Score(Plain([]string{"alpha"}), &p, &st, nil, &s)
	if len(s.Touched) != 2 || s.Score[1] <= s.Score[0] {
		t.Errorf("alpha in field 7: touched %v, scores %v", s.Touched, s.Score[:3])
	}
	p.W[7], p.W[0] = 0, 1
	ix.Score(Plain([]string{"beta"}), &p, &st, nil, &s)
	if len(s.Touched) != 1 || s.Touched[0] != 2 {
		t.Errorf("beta in field 0: touched %v", s.Touched)
	}
}
