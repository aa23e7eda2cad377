package runtimetools

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// topFunction is one function of a profile's top list.
type topFunction struct {
	ID          string  `json:"id" jsonschema:"the function as the runtime names it; pass it to code_definition"`
	File        string  `json:"file,omitempty" jsonschema:"source file"`
	Line        int     `json:"line,omitempty" jsonschema:"line of the function's declaration"`
	Flat        int64   `json:"flat" jsonschema:"value in the function itself (innermost frame)"`
	FlatPercent float64 `json:"flatPercent" jsonschema:"flat as a percentage of the total"`
	Cum         int64   `json:"cum" jsonschema:"value in the function and everything it calls"`
	CumPercent  float64 `json:"cumPercent" jsonschema:"cum as a percentage of the total"`
	Native      bool    `json:"native,omitempty" jsonschema:"a symbol outside Go's packages (C or C++ through cgo or the race detector, package-less assembly): code_definition does not know it"`
}

// topFunctions returns the n functions of p with the largest flat (or
// cum, with byCum) value of sample type idx, as pprof's top command
// counts them: flat for the innermost function of each sample (inlined
// calls are functions of their own), cum once for every function of the
// sample's stack. It also returns the total and the number of functions
// seen.
func topFunctions(p *profile.Profile, idx, n int, byCum bool) (top []topFunction, total int64, functions int) {
	type acc struct {
		fn        *profile.Function
		flat, cum int64
	}
	byName := map[string]*acc{}
	seen := map[string]bool{}
	for _, s := range p.Sample {
		v := s.Value[idx]
		total += v
		clear(seen)
		first := true
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				name := ln.Function.Name
				a := byName[name]
				if a == nil {
					a = &acc{fn: ln.Function}
					byName[name] = a
				}
				if first {
					a.flat += v
					first = false
				}
				if !seen[name] {
					a.cum += v
					seen[name] = true
				}
			}
		}
	}
	all := make([]*acc, 0, len(byName))
	for _, a := range byName {
		if a.flat != 0 || a.cum != 0 {
			all = append(all, a)
		}
	}
	key := func(a *acc) (int64, int64) {
		if byCum {
			return a.cum, a.flat
		}
		return a.flat, a.cum
	}
	slices.SortFunc(all, func(a, b *acc) int {
		a1, a2 := key(a)
		b1, b2 := key(b)
		if c := cmp.Compare(abs(b1), abs(a1)); c != 0 {
			return c
		}
		if c := cmp.Compare(abs(b2), abs(a2)); c != 0 {
			return c
		}
		return cmp.Compare(a.fn.Name, b.fn.Name)
	})
	top = []topFunction{}
	for _, a := range all[:min(n, len(all))] {
		top = append(top, topFunction{ID: elideTypeArgs(a.fn.Name), File: a.fn.Filename, Line: int(a.fn.StartLine),
			Flat: a.flat, FlatPercent: percent(a.flat, total), Cum: a.cum, CumPercent: percent(a.cum, total),
			Native: native(a.fn.Name, a.fn.Filename)})
	}
	return top, total, len(all)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// percent returns 100*v/total rounded to two decimals.
func percent(v, total int64) float64 {
	if total == 0 {
		return 0
	}
	return math.Round(10000*float64(v)/float64(total)) / 100
}

// native reports whether a profile's function is not a Go function: a Go
// function's name is qualified by its package ("pkg.F", "a/b.(*T).M");
// C++ names are mangled ("_ZN..."), C and package-less assembly names
// have no package, and C sources end in .c, .cc, .cpp or .h.
func native(name, file string) bool {
	if strings.HasPrefix(name, "_Z") {
		return true
	}
	slash := strings.LastIndexByte(name, '/')
	if !strings.Contains(name[slash+1:], ".") {
		return true
	}
	for _, ext := range []string{".c", ".cc", ".cpp", ".cxx", ".h"} {
		if strings.HasSuffix(file, ext) {
			return true
		}
	}
	return false
}
