#!/usr/bin/env bash
# The otelmcp module (OpenTelemetry spans and metrics), run from the repo
# root by scripts/test: vet, staticcheck, its tests under the race detector
# (in-memory span exporter, manual metric reader), then its costs on the
# echo call, measured in one run:
#   - with no-op providers against no Middleware, in alternating blocks (the
#     10th percentile of each one's time per call), over the HTTP handler
#     and through Server.Handle; target <= 5 % over the HTTP handler; beside
#     it, the otel globals a program never set, and a Middleware that does
#     nothing (the Server's hook alone);
#   - with the SDK, every span exported to an in-memory exporter, measured
#     the same way.
# Allocations are counted, not timed: the no-op path adds none (the
# Server's Message for its Middleware is made with the request's stream,
# in the same allocation) and fails the
# suite if it adds one. Times are printed and judged against the
# target, not failed on: other work on a shared machine only adds to them.
set -euo pipefail
cd "$(dirname "$0")/../../otelmcp"
go vet ./...
if command -v staticcheck >/dev/null 2>&1; then staticcheck ./...; fi
go test -race -count=1 ./...
over=$(go test -count=1 -run '^$' -bench 'Overhead' -benchtime 500x -count 5 . 2>&1) || { echo "$over"; exit 1; }
cost=$(go test -count=1 -run '^$' -bench '^BenchmarkEcho$/^(bare|hook|noop|globals|sdk)$' -benchmem -benchtime 2000x . 2>&1) || { echo "$cost"; exit 1; }
printf '%s\n%s\n' "$over" "$cost" | grep '^Benchmark' | awk '
function median(a, n,   i, j, t) {
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
  name = $1; sub(/-[0-9]+$/, "", name)
  for (j = 2; j < NF; j++) {
    u = $(j+1); v = $j + 0
    if (name ~ /Overhead/ && (u == "overhead-%" || u == "bare-ns/call" || u == "with-ns/call")) {
      k = name SUBSEP u; n[k]++; vals[k, n[k]] = v
    }
    if (name ~ /^BenchmarkEcho\// && (u == "allocs/op" || u == "B/op")) {
      k = name SUBSEP u
      if (!(k in worst) || v > worst[k]) worst[k] = v
    }
  }
}
function med(name, u,   k, i, a) { k = name SUBSEP u; for (i = 1; i <= n[k]; i++) a[i] = vals[k, i]; return median(a, n[k]) }
END {
  fail = 0
  h = "BenchmarkOverhead/http/"; p = "BenchmarkOverhead/handle/"
  oh = med(h "noop", "overhead-%")
  printf "no-op providers, echo over the HTTP handler (medians of 5 paired runs): %.0f ns without Middleware, %.0f ns with otelmcp: %+.1f %% (the Server'"'"'s Middleware hook alone: %+.1f %%); target <= 5 %%: %s\n",
    med(h "noop", "bare-ns/call"), med(h "noop", "with-ns/call"), oh, med(h "hook", "overhead-%"), (oh <= 5 ? "met" : "NOT met")
  printf "no-op providers, echo through Server.Handle: %.0f ns without, %.0f ns with: %+.1f %% (the hook alone: %+.1f %%)\n",
    med(p "noop", "bare-ns/call"), med(p "noop", "with-ns/call"), med(p "noop", "overhead-%"), med(p "hook", "overhead-%")
  printf "otel globals never set (Middleware(nil) in a program without OpenTelemetry): %+.1f %% over the HTTP handler, %+.1f %% through Server.Handle\n",
    med(h "globals", "overhead-%"), med(p "globals", "overhead-%")
  printf "SDK, every span to an in-memory exporter: over the HTTP handler %.1f us against %.1f us, +%.1f us per call (%+.0f %%); through Server.Handle %.1f us against %.1f us (%+.0f %%)\n",
    med(h "sdk", "with-ns/call") / 1000, med(h "sdk", "bare-ns/call") / 1000, (med(h "sdk", "with-ns/call") - med(h "sdk", "bare-ns/call")) / 1000, med(h "sdk", "overhead-%"),
    med(p "sdk", "with-ns/call") / 1000, med(p "sdk", "bare-ns/call") / 1000, med(p "sdk", "overhead-%")
  b = "BenchmarkEcho/bare"; z = "BenchmarkEcho/noop"; s = "BenchmarkEcho/sdk"
  g = "BenchmarkEcho/globals"; k = "BenchmarkEcho/hook"
  printf "allocations per echo call over HTTP: %d without Middleware, %d with the Server'"'"'s Middleware hook alone (a Message of its own), %d with no-op providers and %d with the unset globals (none more than the hook allowed), %d with the SDK (%.1f KB more)\n",
    worst[b, "allocs/op"], worst[k, "allocs/op"], worst[z, "allocs/op"], worst[g, "allocs/op"], worst[s, "allocs/op"], (worst[s, "B/op"] - worst[b, "B/op"]) / 1000
  if (worst[z, "allocs/op"] > worst[k, "allocs/op"] || worst[g, "allocs/op"] > worst[k, "allocs/op"]) { print "FAIL: the no-op path allocates"; fail = 1 }
  exit fail
}'
