// Package runtimetools lets an agent see inside the running Go process
// that hosts it, through seven MCP tools:
//
//   - runtime_goroutines: the live goroutines grouped by identical stack,
//     with count, state and longest wait, filtered by function or state.
//   - runtime_metrics: runtime/metrics samples (heap, GC, goroutines,
//     scheduler latency; histograms as p50/p90/p99) and process figures
//     (resident memory, open file descriptors) where the OS offers them.
//   - runtime_profile: a CPU, heap, allocs, mutex, block or goroutine
//     profile, answered as its top functions with their hottest lines
//     (the runtime's, sync's and the standard library's frames counted to
//     the host code that called them; a mutex profile names the code that
//     held the lock, at its unlock), and the raw pprof bytes on request;
//     with a background [Profiler], CPU profiles of past windows.
//   - runtime_logs: recent log records from a [LogRing] the host
//     installs around its own slog.Handler, with secrets redacted.
//   - runtime_build: the build: Go version, main module, VCS revision,
//     build settings and dependency versions.
//   - runtime_vars: the process's expvar variables.
//   - runtime_health: the host's health checks ([Health]), run
//     concurrently, each under a timeout.
//
// # Answers
//
// Each answer's text is what a model reads: one line per item, a function
// as its id and file:line, the file named by its package's import path
// (github.com/x/app/server.go, net/http/server.go), never by the build
// machine's absolute path. The structured content holds every field.
// runtime_goroutines and runtime_metrics end with a since token: passed
// back, the next answer gives each group's and metric's change, and flags
// a goroutine group that grew at every look as a probable leak, with where
// its goroutines were created (watch samples within one call).
// runtime_logs groups identical records (level, message, source line)
// with their count and first and last time; a [LogRing] keeps warnings
// and errors in a ring of their own, which info records cannot evict.
//
// [Register] adds them to a ToolSet; [Tools] returns them for any other
// registry. runtime_logs, runtime_health and runtime_vars exist only when
// the host gives a LogRing, a Health or its variables in [Options].
//
// # Identifiers
//
// Every function the tools name (a goroutine's frames, a profile's top
// functions, the source of a log record) has an id: the function's name as
// the Go runtime reports it, such as main.worker.func1 or
// net/http.(*conn).serve. The code_definition tool of package codetools
// accepts these ids as they are (closures and inlined functions resolve to
// their enclosing declaration), so an agent can go from a stuck goroutine
// or a hot function straight to its source.
//
// # Permissions
//
// runtime_profile needs [PermissionProfile] ("diagnostics.runtime.profile"):
// it costs CPU time while it runs. runtime_logs needs [PermissionLogs]
// ("diagnostics.logs.read"): logs can hold personal data. Every other tool
// needs [PermissionRead] ("diagnostics.runtime.read").
//
// # What is never shown
//
// The process environment is never read. Attributes of log records whose
// keys look secret (see [DefaultSecretKeys] for the words and how they
// match) are redacted before they are stored, in groups (a group opened
// with Logger.WithGroup is treated like a slog.Group of that name: under a
// secret name, everything in it is one redacted key) and in the maps
// and structs of logged values at any depth (the Authorization, Cookie and
// Set-Cookie members of a logged http.Header); the same rule redacts
// expvar variables named like secrets whole and the members of the
// others' values at any depth (JSON inside string variables included),
// pprof labels (in runtime_goroutines and in the raw profiles of
// runtime_profile) and the value after a secret-looking flag in the
// command line, whatever its first character ("-api-key -x"), after "--"
// too ("-- --client-secret x"; both "--" and x in "-token -- x"). Every -X
// value of -ldflags is redacted but those of version, commit, revision,
// date, time, build, branch, tag and release variables.
//
// Inside every text the tools show from the host (log messages and string
// values, errors, health check errors and panics, expvar strings, the
// command line, labels, build settings) credentials are redacted by
// pattern: the password of a URL ("postgres://app:hunter2@db"), the
// credential after Basic, Bearer, Token, Digest or Negotiate, JSON Web
// Tokens, the value of "name=value", "name: value" or "\"name\":\"value\""
// whose name is secret ("password=x", "?access_token=x&", "api_key=x"),
// also with the value on the lines below ("password:\n  x" in YAML, the
// whole block indented under the name; "password=\nx" in INI and .env
// dumps: the patterns run before any whitespace is collapsed), and
// token shapes: runs of 18 or more letters and digits that switch between
// the two at least four times, of 32 or more with upper case, lower case
// and digits, and runs starting with a known credential prefix (AKIA,
// ghp_, github_pat_, glpat-, xoxb-, sk_live_, sk-, AIza, npm_...). Where
// the patterns cannot be sure, the value is redacted rather than shown: a
// hex digest or a UUID in a log message is redacted too. Text inside an
// encoding is decoded before it is matched: percent-encoding
// ("password%3Dx", a query-escaped DSN) and JSON string escapes (JSON
// inside a JSON string, "{\"token\":\"x\"}"), up to four layers (text
// encoded deeper is redacted whole); when the decoded text holds a
// credential, the decoded text is shown, redacted.
// The command line (expvar "cmdline") and runtime.MemStats (expvar
// "memstats") are shown only when asked for by name.
//
// The package does not import expvar, whose import registers /debug/vars
// (the command line unredacted, memstats) on http.DefaultServeMux: the
// host that uses expvar hands its variables over in Options.Vars.
//
// # Cost
//
// Nothing runs until a tool is called: registration allocates the tools'
// descriptions and nothing else, and no goroutine is started. The
// [LogRing] is the one part that works on every record; it adds no
// allocation to the handler it wraps, for attributes of the basic kinds
// (strings, numbers, booleans, durations, times, errors), and about half a
// microsecond for a record of eight attributes (BenchmarkLogRing, against
// slog's JSON handler in the same run).
//
// runtime_goroutines takes a goroutine profile, which stops the process
// for a fraction of a millisecond, and, for each goroutine's state and
// wait time, a goroutine dump, which stops it for about a microsecond per
// frame of every goroutine (0.5 s for 100 000 goroutines of three frames,
// 2 s for 100 000 of fifteen, on a 2-core machine). The dump is bounded:
// it is taken only when that pause is estimated at 50 ms or less and the
// process has at most 10 000 goroutines; above, only when the caller asks
// with states: true and holds [PermissionProfile] (to others the answer
// says why the states are missing and what to do instead). At
// 100 000 goroutines of three frames an answer takes about 0.6 s and
// 58 MB with the dump, 0.2 s and 29 MB without; of fifteen frames, 0.5 s
// and 86 MB without, nearly all of it allocated by runtime/pprof's own
// goroutine profile (a string key per goroutine), of which some 27 MB is
// live at once (BenchmarkGoroutines100k).
package runtimetools
