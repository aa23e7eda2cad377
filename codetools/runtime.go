package codetools

import (
	"debug/gosym"
	"fmt"
	"os"
)

// runtimeFunc is one function of the running binary's function table.
type runtimeFunc struct {
	name string // symbol name as linked
	file string // file name as recorded by the compiler
	line int
}

// runtimeLimitations describes what the runtime source reads.
const runtimeLimitations = "Runtime entries come from the function table (pclntab) of the executable file named by os.Executable, " +
	"read once with debug/gosym on first use and then cached; functions that were inlined everywhere or removed by the " +
	"linker are not listed, and file:line is the entry line of the function. Build provenance comes from debug.ReadBuildInfo."

// readFuncTable reads the function table of the running executable.
func readFuncTable() ([]runtimeFunc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locating executable: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return nil, fmt.Errorf("opening executable: %w", err)
	}
	defer f.Close()
	data, text, err := pclntab(f)
	if err != nil {
		return nil, err
	}
	return decodeFuncTable(data, text)
}

// decodeFuncTable decodes a pclntab.
func decodeFuncTable(data []byte, text uint64) ([]runtimeFunc, error) {
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text))
	if err != nil {
		return nil, fmt.Errorf("decoding function table: %w", err)
	}
	out := make([]runtimeFunc, 0, len(tab.Funcs))
	for i := range tab.Funcs {
		fn := &tab.Funcs[i]
		file, line, _ := tab.PCToLine(fn.Entry)
		out = append(out, runtimeFunc{name: fn.Name, file: file, line: line})
	}
	return out, nil
}
