// Package codetools is the engine behind the code_search and
// code_definition MCP tools: it lets an agent read the Go code of the
// running server.
//
// A Go binary carries no interpreter with source, so a [Catalog] joins
// three sources, and every entry records which of them it came from:
//
//   - runtime (always on): the functions and methods linked into the
//     running binary and the functions inlined into them, with file and
//     declaration line, read once from the function table (pclntab) of
//     the running executable, plus the build information of
//     debug.ReadBuildInfo. Closures, method values, wrappers and inlined
//     bodies are attributed to the declaration that contains them: the
//     closure main.main.RequireToken.func3 of a RequireToken inlined into
//     main.main belongs to RequireToken, in the package of its file.
//     Nothing is invented: a symbol whose declaration cannot be told makes
//     no entry (BuildStats.UnattributedFunctions counts them).
//   - snapshot (opt-in): Go source the host embeds with //go:embed,
//     written by the mcpsnapshot generator (codetools/cmd/mcpsnapshot)
//     and passed as an fs.FS in [Options.Snapshot]. Its declarations come
//     from the index the generator wrote: nothing is parsed at run time,
//     and only names, short documentation and byte spans are kept.
//   - registered: documentation the host adds with [Catalog.Register]
//     and the tools of the MCP registry set with [Catalog.SetTools].
//
// The runtime and snapshot sources are built once, by [Catalog.Warm] or on
// the first query; [Options.Packages] limits them to a [Selection] of
// packages. A snapshot that cannot be read, or of another format, is
// ignored: the catalog serves the binary alone and every answer says why.
//
// # Provenance
//
// Each code_definition answer carries a [Consistency]: "match" when the
// binary's line table agrees with the snapshot's declarations of the
// entry's module and the module is pinned (Go version, dependency version
// and go.sum hash, or a clean VCS checkout of the main module), "stale"
// when the binary shows a difference (naming the first function that
// differs), "unverified" when no difference can be seen but none can be
// excluded.
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
// A snapshot file system holds manifest.json (see [Manifest]) and
// index.txt ([IndexName]: the declarations of every file, with lines and
// byte spans) at its root, and the source files under
// src/<importpath>/<file>.go.txt. The ".txt" suffix keeps the go command
// from treating the copies as packages of the host module. The directory
// mcpsnapshot writes also holds a .mcpsnapshot marker, which //go:embed
// leaves out.
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
