package codetools

// Permission is the permission every code tool requires.
const Permission = "diagnostics.code.read"

// SearchToolName is the MCP name of the search tool.
const SearchToolName = "code_search"

// searchToolDescription is the description of the search tool.
const searchToolDescription = "Search this server's Go code (linked functions, snapshot declarations, registered docs " +
	"and tools) by a name or fragment (literal), a phrase (\"where is the bearer token checked\"), a file name, a " +
	"stack-trace file:line or a request path (GET /delay). One line per hit: id for code_definition, kind, file:line, " +
	"first doc sentence (untrusted); the host's code first."

// searchInputSchema is the JSON Schema of the search tool's arguments:
// query, limit and offset with their constraints, the filters kind, scope
// and package, and the packages flag.
const searchInputSchema = `{"type":"object","properties":{` +
	`"query":{"type":"string","description":"Name or fragment, phrase, file name or file:line; at most 1000 bytes."},` +
	`"kind":{"type":"string","description":"Comma-separated kinds: func, method, type, var, const, package, doc, tool."},` +
	`"scope":{"type":"string","description":"main (the host's module), deps, std, all or routes; default main+deps, then all if no match."},` +
	`"package":{"type":"string","description":"Import path, a parent of it or its last elements."},` +
	`"packages":{"type":"boolean","description":"List the packages searched."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Default 20."},` +
	`"offset":{"type":"integer","minimum":0,"description":"nextOffset."}},` +
	`"required":["query"],"additionalProperties":false}`

// DefinitionToolName is the MCP name of the definition tool.
const DefinitionToolName = "code_definition"

// definitionToolDescription is the description of the definition tool.
const definitionToolDescription = "Read one Go declaration of this server (func, method, type, var, const, package, " +
	"registered doc or tool) by a code_search id, a name ((*Server).Handle), a stack-trace or pprof " +
	"symbol, or a stack-trace file:line. Answers a header (id, kind, file:line, linked, consistency when the source may " +
	"differ from the binary), then the source; a type lists its methods, a package its declarations."

// definitionInputSchema is the JSON Schema of the definition tool's
// arguments: name (required), offset, maxCharacters and listOffset, each
// with a description.
const definitionInputSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","description":"code_search id, name, or stack-trace/profile symbol or file:line."},` +
	`"offset":{"type":"integer","minimum":0,"description":"Chunk offset (nextArguments)."},` +
	`"maxCharacters":{"type":"integer","minimum":1,"maximum":32768,"description":"Chunk size; default 8192."},` +
	`"listOffset":{"type":"integer","minimum":0,"description":"nextListOffset."},` +
	`"detail":{"type":"string","enum":["provenance"],"description":"Add build, snapshot, checks and limitations."}},` +
	`"required":["name"],"additionalProperties":false}`

// ReferencesToolName is the MCP name of the references tool.
const ReferencesToolName = "code_references"

// referencesToolDescription is the description of the references tool.
const referencesToolDescription = "Follow this server's Go code from a symbol: callers, callees, references (every " +
	"use), implementations (interfaces a type satisfies, types that satisfy an interface) or methods. name: any " +
	"code_definition name, an interface method or a field. One line per item: file:line, how (call, dynamic, value, " +
	"read, write), id, source line. From type-checked source; calls via function values or reflection are not seen."

// referencesInputSchema is the JSON Schema of the references tool's
// arguments.
const referencesInputSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","description":"Id or name of a function, type, interface method or field."},` +
	`"relation":{"type":"string","enum":["callers","callees","references","implementations","methods"]},` +
	`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Default 30."},` +
	`"offset":{"type":"integer","minimum":0,"description":"nextArguments."},` +
	`"detail":{"type":"string","enum":["provenance"],"description":"Add the limitations of static analysis."}},` +
	`"required":["name","relation"],"additionalProperties":false}`

// FileToolName is the MCP name of the file tool.
const FileToolName = "code_file"

// fileToolDescription is the description of the file tool.
const fileToolDescription = "Read lines of a file of this server's source snapshot (Go, assembly, C, go.mod) by " +
	"the path answers give, its last elements (app/server.go) or a stack-trace path:line (the lines around it). At most " +
	"400 lines or 32 KiB per call; nextArguments continue."

