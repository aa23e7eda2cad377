// Package codetools is the engine behind the code_search, code_definition,
// code_references and code_file MCP tools: it lets an agent read and
// navigate the Go code of the running server.
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
//     and only names, short documentation and byte spans are kept. The
//     index also holds the references between the declarations, which the
//     generator computed by type-checking the source; they are read on the
//     first code_references question.
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
// code_definition also accepts what an agent has at hand: a short name
// (NewHandler), a package- or receiver-qualified one (mcp.NewHandler,
// (*Server).Handle, Server.Handle), a stack-trace frame with its arguments,
// and a stack-trace file line (/build/x/protocol.go:227 +0x339), which
// answers the declaration that encloses the line, with the line marked
// ([Focus]). A name several entries answer to is an error wrapping
// [ErrAmbiguousName], an unknown one [ErrUnknownName]; both list up to 10
// candidate ids, closest first.
//
// # Search
//
// code_search answers with entries ranked best first ([SearchResult]).
// A file name (handlers.go) answers that file's declarations in line
// order; file:line (protocol.go:227, as a stack trace prints it) the
// declaration that encloses the line. A single word, name or qualified
// name matches literally: a case-insensitive substring of ids and
// documentation, in tiers — the exact name, a name that begins with the
// query, a word of a name (camelCase, _, digits), elsewhere in a name,
// elsewhere in the id, in the documentation — and within a tier the
// host's main module first, then the modules its go.mod requires directly,
// then the other modules of the build, then this library's own packages
// and the standard library, functions linked into the binary before those
// that are not, then shorter ids. A fully qualified id or stack-trace frame
// (net/http.(*Server).Serve(0xc0001e...)) answers its declaration in any
// scope, and a package is named as Go code names it (mqtt.New for
// github.com/mochi-mqtt/server/v2). Several words, or a word without
// literal match, are ranked as terms with BM25F (internal/bm25f, the engine
// tool_detail uses too) over the words of each entry's name, its receiver
// (for a type: its fields and interface methods), its documentation, its
// package path, its file name and, outside the standard library, the
// identifiers of its source and what names things in it: string literals
// (messages, headers, routes, SQL, config keys), comments inside function
// bodies, the types, tags and comments of a struct's fields, and the names
// of a function's callers in its package. mcpsnapshot
// computes those words (codeindex.Words), so the catalog tokenizes no
// source at start; for a snapshot of an earlier mcpsnapshot it reads them
// from the source. A pasted log line or error message meets the pairs of
// adjacent words of the format string that printed it, verbs left out. The
// host's main module, its direct requirements, the other modules and this
// library weigh 1, 0.95, 0.85 and 0.25 in a ranking by words (the
// standard library 0.5), and come in that order between literal matches (this library weighs 1 when the
// query names it or a package filter scopes the search). A type that the running
// binary does not use (none of its methods is linked or inlined: the
// client side of a library whose server the host runs), its methods and
// fields weigh 0.5, as do the entries of a package of which the binary
// links no function, and the constants and variables of one of which it
// links fewer than one in 20. Words are split at case changes,
// inflections removed, abbreviations of code joined to their words (max
// and maximum, req and request, cfg and config, msg and message, ctx and
// context, conn and connection, env and environment, GC and garbage
// collection); other forms of a word in the catalog (recover and
// recoverer) and synonyms common in Go code (complete and finish, several
// and multi, max, limit and cap, refuse, reject and deny, remove, delete
// and purge, expiry, TTL and timeout, allow, permit and grant, how often
// and interval, derive, generate and compute, retry, attempt and try,
// idle and quiet, discard, ignore and silence, terminal and pty, depth and
// deep, convert and translate, banner and greeting) count at lower
// weights; superlatives of size (largest, longest, lowest) are max and
// min, and "how long", "how many" and "how much" meet timeouts, maximums,
// counts and sizes. The score is scaled by the share of the query's words
// an entry holds, each word weighing its idf squared (holding the rare
// words of a question counts most), and raised for an entry that holds
// the whole phrase as written. The first
// words of an entry's package documentation and of its type's count too,
// weakly. Struct fields and interface methods are entries of their own
// (kind field, and method; Config.MaxConns, Authorizer.Allowed), below
// the declarations of the same name, and weigh less than declarations in
// a ranking by words, except settings (exported fields whose name says
// they hold a limit or a period: MaxConns, ReadTimeout); code_definition
// answers their type. Between equal literal matches a package's API comes
// before its unexported declarations; in a ranking by words, the unexported
// declarations of a module the host does not require directly weigh 0.7:
// a question about such a library asks about its API.
// An optional [Embedder] (Options.Embedder) fuses with the ranking of a
// phrase by words the declarations nearest to it by meaning (dense
// retrieval over every entry's vector); the staticembed module holds a
// pure-Go one (staticembed.Default, no server, no network), and
// [HTTPEmbedder] calls an embeddings endpoint of OpenAI's form (a local
// model served by Ollama or llama.cpp's server, or a hosted one).
// mcpsnapshot -embed-url (or staticembed-vectors, for a static table)
// precomputes the declarations' vectors ([WriteVectors]), which a
// [NamedEmbedder] of the same model uses, so that a search embeds only
// its query; a [DocumentEmbedder] (HTTPEmbedder with DocumentModel or
// prefixes, as e5 models want) embeds the declarations otherwise than
// the queries. The match field says
// which mode answered.
//
// Filters keep kinds, scopes (main, deps, std, all; main and deps by
// default, widened to all with a note when they have no match) and
// packages. The answer is compact: coverage as counts, the package list
// only when asked, a text listing of one line per hit, and never more than
// 200 bytes of an argument in an answer or an error.
//
// # Navigation
//
// code_references ([Catalog.References]) follows a symbol: its callers
// (static calls, the function taken as a value, and calls through an
// interface method it implements, marked dynamic with the interface
// method), its callees, every reference (reads, writes, types in
// signatures), its implementations (the interfaces a type implements, the
// types that implement an interface, and the same for their methods) and
// the methods of a type (declared, and promoted through embedded fields).
// Each item has an id code_definition accepts, file:line and the text of
// the line. Calls through function values, reflection, go:linkname,
// assembly and code outside the snapshot are not seen, and every answer
// says so. Interface methods and fields have ids too (Authorizer.Allowed,
// Options.Snapshot), which code_definition answers with their type and the
// line marked; declarations of packages outside the snapshot that its code
// names are known by their ids alone ([SourceReferences]).
//
// code_file ([Catalog.File]) reads up to [MaxFileLines] lines or
// [MaxFileBytes] bytes of any file of the snapshot - Go, assembly, C and
// the go.mod of its modules - named as answers name it, by its last path
// elements, or as a stack trace prints it. It never reads the file system:
// a path outside the snapshot is [ErrNotInSnapshot].
//
// code_definition of a type lists its methods and the interfaces it
// implements; of a package, its files and exported declarations, paged.
//
// code_search answers request paths (/delay/3, GET /delay) and scope
// "routes" from the host's HTTP routes: registered through a [ServeMux]
// (net/http's ServeMux cannot list its patterns) or, for other routers,
// with [Catalog.AddRoutes].
//
// # Snapshot layout
//
// A snapshot file system holds manifest.json (the packages, modules and
// files, with their hashes) and index.txt (the declarations of every file,
// with lines, byte spans and search words, then the references) at its root, and the
// files under src/<importpath>/<file>.txt: the Go files of each package,
// its assembly and C files, and the go.mod of each module. It may also
// hold search.bin, the documentation and term index of its declarations
// as a catalog would build them, so that building reads no source file;
// a search file made for another manifest or index, or damaged, is not
// used (the Logger says why) and the catalog builds them at run time. mcpsnapshot
// stores every file but the manifest gzip-compressed (name.gz). The ".txt"
// suffix keeps the go command from treating the copies as packages (or a
// module) of the host module. The directory mcpsnapshot writes also holds
// a .mcpsnapshot marker, which //go:embed leaves out.
//
// # Tools
//
// The constants [SearchToolName], [DefinitionToolName],
// [ReferencesToolName] and [FileToolName], with their descriptions and
// input schemas, and [Permission] describe the four tools; [Tools] wraps
// them: each decodes the arguments into [SearchQuery], [DefinitionQuery],
// [ReferencesQuery] or [FileQuery], calls [Catalog.Search],
// [Catalog.Definition], [Catalog.References] or [Catalog.File], and
// returns the result as structured content (code_search, code_references
// and code_file also return a text listing). Errors wrap
// [ErrInvalidArgument], [ErrUnknownName], [ErrAmbiguousName] or
// [ErrNotInSnapshot].
//
// # Layers
//
// The catalog is built in layers, internal packages that each import only
// the layers below them: the snapshot's format and reading; the index
// (entries, names, postings); search (ranking, fusion with an Embedder)
// and navigation (references, relations, routes) side by side; and, in
// this package, the tools on top.
package codetools
