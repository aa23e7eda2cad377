#!/usr/bin/env bash
# runtimetools' costs (run from the repo root by scripts/test), measured in
# one run without the race detector:
#   - the ring-buffer log handler against the bare JSON handler it wraps, in
#     the same run: what it adds per record (target: at most 1 µs and no
#     allocation);
#   - runtime_goroutines over 100 000 goroutines (target: at most 1 s and
#     64 MB per answer).
# Allocations and bytes are counted, not timed, and fail the suite when
# over target; times are printed with the process CPU time next to them,
# since wall times on a shared machine only bound them from above.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(go test -count=1 -run '^TestLogRingAddsNoAllocations$' -bench 'LogRing|Goroutines100k' -benchmem \
  -benchtime 3x ./runtimetools 2>&1 | sed -n '1,200p') || { echo "$out"; exit 1; }
# -benchtime 3x is too few for the log handler; run it again for longer.
logs=$(go test -count=1 -run '^$' -bench 'LogRing' -benchmem -benchtime 200000x ./runtimetools 2>&1) || { echo "$logs"; exit 1; }
echo "$logs" | grep '^Benchmark'
echo "$out" | grep '^BenchmarkGoroutines100k'
awk -v logs="$logs" -v gor="$(echo "$out" | grep '^BenchmarkGoroutines100k')" 'BEGIN {
  n = split(logs, lines, "\n")
  for (i = 1; i <= n; i++) {
    f = split(lines[i], w, /[ \t]+/)
    if (w[1] !~ /^BenchmarkLogRing\//) continue
    name = w[1]; sub(/^BenchmarkLogRing\//, "", name); sub(/-[0-9]+$/, "", name)
    for (j = 2; j < f; j++) {
      if (w[j+1] == "ns/op") wall[name] = w[j]
      if (w[j+1] == "cpu-ns/op") cpu[name] = w[j]
      if (w[j+1] == "allocs/op") allocs[name] = w[j]
    }
  }
  fail = 0
  printf "\nlog handler: %.0f ns/op wall, %.0f ns/op CPU bare; %.0f wall, %.0f CPU wrapped: the ring adds %.0f ns (CPU %.0f ns); target <= 1000 ns\n",
    wall["json"], cpu["json"], wall["json+ring"], cpu["json+ring"], wall["json+ring"] - wall["json"], cpu["json+ring"] - cpu["json"]
  printf "log handler: %d allocs/op bare, %d wrapped; target: no more\n", allocs["json"], allocs["json+ring"]
  if (allocs["json+ring"] > allocs["json"]) { print "FAIL: the ring allocates"; fail = 1 }
  f = split(gor, w, /[ \t]+/)
  for (j = 2; j < f; j++) {
    if (w[j+1] == "ns/op") gwall = w[j]
    if (w[j+1] == "cpu-ns/op") gcpu = w[j]
    if (w[j+1] == "B/op") gbytes = w[j]
  }
  printf "runtime_goroutines, 100 000 goroutines: %.2f s wall, %.2f s CPU, %.1f MB per answer; targets <= 1 s, <= 64 MB\n", gwall / 1e9, gcpu / 1e9, gbytes / 1e6
  if (gbytes > 64e6) { print "FAIL: runtime_goroutines uses more than 64 MB"; fail = 1 }
  exit fail
}'
