#!/usr/bin/env bash
# codetools at the size of a real service (run from the repo root by
# scripts/test): scripts/scale/codehost, a cluster gateway linking
# client-go (typed clientset, informers), grpc (health, reflection), the
# prometheus client and the AWS SDK v2 (s3, ec2), fetched through the Go
# proxy, is copied to a scratch directory, given a -deps snapshot and built
# with and without it. It prints entries, generate time and peak memory,
# binary growth, the first search from a cold start, search p95, the
# catalog's live heap (references loaded) and what Warm allocated, and
# fails when a budget of issue 42 is exceeded. The first searches' budgets,
# wall times on shared cores, are printed as MISSED when exceeded and do not
# fail the suite (SCALE_STRICT=1 makes them fail too). Building the host takes minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
WORK=$(mktemp -d "${TMPDIR:-/tmp}/codetools-scale.XXXXXX")
cleanup() {
  chmod -R u+w "$WORK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "codetools-scale: $*" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || fail "/usr/bin/time (GNU time) is needed for peak memory"

cp -r scripts/scale/codehost/. "$WORK/"
cd "$WORK"
export GOWORK=off GOFLAGS=-mod=mod
go mod edit -replace=github.com/embedmcp/mcp="$ROOT"
go build -o mcpsnapshot github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot
go build -o plain .
go vet . # a benchmark fixture, not a companion module: scripts/test and modules.sh leave it to this suite

# peak prints the maximum resident set (MB) of the /usr/bin/time -v log $1.
peak() { awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$1"; }
# secs prints the elapsed seconds of the /usr/bin/time -v log $1.
secs() {
  awk '/Elapsed \(wall clock\)/ {n=split($NF,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.1f", s}' "$1"
}

/usr/bin/time -v ./mcpsnapshot -deps -tags snapshot -o snapshot . >generate.out 2>generate.time ||
  { cat generate.out generate.time >&2; fail "mcpsnapshot -deps failed"; }
go build -tags snapshot -o withsnap .
plain_mb=$(du -m --apparent-size plain | cut -f1)
snap_mb=$(du -m --apparent-size withsnap | cut -f1)
growth=$(awk -v a="$plain_mb" -v b="$snap_mb" 'BEGIN {printf "%.0f", (b-a)*100/a}')

./plain -bench >plain.out 2>plain.log || { cat plain.log >&2; fail "the host without a snapshot failed"; }
./withsnap -bench >snap.out 2>snap.log || { cat snap.log >&2; fail "the host with its snapshot failed"; }
val() { awk -v k="$2" '$1 == k {print $2}' "$1"; }

missed=0 failed=0
# budget NAME VALUE LIMIT UNIT [soft]: VALUE ≤ LIMIT, or FAIL (MISSED when soft).
budget() {
  local ok
  ok=$(awk -v v="$2" -v l="$3" 'BEGIN {print (v+0 <= l+0) ? 1 : 0}')
  if [ "$ok" = 1 ]; then
    printf '  %-28s %10s %-3s (budget %s) ok\n' "$1" "$2" "$4" "$3"
  elif [ "${5:-}" = soft ] && [ "${SCALE_STRICT:-0}" != 1 ]; then
    printf '  %-28s %10s %-3s (budget %s) MISSED\n' "$1" "$2" "$4" "$3"
    missed=$((missed + 1))
  else
    printf '  %-28s %10s %-3s (budget %s) FAIL\n' "$1" "$2" "$4" "$3"
    failed=$((failed + 1))
  fi
}

echo "codetools-scale: $(grep -h 'declarations' generate.out || true)"
echo "codetools-scale: binary ${plain_mb} MB without the snapshot, ${snap_mb} MB with it"
for v in plain snap; do
  grep '^definition ' "$v.out" | sed "s/^/  $v: /"
  if grep -q '^references ERROR' "$v.out"; then fail "$v: $(grep '^references ERROR' "$v.out" | cut -c1-300)"; fi
  for name in 'k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch' 'net/http.(*Server).Serve'; do
    grep -qF "definition $name " "$v.out" || fail "$v: no definition of $name"
    if grep -F "definition $name " "$v.out" | grep -qE ' ERROR |linked=false'; then
      fail "$v: $name is linked, and answered otherwise"
    fi
  done
done
echo "  entries (binary alone)       $(val plain.out entries)"
echo "  entries (with snapshot)      $(val snap.out entries)"
echo "  generate time                $(secs generate.time) s"
echo "  first search CPU time        $(val snap.out first_search_cpu_ms) ms (binary alone $(val plain.out first_search_cpu_ms) ms)"
echo "  warm allocation              $(val snap.out warm_alloc_mb) MB (binary alone $(val plain.out warm_alloc_mb) MB)"
echo "  retainedBytes                $(val snap.out retained_mb) MB"
# The budgets of issue 42; the first searches are wall-clock times on
# shared cores, so they stay soft (printed MISSED, not failing).
[ "$(val snap.out entries)" -ge 150000 ] || fail "only $(val snap.out entries) entries: the host is smaller than the scale it stands for"
budget "generate peak"               "$(peak generate.time)" 1024 MB
budget "binary growth"               "$growth" 40 %
budget "first search (snapshot)"     "$(val snap.out first_search_ms)" 1000 ms soft
budget "first search (binary alone)" "$(val plain.out first_search_ms)" 1000 ms soft
budget "search p95"                  "$(val snap.out search_p95_ms)" 50 ms
budget "catalog live heap"           "$(val snap.out live_heap_mb)" 64 MB
echo "codetools-scale: $failed budgets exceeded, $missed missed (not failing yet)"
[ "$failed" = 0 ] || fail "$failed budgets exceeded"