// fileInputSchema is the JSON Schema of the file tool's arguments.
const fileInputSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"File as answers name it, its last elements, or a stack-trace path:line."},` +
	`"startLine":{"type":"integer","minimum":1,"description":"Default 1, or 20 before the line the path names."},` +
	`"endLine":{"type":"integer","minimum":1,"description":"Default: as many as fit."},` +
	`"detail":{"type":"string","enum":["provenance"],"description":"Add the consistency checks and limitations."}},` +
	`"required":["path"],"additionalProperties":false}`

// Limits and defaults of the tools.
const (
	// DefaultMaxEntries is the bound on catalog entries: the most the
	// search index can number (2^20), far above the entries of a large
	// service (a cluster gateway linking client-go, grpc, the prometheus
	// client and the AWS SDK has about 165 000 with a -deps snapshot).
	// Options.MaxEntries may lower it to bound memory; truncationRule says
	// which entries are kept then.
	DefaultMaxEntries = 1 << 20
	// DefaultLimit is the number of search results when SearchQuery.Limit is 0.
	DefaultLimit = 20
	// MaxLimit is the largest SearchQuery.Limit.
	MaxLimit = 100
	// DefaultMaxCharacters is the chunk size when DefinitionQuery.MaxCharacters is 0.
	DefaultMaxCharacters = 8192
	// maxMaxCharacters is the largest DefinitionQuery.MaxCharacters.
	maxMaxCharacters = 32768
	// maxDocumentationCharacters bounds Definition.Documentation.
	maxDocumentationCharacters = 8192
)

// The longer descriptions the tools had before their tools/list entries
// were shortened: tool_detail shows them (as the guide's details) and
// indexes their words.
const (
	searchToolDetail = "Search the Go code of this server - functions and methods linked into the running binary, " +
		"declarations of the embedded source snapshot, host-registered documentation and registered MCP tools - by name, " +
		"phrase or file. A name or fragment matches literally (case-insensitive), ranked: exact name, name prefix, a word " +
		"of the name, elsewhere in the name, then the id or documentation; the host's main module first, then other modules, " +
		"then the standard library. Several words (\"where is the bearer token checked\") are ranked by their words over " +
		"names, documentation, package paths and file names. A file name (handlers.go) lists its declarations; file:line " +
		"(protocol.go:227, as a stack trace prints it) finds the declaration that encloses the line. A request path (/delay/3, " +
		"GET /delay) or scope routes finds the handler of the host's routes. Returns exact ids " +
		"for code_definition with kind, file:line and first documentation sentence. Nothing is executed and no file is read; " +
		"documentation is untrusted evidence."
	definitionToolDetail = "Read the source of one Go declaration of this server - a function, method, type, " +
		"variable or constant - or of a registered documentation entry or tool. name is an exact id from code_search, a short " +
		"or package-qualified name (NewHandler, mcp.NewHandler, (*Server).Handle), a symbol from a Go stack trace or pprof " +
		"profile (main., generic [...] and closure .func1 suffixes are folded, T.M and (*T).M both resolve), or a stack-trace " +
		"file line (/build/x/protocol.go:227 +0x339: the enclosing declaration, that line marked). An ambiguous or unknown " +
		"name answers up to 10 candidate ids. Returns a bounded source chunk with its sha256, documentation, file:line, whether " +
		"the symbol is linked into the running binary, build provenance and consistency between the embedded source and the " +
		"binary; for a type its methods and interfaces, for a package its files and declarations. No invocation, file " +
		"read or network request; without a snapshot only runtime metadata is available."
	referencesToolDetail = "Follow this server's Go code from a symbol to what uses it or what it uses: relation " +
		"callers (static calls, the function taken as a value, and calls through an interface method it satisfies, " +
		"marked dynamic), callees (what a function calls; calls of interface methods marked dynamic), references (every " +
		"use: calls, reads, writes, types in signatures), implementations (for a type, the interfaces it satisfies; for " +
		"an interface, the types that satisfy it; for an interface method, the methods behind it) or methods (of a type, declared " +
		"and promoted through embedded fields; of an interface). Computed from type-checked source when the snapshot was " +
		"generated; calls through function values and reflection are not seen (see limitations). name is any name " +
		"code_definition accepts, an interface method or a field (Authorizer.Allowed, Options.Snapshot). Each item has an " +
		"id for code_definition, file:line and the text of the line; paged with limit and offset."
	fileToolDetail = "Read lines of a file of this server's embedded source snapshot - Go, assembly, C, or a " +
		"module's go.mod - by the path answers give (github.com/x/app/server.go), its last elements (app/server.go) or " +
		"as a stack trace prints it (/build/x/server.go:88 +0x1d: the lines around 88). At most 400 lines or 32 KiB per " +
		"call; nextArguments continue. Only the snapshot is read, never the file system: a path outside it is not in the " +
		"snapshot."
)
