// Package enquiry provides two ordinary MCP tools that answer questions
// about the other tools of a registry in one call:
//
//   - tool_detail: "how do I call X / which tool does Y". Given a tool name,
//     an intent phrase or an error code, it answers the one tool with its
//     guidance (when to use it, when not, details, examples) and its input
//     schema, or ranked candidates when the phrase fits several tools.
//   - tool_catalogue: the whole inventory the caller may use, grouped by
//     category, bounded and paged.
//
// Both read whatever the registry holds, with the guidance of each tool's
// mcp.ToolInfo.Guide; they work for any host. Register adds them to a
// ToolSet in one call.
//
// # Matching
//
// A tool argument is first looked up as a name: verbatim, then normalised
// (lower case, white space to "_", the configured product prefix followed by
// "_", "-" or "." removed, on both sides), so that "edit file" finds
// "ek9_edit_file" with Prefix "ek9"; a normalised hit is reported in note.
// Otherwise the argument is an intent phrase ranked with BM25F over seven
// fields of every tool (name tokens, title, description, whenToUse, details,
// examples, and the names and descriptions of the input schema's properties)
// with per-field weights and length normalisation; the ranking engine is the
// one code_search uses (internal/bm25f). There is no query syntax: the
// phrase is split into terms by the same tokeniser as the tools (see below),
// each distinct term counts once, and the product prefix itself is ignored
// (every tool belongs to the product).
//
// The answer's match is
//
//   - "exact": a registered name, before or after normalisation, or the one
//     tool that lists the given errorCode;
//   - "single": the one tool whose name has two words or more, all of them
//     in the phrase (when several do, the one whose name words include all
//     the others', e.g. edit_file over edit), or the top-ranked tool when it
//     is a clear winner: it scores at least 1.5 times the runner-up (or is
//     the only tool that scores), more than one weak term stands behind it
//     (a term found in its name, title, description or whenToUse, or two
//     terms anywhere), and it holds at least half of the phrase's terms. A
//     term found only in details, examples or parameter names is weak: it
//     alone never makes a "single" answer, and a one-word tool name in a
//     phrase ("goroutine count" and a tool named count) is no evidence;
//   - "ambiguous": up to five ranked candidates, without schemas;
//   - "none": status "not-found" with a nextStep.
//
// Scores are rounded to three decimals before they are compared, and ties
// are broken by name, so that the same registry and query always give the
// same answer.
//
// # Tokeniser
//
// Text is split into runs of letters and digits; snake_case, kebab-case,
// dotted, camelCase and PascalCase identifiers are split into their words;
// letters and digits that touch stay together ("ek9", "E11066"). Words are
// lower-cased, a short list of English stop words ("a", "the", "with",
// "where", ...) is dropped, inflections are removed with the inflectional
// steps of Porter's stemmer ("parameters" → parameter, "checked" and
// "checking" → check), and common abbreviations of code meet the words they
// abbreviate ("max" and "maximum", "req" and "request").
//
// # Authorization
//
// Only tools the caller may use are ever shown: the Server's Authorizer,
// which the Server puts in the context of every call
// (mcp.AuthorizerFromContext), is asked about each tool's permission for
// the calling request's Caller; called outside a Server, the tools show
// nothing. A tool the caller may not use
// is absent from candidates, error-code matches and the catalogue, and its
// exact name answers exactly like an unknown name. Ranking statistics
// (document frequencies, average field lengths) are computed over the
// permitted tools only, so that scores reveal nothing about the others.
//
// The enquiry tools' own permission is Options.Permission, "" by default,
// which mcp.GrantsAuthorizer treats as "no grant needed": they only ever
// reveal what the caller may use anyway.
//
// # Cost
//
// The index is built once per registry change, on the first call after it
// (the registry's Watch tells), not per call. A call costs the
// Authorizer once per distinct permission in the registry, plus the postings
// of the query's terms. An answer or an error repeats at most 200 bytes of
// an argument.
package enquiry
