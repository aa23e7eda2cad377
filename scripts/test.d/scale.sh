#!/usr/bin/env bash
# Horizontal scale: three hello replicas behind nginx, driven by the go-sdk
# and mcp-go clients and a mixed burst (see scripts/scale/run.sh). Skip with
# SKIP_SCALE=1 (for example on a machine without apt and nginx).
set -euo pipefail
if [ "${SKIP_SCALE:-}" = 1 ]; then echo "scale: skipped (SKIP_SCALE=1)"; exit 0; fi
exec bash "$(dirname "$0")/../scale/run.sh"
