#!/usr/bin/env bash
# The Tasks extension across replicas: redis-server and three replicas
# behind nginx (see scripts/tasks/run.sh), with the redisstore module's
# tests. Skip with SKIP_TASKS=1 (for example on a machine without apt).
set -euo pipefail
if [ "${SKIP_TASKS:-}" = 1 ]; then echo "tasks: skipped (SKIP_TASKS=1)"; exit 0; fi
exec bash "$(dirname "$0")/../tasks/run.sh"
