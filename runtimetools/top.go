package runtimetools

import (
	"math"
	"strings"
)

// topFunction is one function of a profile's top list.
type topFunction struct {
	ID          string    `json:"id" jsonschema:"the function as the runtime names it; pass it to code_definition"`
	File        string    `json:"file,omitempty" jsonschema:"source file"`
	Line        int       `json:"line,omitempty" jsonschema:"line of the function's declaration"`
	Flat        int64     `json:"flat" jsonschema:"value in the function itself (innermost frame)"`
	FlatPercent float64   `json:"flatPercent" jsonschema:"flat as a percentage of the total"`
	Cum         int64     `json:"cum" jsonschema:"value in the function and everything it calls"`
	CumPercent  float64   `json:"cumPercent" jsonschema:"cum as a percentage of the total"`
	Native      bool      `json:"native,omitempty" jsonschema:"a symbol outside Go's packages (C or C++ through cgo or the race detector, package-less assembly): code_definition does not know it"`
	Lines       []hotLine `json:"lines,omitempty" jsonschema:"the function's hottest lines (of its flat value), for the first functions of the list"`
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
