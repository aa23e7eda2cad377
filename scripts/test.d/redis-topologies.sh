#!/usr/bin/env bash
# Tasks on Redis Cluster and under Sentinel, beside a single node (see
# scripts/tasks/topologies.sh). Skip with SKIP_TASKS=1 (for example on a
# machine without apt).
set -euo pipefail
if [ "${SKIP_TASKS:-}" = 1 ]; then echo "redis-topologies: skipped (SKIP_TASKS=1)"; exit 0; fi
exec bash "$(dirname "$0")/../tasks/topologies.sh"
