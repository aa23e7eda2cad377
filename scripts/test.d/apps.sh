#!/usr/bin/env bash
# The MCP Apps views (runtimetools/views, codetools/views, and the parts
# they share from internal/viewkit) in a real browser, run from the repo
# root by scripts/test: installs Debian's chromium when missing, Node 22
# (.ci/install-node.sh) and the pinned npm packages
# (interop/apps/package-lock.json: @modelcontextprotocol/ext-apps, its MCP
# client, esbuild, playwright-core), starts examples/codeserver on a
# loopback port from BASE_PORT, and drives headless Chromium over a minimal
# host built on ext-apps's AppBridge, whose sandbox proxy is served from
# another origin (interop/apps/apps.mjs). Screenshots, light and dark, go
# to .cache/apps-screenshots/ (ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE_PORT=${BASE_PORT:-20500}

if [ ! -x /usr/bin/chromium ]; then
  echo "apps: installing chromium"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
fi
. scripts/lib/node-server.sh
npm_ci interop/apps

work=$(mktemp -d)
shots=.cache/apps-screenshots
rm -rf "$shots" && mkdir -p "$shots"
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

[ -f examples/codeserver/snapshot/manifest.json ] || go generate ./examples/codeserver
go build -o "$work/codeserver" ./examples/codeserver
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
addr=127.0.0.1:$((BASE_PORT + 11))
"$work/codeserver" -addr "$addr" -token "$token" >"$work/codeserver.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$addr/mcp" || true)
  [ "$code" = 401 ] && break
  sleep 0.1
done
[ "$code" = 401 ] || { cat "$work/codeserver.log"; echo "apps: codeserver did not start"; exit 1; }

CODESERVER_URL=http://$addr CODESERVER_TOKEN=$token HOST_PORT=$((BASE_PORT + 12)) SANDBOX_PORT=$((BASE_PORT + 13)) \
  SCREENSHOT_DIR=$PWD/$shots node interop/apps/apps.mjs
echo "apps: screenshots in $shots"
