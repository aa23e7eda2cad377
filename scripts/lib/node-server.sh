# Shared by scripts/test.d/conformance.sh and clients.sh (sourced from the
# repo root): Node 22 on PATH, npm_ci, and start_conformance_server, which
# builds examples/conformance, starts it on a free port, sets URL and stops
# it when the calling script exits.

export PATH="$(bash .ci/install-node.sh):$PATH"
SERVER_PID=

# npm_ci DIR: npm ci, skipped when node_modules was installed from this very
# lockfile.
npm_ci() {
  local sum
  sum=$(sha256sum "$1/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$1/node_modules/.ci-lock-sha256" 2>/dev/null)" != "$sum" ]; then
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$sum" >"$1/node_modules/.ci-lock-sha256"
  fi
}

# start_conformance_server LOGFILE: the server's first stdout line names its
# URL; sets URL and SERVER_PID.
start_conformance_server() {
  local log=$1
  mkdir -p .cache
  go build -o .cache/conformance-server ./examples/conformance
  "$PWD/.cache/conformance-server" -addr 127.0.0.1:0 >"$log" 2>&1 &
  SERVER_PID=$!
  URL=
  for _ in $(seq 100); do
    URL=$(sed -n 's/^MCP conformance server listening on //p' "$log")
    [ -n "$URL" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log"; echo "server exited"; exit 1; }
    sleep 0.1
  done
  [ -n "$URL" ] || { cat "$log"; echo "server did not start"; exit 1; }
  echo "server: $URL"
}
