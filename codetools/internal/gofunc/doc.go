// Package gofunc reads the Go function table (pclntab) of an executable
// file, for the code tools' catalog: Section finds the table in an ELF,
// Mach-O or PE file and Parse decodes it, each function with its name,
// file, declaration line, the lines of its own code and the ranges of
// code inlined into it, which the runtime package does not expose.
// ParseSymbol reads the table's function names: the declaration a
// closure, wrapper or inlined body belongs to; StripTypeArgs, ElideTypeArgs
// and PrintedName spell the names of generic instantiations.
//
// It reads the layout of Go 1.20 and later. A malformed table makes the
// decoding methods panic with ErrMalformed; callers recover.
package gofunc
