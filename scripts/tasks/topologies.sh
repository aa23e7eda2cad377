#!/usr/bin/env bash
# Tasks beyond one Redis: starts, from Debian's redis-server, a Redis
# Cluster of 3 primaries with one replica each and a primary + replica
# watched by 3 Sentinels, all on loopback ports from BASE_PORT, and runs
# through nginx in front of 3 replica processes of
# redisstore/examples/replica (round-robin, no stickiness) on the cluster
# and on the Sentinel primary: created on A, polled on B, cancelled on C;
# input asked on A, answered on B; a listen stream on B hearing C and A;
# TOPO_TASKS tasks (2 000 by default) through nginx. Then it runs the
# redisstore topology tests against each and against a single node:
# tasks.TestStore, the multi-replica scenarios (create on A, poll on
# B, cancel on C; input asked on A, answered on B), one round trip per
# create and per get, 10 000 tasks from 8 callers through 3 replicas
# (p50/p99 of create and get), WAIT's cost, then the failover of a primary
# while tasks run and are polled (the window, and every acknowledged task
# readable and terminal afterwards).
#
#   BASE_PORT=20400 bash scripts/tasks/topologies.sh
#
# Ports: single node BASE_PORT+10; cluster BASE_PORT+20..25 (buses
# +40..45); Sentinel primary +30, replica +31, sentinels +32..34; nginx
# before the cluster's replicas +50 (replicas +51..53), before the
# Sentinel's +60 (+61..63).
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE_PORT=${BASE_PORT:-18280}
. scripts/lib/replicas.sh
debian_install redis-server redis-server
debian_install redis-sentinel redis-sentinel redis-server
debian_install nginx nginx-light nginx

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  local rc=$?
  for f in "$WORK"/nginx-*/nginx.pid; do
    if [ -f "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi
  done
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do # disowned: waited for here
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  if [ $rc -ne 0 ]; then
    echo "--- Redis logs (tail) ---"; tail -n 8 "$WORK"/*.log 2>/dev/null || true
    echo "--- replica and nginx logs (tail) ---"; tail -n 8 "$WORK"/nginx-*/*.log 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT INT TERM

wait_port() {
  for _ in $(seq 200); do
    if redis-cli -p "$1" ping >/dev/null 2>&1; then return 0; fi
    sleep 0.05
  done
  echo "nothing answers on port $1"; return 1
}

# redis NAME PORT ARGS...: a redis-server without persistence in WORK/NAME.
redis() {
  local name=$1 port=$2; shift 2
  mkdir -p "$WORK/$name"
  redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$WORK/$name" \
    --logfile "$WORK/$name.log" --daemonize no "$@" &
  PIDS+=($!)
  disown $! # the tests kill primaries: no job report
}

# Single node.
SINGLE=$((BASE_PORT + 10))
redis single "$SINGLE"

# Cluster: 3 primaries, 3 replicas. A replica takes over however long it
# was out of touch with its primary (cluster-replica-validity-factor 0):
# availability first, as the tasks' ledger reports what a stale replica
# lost.
CLUSTER=()
for i in 0 1 2 3 4 5; do
  port=$((BASE_PORT + 20 + i))
  redis "cluster$i" "$port" --cluster-enabled yes --cluster-port $((BASE_PORT + 40 + i)) \
    --cluster-config-file "$WORK/cluster$i/nodes.conf" --cluster-node-timeout 2000 \
    --cluster-replica-validity-factor 0
  CLUSTER+=("127.0.0.1:$port")
done
for i in 0 1 2 3 4 5; do wait_port $((BASE_PORT + 20 + i)); done
redis-cli --cluster create "${CLUSTER[@]}" --cluster-replicas 1 --cluster-yes >"$WORK/cluster-create.log" 2>&1
for _ in $(seq 200); do
  if redis-cli -p $((BASE_PORT + 20)) cluster info | grep -q 'cluster_state:ok'; then break; fi
  sleep 0.1
done
redis-cli -p $((BASE_PORT + 20)) cluster info | grep -q 'cluster_state:ok'
# Every replica in sync with its primary, so that it can take over.
for i in 0 1 2 3 4 5; do
  for _ in $(seq 200); do
    role=$(redis-cli -p $((BASE_PORT + 20 + i)) info replication)
    if echo "$role" | grep -q 'role:master' || echo "$role" | grep -q 'master_link_status:up'; then break; fi
    sleep 0.1
  done
done

# Sentinel: primary, replica, 3 sentinels.
PRIMARY=$((BASE_PORT + 30))
redis primary "$PRIMARY"
redis replica $((BASE_PORT + 31)) --replicaof 127.0.0.1 "$PRIMARY"
SENTINELS=()
for i in 0 1 2; do
  port=$((BASE_PORT + 32 + i))
  cat >"$WORK/sentinel$i.conf" <<CONF
bind 127.0.0.1
port $port
dir $WORK
logfile $WORK/sentinel$i.log
sentinel monitor tasks 127.0.0.1 $PRIMARY 2
sentinel down-after-milliseconds tasks 1000
sentinel failover-timeout tasks 10000
sentinel parallel-syncs tasks 1
CONF
  redis-sentinel "$WORK/sentinel$i.conf" &
  PIDS+=($!)
  disown $!
  SENTINELS+=("127.0.0.1:$port")
done
for p in $SINGLE $PRIMARY $((BASE_PORT + 31)) $((BASE_PORT + 32)) $((BASE_PORT + 33)) $((BASE_PORT + 34)); do wait_port "$p"; done
for _ in $(seq 100); do
  if [ "$(redis-cli -p $((BASE_PORT + 31)) info replication | grep -c 'master_link_status:up')" = 1 ]; then break; fi
  sleep 0.1
done

export REDIS_ADDR=127.0.0.1:$SINGLE
export REDIS_CLUSTER=$(IFS=,; echo "${CLUSTER[*]}")
export REDIS_SENTINEL=$(IFS=,; echo "${SENTINELS[*]}")
export REDIS_SENTINEL_MASTER=tasks
echo "redisstore topologies: single $REDIS_ADDR, cluster $REDIS_CLUSTER, sentinels $REDIS_SENTINEL"

# behind_nginx NAME PORT FLAGS...: three replicas of examples/replica on
# PORT+1..3 with FLAGS (the Redis they share), nginx on PORT in front of
# them, driven through the cross, listen and bulk scenarios; then stopped.
echo "building the replica and the driver"
(cd redisstore && go build -o "$WORK/bin/replica" ./examples/replica && go build -o "$WORK/bin/driver" ./internal/taskdriver)
behind_nginx() {
  local name=$1 port=$2 i p pids=() ups="" urls="" names=(a b c)
  shift 2
  mkdir -p "$WORK/nginx-$name"
  for i in 1 2 3; do
    p=$((port + i))
    "$WORK/bin/replica" -addr "127.0.0.1:$p" -name "${names[i - 1]}" -lease 3s -prefix "$name$$:" "$@" \
      >"$WORK/nginx-$name/replica-$i.log" 2>&1 &
    pids+=($!); PIDS+=($!)
    disown $!
    ups+="    server 127.0.0.1:$p;"$'\n'
    urls+="${urls:+,}http://127.0.0.1:$p/mcp"
  done
  start_nginx "$WORK/nginx-$name" "$port" "$ups"
  for p in $((port + 1)) $((port + 2)) $((port + 3)) "$port"; do
    for _ in $(seq 200); do
      if curl -s -o /dev/null "http://127.0.0.1:$p/mcp"; then break; fi
      sleep 0.05
    done
  done
  echo "$name: 3 replicas behind nginx (127.0.0.1:$port)"
  "$WORK/bin/driver" -nginx "http://127.0.0.1:$port/mcp" -replicas "$urls" -tasks "${TOPO_TASKS:-2000}" -lease 3s \
    -run cross,listen,bulk
  for i in 1 2 3; do # every replica answered through nginx
    if ! grep -q "^127.0.0.1:$((port + i)) " "$WORK/nginx-$name/access.log"; then
      echo "$name: replica $i answered nothing through nginx"; return 1
    fi
  done
  kill "$(cat "$WORK/nginx-$name/nginx.pid")"; rm -f "$WORK/nginx-$name/nginx.pid"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
}
behind_nginx cluster $((BASE_PORT + 50)) -cluster "$REDIS_CLUSTER"
behind_nginx sentinel $((BASE_PORT + 60)) -sentinel "$REDIS_SENTINEL" -master "$REDIS_SENTINEL_MASTER"

(cd redisstore && REDISSTORE_REQUIRE=1 go test -count=1 -run 'TestTopolog' -v -timeout 20m ${TOPO_SHORT:+-short} . | grep -v '^=== RUN')
echo "topologies: ok"
