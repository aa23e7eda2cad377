// Package codetools is the engine behind the code_search and
// code_definition MCP tools: it lets an agent read the Go code of the
// running server.
//
// A Go binary carries no interpreter with source, so a [Catalog] joins
// three sources, and every entry records which of them it came from:
//
//   - runtime (always on): the functions and methods linked into the
//     running binary, with file and line, read once and lazily from the
//     pclntab section of the executable file (os.Executable) with
//     debug/gosym, plus the build information of debug.ReadBuildInfo.
//   - snapshot (opt-in): Go source the host embeds with //go:embed,
//     written by the mcpsnapshot generator (codetools/cmd/mcpsnapshot)
//     and passed as an fs.FS in [Options.Snapshot]. It is parsed once,
//     on first use, with go/parser; only names, short documentation and
//     byte spans are kept, never syntax trees.
//   - registered: documentation the host adds with [Catalog.Register]
//     and the tools of the MCP registry set with [Catalog.SetTools].
//
// # Identifiers
//
// Every entry has one canonical id that can be pasted from a Go stack
// trace or a pprof profile: importpath.Func, importpath.Type.Method,
// importpath.(*Type).Method, importpath.Type, importpath.Const. When
// resolving a name, "main." is mapped to the main package's import path,
// runtime escapes such as %2e are undone, generic instantiations
// (F[...]) are folded to their declaration, closures (F.func1,
// F.gowrap1, F-range1, T.M-fm) are attached to their enclosing
// declaration, and both receiver spellings (T.M and (*T).M) resolve.
// Registered tools have ids of the form "tool:name".
//
// # Snapshot layout
//
// A snapshot file system holds manifest.json (see [Manifest]) at its root
// and the source files under src/<importpath>/<file>.go.txt. The ".txt"
// suffix keeps the go command from treating the copies as packages of the
// host module.
//
// # Tools
//
// The constants [SearchToolName], [SearchToolDescription],
// [SearchInputSchema], [DefinitionToolName], [DefinitionToolDescription],
// [DefinitionInputSchema] and [Permission] describe the two tools; a
// wrapper decodes the arguments into [SearchQuery] or [DefinitionQuery],
// calls [Catalog.Search] or [Catalog.Definition], and returns the result
// as structured content. Errors wrap [ErrInvalidArgument] or
// [ErrUnknownName].
package codetools
