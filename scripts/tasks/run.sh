#!/usr/bin/env bash
# Long-running tools across replicas, shown with real components: a
# redis-server and three replicas of redisstore/examples/replica behind
# nginx (round-robin, no stickiness), all on loopback, driven by
# redisstore/internal/taskdriver:
#
#   cross   created on replica A, polled on B, cancelled on C; input asked
#           on A, answered on B, the result read on C
#   listen  a subscriptions/listen stream on B hears a tool-list change made
#           on C and the completion of a task running on A
#   bulk    TASKS tasks (10 000 by default) created and polled through nginx
#           by two callers: none lost, none visible to the other caller
#   kill    kill -9 of the replica running a task: failed within the lease
#   down    Redis stopped: tools that must run as tasks fail clearly,
#           optional ones are answered at once, the rest is served
#
# and, with redis-servers of their own behind a Go proxy
# (redisstore TestFaultScenarios), Redis stopped, killed and restarted,
# restarted empty, evicting (allkeys-lru), full (noeviction), slowed (200 ms
# round trip), its pub/sub connections killed: a table of what the client
# saw and what was lost.
#
#   bash scripts/tasks/run.sh
#
# It first runs the redisstore module's tests against the same Redis.
# redis-server and nginx come from Debian (installed when missing) and run
# from a temporary directory with their own configuration, without
# persistence; nothing is left behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
TASKS=${TASKS:-10000}
LEASE=${LEASE:-3s}
BASE_PORT=${BASE_PORT:-18280}   # nginx on BASE_PORT, replicas on +1..3, Redis on +9

. scripts/lib/replicas.sh
debian_install redis-server redis-server
debian_install nginx nginx-light nginx

WORK=$(mktemp -d)
PIDS=()
REDIS_PID=
cleanup() {
  local rc=$?
  if [ -f "$WORK/nginx.pid" ]; then kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true; fi
  for p in "${PIDS[@]}" $REDIS_PID; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do # disowned: waited for here
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  wait 2>/dev/null || true
  if [ $rc -ne 0 ]; then
    echo "--- replica logs (tail) ---"; tail -n 5 "$WORK"/replica-*.log 2>/dev/null || true
    echo "--- nginx error log ---"; tail -n 20 "$WORK/error.log" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT INT TERM

REDIS_PORT=$((BASE_PORT + 9))
redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no --dir "$WORK" \
  --logfile "$WORK/redis.log" --daemonize no &
REDIS_PID=$!
for _ in $(seq 100); do
  if (exec 3<>/dev/tcp/127.0.0.1/$REDIS_PORT) 2>/dev/null; then break; fi
  sleep 0.05
done
export REDIS_ADDR=127.0.0.1:$REDIS_PORT

echo "redisstore module: vet and tests (Redis at $REDIS_ADDR)"
(cd redisstore && go vet ./... && REDISSTORE_REQUIRE=1 go test -race -count=1 ./...)
echo "redisstore: fault scenarios (redis-servers of their own: stopped, killed, emptied, evicting, full, slowed, pub/sub cut)"
(cd redisstore && REDISSTORE_REQUIRE=1 REDISSTORE_SCENARIOS=1 go test -count=1 -run 'TestFaultScenarios$' -v . | grep -v '^=== RUN')
if [ -x "$ROOT/.cache/bin/staticcheck" ]; then (cd redisstore && "$ROOT/.cache/bin/staticcheck" ./...); fi

echo "building the replica and the driver"
(cd redisstore && go build -o "$WORK/replica" ./examples/replica && go build -o "$WORK/driver" ./internal/taskdriver)

UPSTREAMS="" URLS="" NAMES=(a b c)
for i in 1 2 3; do
  port=$((BASE_PORT + i))
  name=${NAMES[i - 1]}
  "$WORK/replica" -addr "127.0.0.1:$port" -redis "$REDIS_ADDR" -name "$name" -lease "$LEASE" \
    -prefix "run$$:" >"$WORK/replica-$i.log" 2>&1 &
  PIDS+=($!)
  disown $! # the kill scenario kills one with SIGKILL: no job report
  UPSTREAMS+="    server 127.0.0.1:$port;"$'\n'
  URLS+="${URLS:+,}http://127.0.0.1:$port/mcp"
done

start_nginx "$WORK" "$BASE_PORT" "$UPSTREAMS"

for port in $((BASE_PORT + 1)) $((BASE_PORT + 2)) $((BASE_PORT + 3)) $BASE_PORT; do
  for _ in $(seq 100); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/mcp"; then break; fi
    sleep 0.05
  done
done

PIDLIST=$(IFS=,; echo "${PIDS[*]}")
"$WORK/driver" -nginx "http://127.0.0.1:$BASE_PORT/mcp" -replicas "$URLS" -pids "$PIDLIST" \
  -tasks "$TASKS" -lease "$LEASE" -run cross,listen,bulk,kill

# Every replica took part in the bulk run, and nginx saw no upstream failure
# before the kill.
for i in 2 3; do
  port=$((BASE_PORT + i))
  n=$(grep -c "^127.0.0.1:$port " "$WORK/access.log" || true)
  if [ "$n" -eq 0 ]; then echo "replica $i answered nothing through nginx"; exit 1; fi
done

kill "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null || true; REDIS_PID=
"$WORK/driver" -nginx "http://127.0.0.1:$BASE_PORT/mcp" -run down
echo "tasks: ok"
