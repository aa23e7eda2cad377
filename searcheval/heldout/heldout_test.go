package heldout

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/embedmcp/mcp/testsupport/searcheval"
)

// TestHeldOutFrozen checks that each held-out set is the one frozen before
// the ranking ran on it: its sha256 is the one in heldout.sha256. A tuning
// set that was frozen as a held-out set keeps its sum and is checked too.
func TestHeldOutFrozen(t *testing.T) {
	f, err := os.Open("../testdata/heldout.sha256")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if ok {
			sums[name] = sum
		}
	}
	for _, s := range append(slices.Clone(Services), Tuning...) {
		name := filepath.Base(s.Set)
		want, ok := sums[name]
		if !ok && slices.Contains(Tuning, s) {
			continue
		}
		if !ok {
			t.Errorf("%s: no sha256 in heldout.sha256", name)
			continue
		}
		data, err := os.ReadFile(filepath.Join("..", s.Set))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		if got := hex.EncodeToString(h[:]); got != want {
			t.Errorf("%s changed after it was frozen: sha256 %s, frozen %s", name, got, want)
		}
	}
}

// snaps are the -deps snapshots of the services, each written once for
// all the tests of the package (TestHeldOutIDsExist and the quality tests
// read the same one).
var snaps = struct {
	sync.Mutex
	dir    string
	byMain map[string]string
}{byMain: map[string]string{}}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "heldout")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	snaps.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// snapshot returns the -deps snapshot of the service, writing it the first
// time.
func snapshot(t *testing.T, s Service) string {
	t.Helper()
	snaps.Lock()
	defer snaps.Unlock()
	if p, ok := snaps.byMain[s.Main]; ok {
		return p
	}
	root := snaps.dir
	if keep := os.Getenv("SEARCHEVAL_SNAPSHOTS"); keep != "" {
		// A tuning loop keeps the snapshots between runs; remove one to
		// write it again after a change to what mcpsnapshot writes.
		root = keep
		if p := filepath.Join(keep, filepath.Base(s.Main), "snapshot"); dirExists(p) {
			snaps.byMain[s.Main] = p
			return p
		}
	}
	dir := filepath.Join(root, filepath.Base(s.Main))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	p, err := Snapshot("..", s, dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(p, "vectors.bin")); err == nil {
		fmt.Printf("%s: -deps snapshot with vectors written in %v (vectors.bin %d bytes)\n",
			s.Name, time.Since(t0).Round(time.Second), fi.Size())
	}
	snaps.byMain[s.Main] = p
	return p
}

