#!/usr/bin/env bash
# Horizontal scale, shown: three replicas of examples/hello behind nginx
# (round-robin, no stickiness) on loopback, driven by the go-sdk and mcp-go
# clients and a burst of mixed raw requests (scripts/scale/driver). It fails
# unless every request gets its answer and every replica answered some.
#
#   bash scripts/scale/run.sh            # BURST=3000 CALLS=50 by default
#
# nginx comes from Debian (installed when missing) and runs from a temp
# directory with its own config (-p/-c), not as the system service.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BURST=${BURST:-3000}
CALLS=${CALLS:-50}
BASE_PORT=${BASE_PORT:-18180}   # replicas on BASE_PORT+1..3, nginx on BASE_PORT

. scripts/lib/replicas.sh
debian_install nginx nginx-light nginx

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  local rc=$?
  if [ -f "$WORK/nginx.pid" ]; then kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true; fi
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ $rc -ne 0 ]; then
    echo "--- replica logs (tail) ---"; tail -n 5 "$WORK"/hello-*.log 2>/dev/null || true
    echo "--- nginx error log ---"; tail -n 20 "$WORK/error.log" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT INT TERM

echo "building examples/hello and the driver"
go build -o "$WORK/hello" ./examples/hello
(cd scripts/scale/driver && go build -o "$WORK/driver" .)

UPSTREAMS=""
for i in 1 2 3; do
  port=$((BASE_PORT + i))
  "$WORK/hello" -addr "127.0.0.1:$port" >"$WORK/hello-$i.log" 2>&1 &
  PIDS+=($!)
  UPSTREAMS+="    server 127.0.0.1:$port;"$'\n'
done

start_nginx "$WORK" "$BASE_PORT" "$UPSTREAMS"

# Wait for the replicas and nginx.
for port in $((BASE_PORT + 1)) $((BASE_PORT + 2)) $((BASE_PORT + 3)) $BASE_PORT; do
  for _ in $(seq 1 100); do
    if curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
      -d '{"jsonrpc":"2.0","id":0,"method":"ping"}' "http://127.0.0.1:$port/mcp"; then
      break
    fi
    sleep 0.1
  done
done
: >"$WORK/access.log"

"$WORK/driver" -url "http://127.0.0.1:$BASE_PORT/mcp" -calls "$CALLS" -burst "$BURST"

# Every replica answered some requests, and nginx saw no upstream failure.
total=$(wc -l <"$WORK/access.log")
echo "nginx proxied $total requests:"
for i in 1 2 3; do
  port=$((BASE_PORT + i))
  n=$(grep -c "^127.0.0.1:$port " "$WORK/access.log" || true)
  echo "  replica $i (127.0.0.1:$port): $n"
  if [ "$n" -eq 0 ]; then echo "replica $i answered nothing: not round-robin"; exit 1; fi
done
bad=$(awk '$2 >= 500 || $1 ~ /,/' "$WORK/access.log" | wc -l)
if [ "$bad" -ne 0 ]; then echo "$bad requests failed over or got 5xx"; exit 1; fi
echo "scale: ok"
