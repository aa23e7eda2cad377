// Package console is an operator console for a service that hosts MCP
// tools: an http.Handler the host mounts on its own mux, behind the
// Authenticator of its MCP endpoint, with four pages.
//
//   - Tools: every registered tool with its title, description,
//     permission, annotations, task support, administrator's summary and
//     example, and its input schema as a table (and as JSON); a "who may
//     call" preview shows which tools a principal with the grants typed
//     may use, as the Authorizer answers.
//   - Calls: the recent requests (time, principal, method, tool, protocol
//     revision, outcome, duration), filterable; requests and latency
//     (p50, p99) per minute over the last hour, and per tool its calls,
//     error rate, p50 and p99 with a sparkline.
//   - Tasks: the tasks of the task store with status, principal, tool,
//     replica, age and last message; an operator cancels one.
//   - Process: goroutines, heap, GC pauses and request rate over the last
//     hour, and pprof profiles to download.
//
// [Console.Record] is the Middleware that feeds the Calls page: put it in
// mcp.Options.Middleware of the Server whose Registry the console shows.
// It sees every request the Server dispatches, not those refused before
// (by the Authenticator, or as malformed JSON-RPC), which the Handler's
// Logger reports.
//
//	con, err := console.New(&console.Options{Registry: tools, Authenticator: auth,
//		Authorizer: mcp.GrantsAuthorizer{}, Tasks: store})
//	server := mcp.NewServer(tools, mcp.GrantsAuthorizer{}, &mcp.Options{
//		Middleware: []mcp.Middleware{con.Record}, Tasks: mcp.TaskOptions{Store: store}})
//	mux.Handle("/console/", http.StripPrefix("/console", con))
//
// # Access
//
// Browsers sign in with HTTP Basic credentials: any user name, and the
// token the MCP endpoint accepts as the password. The console hands it to
// the Authenticator as a bearer token and, once accepted, sets a session
// cookie (HttpOnly, SameSite=Strict, scoped to the console's path) that
// carries the token sealed with AES-GCM, so that every request is
// authenticated afresh and a revoked token stops working at once. Scripts
// send their bearer token as to the MCP endpoint.
//
// Reading needs [PermissionRead] ("diagnostics.console.read"); cancelling a
// task needs [PermissionWrite] ("diagnostics.console.write"), a CSRF token
// bound to the caller and a same-origin request; profiles need
// [PermissionProfile] ("diagnostics.runtime.profile"), and a CPU profile,
// which is work, is started only by the Process page's form: a
// same-origin POST with the CSRF token (a GET is refused). Other callers
// get 403, and see no button they cannot use. A request a browser says
// another site's page made (Sec-Fetch-Site other than same-origin or
// none) is refused with 403 before it is authenticated, pages included: a
// link, an image or a form on another site reaches nothing; open the
// console's address directly.
//
// # What is never shown
//
// Recording keeps no argument, request id or _meta, and no tool name a
// client made up (only registered tools the caller may use are named);
// the Tasks page shows no task's arguments, result or input. Tokens
// appear nowhere, not in the cookie either. Profiles have their pprof
// labels removed.
//
// # Built to embed
//
// Pages are server-rendered with html/template, charts are inline SVG, and
// there is no external script, style, font or image: every answer carries
// a Content-Security-Policy that allows only the page's own style and
// script, by a fresh nonce. The script only refreshes the page (its main
// part, every 1 to 10 seconds while a box is ticked); without it, every
// page and form works. Links are relative, so the console works under any
// path prefix. Bad input is refused: unknown paths with 404, bad query or
// form values with 400 and the reason.
//
// # Cost
//
// Record takes the time twice and a mutex once, and allocates nothing once
// a tool has statistics (BenchmarkRecord, TestRecordAllocatesNothing):
// about 0.1 µs. It keeps the last Options.Calls requests (10 000 by
// default, some 80 bytes each) and, per minute of the last hour and per
// tool per five minutes, counts and a latency histogram of half-octave
// buckets (percentiles are exact to about ±20 %). A page over 1 000 tools
// and 10 000 recorded calls takes some 5 to 12 ms of CPU time, 20 ms when
// it lists 1 000 calls (BenchmarkPages). A goroutine samples the process every
// Options.SampleInterval until Close.
//
// # Tasks
//
// A tasks.Store cannot list its tasks: the console follows the store's
// Watch from New on, and shows the 2 000 tasks most recently created or
// changed, as far as the store's change feed reaches (tasks.MemoryStore's
// does; a shared store's reports every replica's changes). Cancelling
// does what tasks/cancel does: the task is marked cancelled in the store,
// and the replica running it cancels the tool's context when it learns of
// the change.
package console