// dirExists reports whether p is a directory.
func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// TestHeldOutIDsExist checks that every id each set (held-out and tuning)
// expects is a declaration of its service's snapshot, as code_definition
// resolves it, so that a typo in a set fails here instead of counting as a
// miss. It runs no search: it may run on a held-out set before anyone
// looks at how the set ranks.
func TestHeldOutIDsExist(t *testing.T) {
	for _, s := range append(slices.Clone(Services), Tuning...) {
		if err := CheckIDs("..", s, snapshot(t, s)); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}

// heldOutGuard is the top-3 rate, in percent, under which a held-out set
// fails TestHeldOutQuality.
const heldOutGuard = 50

// TestHeldOutQuality runs each held-out set over its service, by words
// alone and then with the pure-Go table of staticembed fused in
// (Embedders), and prints the summary tables of both (docs/evaluation.md
// describes the sets). The targets of issue 25 —
// top-3 ≥ 80 %, top-1 ≥ 60 %, phrases and messages top-3 ≥ 70 % over the
// held-out sets, no set under 70 % top-3 — are measurements of code
// nobody tuned for, reported as met or missed, not tuned towards: a set
// the ranking was tuned on to pass them would no longer be held out. What
// fails the test is a set under heldOutGuard, a fall below every held-out
// set's first measurements (53 % top-3 and up: go-coap's, with the ranking
// of 2026-12-01), which only a broken search causes.
func TestHeldOutQuality(t *testing.T) {
	show := os.Getenv("SEARCHEVAL_SHOW_QUERIES") == "1"
	for _, em := range Embedders() {
		name := EmbedderName(em)
		var all []searcheval.Outcome
		var sizes searcheval.Sizes
		var missed []error
		for _, s := range Services {
			r, err := Evaluate("..", s, snapshot(t, s), em)
			if err != nil {
				t.Fatal(err)
			}
			outs := r.Outcomes
			all = append(all, outs...)
			sizes.Full = append(sizes.Full, r.Sizes.Full...)
			sizes.Zero = append(sizes.Zero, r.Sizes.Zero...)
			p := searcheval.PhraseRates(outs)
			fmt.Printf("\nHELD-OUT code_search over %s, %s (%d queries; phrases and messages top-3 %s; answer sizes %s):\n\n%s",
				s.Name, name, len(outs), searcheval.Pct(p.Top3, p.N), r.Sizes, searcheval.Summary(s.Name+" "+name, outs))
			if show {
				fmt.Printf("\n%s", searcheval.Table(outs))
			}
			if err := searcheval.CheckFloorAt(outs, heldOutGuard); err != nil {
				t.Errorf("%s, %s: %v", s.Name, name, err)
			} else if err := searcheval.CheckFloor(outs); err != nil {
				missed = append(missed, fmt.Errorf("%s: %v", s.Name, err))
			}
		}
		p := searcheval.PhraseRates(all)
		fmt.Printf("\nHELD-OUT code_search over the %d held-out sets, %s (%d queries; phrases and messages top-3 %s; answer sizes %s):\n\n%s\n",
			len(Services), name, len(all), searcheval.Pct(p.Top3, p.N), sizes, searcheval.Summary("held-out "+name, all))
		if err := searcheval.CheckHeldOut(all); err != nil {
			missed = append(missed, err)
		}
		if err := errors.Join(missed...); err != nil {
			fmt.Printf("held-out targets missed, %s:\n%v\n\n", name, err)
		}
	}
}

// TestTuningQuality runs the tuning sets, by words alone and then with the
// pure-Go table of staticembed fused in, and prints their tables, query by
// query: they are read while the ranking is tuned, and say nothing about
// code nobody tuned for. A set under the 70 % floor is reported; one under
// heldOutGuard fails the test. SEARCHEVAL_ONLY=name runs that set alone.
func TestTuningQuality(t *testing.T) {
	only := os.Getenv("SEARCHEVAL_ONLY")
	for _, em := range Embedders() {
		name := EmbedderName(em)
		var all []searcheval.Outcome
		var sizes searcheval.Sizes
		var missed []error
		for _, s := range Tuning {
			if only != "" && !strings.Contains(s.Name, only) {
				continue
			}
			r, err := Evaluate("..", s, snapshot(t, s), em)
			if err != nil {
				t.Fatal(err)
			}
			outs := r.Outcomes
			all = append(all, outs...)
			sizes.Full = append(sizes.Full, r.Sizes.Full...)
			sizes.Zero = append(sizes.Zero, r.Sizes.Zero...)
			fmt.Printf("\nTUNING code_search over %s, %s (%d queries; answer sizes %s):\n\n%s\n%s\n",
				s.Name, name, len(outs), r.Sizes, searcheval.Summary(s.Name+" (tuning) "+name, outs), searcheval.Table(outs))
			if err := searcheval.CheckFloorAt(outs, heldOutGuard); err != nil {
				t.Errorf("%s, %s: %v", s.Name, name, err)
			} else if err := searcheval.CheckFloor(outs); err != nil {
				missed = append(missed, fmt.Errorf("%s: %v", s.Name, err))
			}
		}
		fmt.Printf("\nTUNING code_search over the tuning sets, %s (%d queries; answer sizes %s):\n\n%s\n",
			name, len(all), sizes, searcheval.Summary("tuning "+name, all))
		if err := errors.Join(missed...); err != nil {
			fmt.Printf("tuning floor missed, %s:\n%v\n\n", name, err)
		}
	}
}
