#!/usr/bin/env bash
# Real MCP clients against examples/conformance (run from the repo root by
# scripts/test): the TypeScript SDK client (interop/clients/client.mjs,
# Streamable HTTP) and the MCP Inspector CLI over HTTP and stdio, in both
# protocol eras. Installs Node 22 (.ci/install-node.sh) and the pinned npm
# packages (interop/clients/package-lock.json) inside the checkout.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
start=$SECONDS

. scripts/lib/node-server.sh
npm_ci interop/clients

log=$(mktemp)
trap 'kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; rm -f "$log"' EXIT
start_conformance_server "$log"
SERVER=$ROOT/.cache/conformance-server

pass=0 fail=0
failed=()
# expect NAME WANT_RC PATTERNS CMD...: run CMD, check its exit code and that
# its output contains every pattern of PATTERNS (fixed strings separated by
# " && ").
expect() {
  local name=$1 want=$2 patterns=$3 pattern=$3 out rc ok= p
  shift 3
  set +e
  out=$("$@" 2>&1)
  rc=$?
  set -e
  if [ "$rc" -eq "$want" ]; then ok=1; fi
  while [ -n "$ok" ] && [ -n "$pattern" ]; do
    p=${pattern%% && *}
    [ "$p" = "$pattern" ] && pattern= || pattern=${pattern#* && }
    grep -qF -- "$p" <<<"$out" || ok=
  done
  if [ -n "$ok" ]; then
    pass=$((pass + 1))
    echo "  ✓ $name (exit $rc)"
  else
    fail=$((fail + 1))
    failed+=("$name")
    echo "  ✗ $name: exit $rc (want $want), output should contain '$patterns':"
    sed 's/^/      /' <<<"$out" | head -40
  fi
}

echo
echo "TypeScript SDK $(node -p 'require("./interop/clients/node_modules/@modelcontextprotocol/sdk/package.json").version') client (Streamable HTTP):"
if (cd interop/clients && node client.mjs "$URL"); then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  failed+=("TypeScript SDK client")
fi

INSPECTOR=$ROOT/interop/clients/node_modules/.bin/inspector
echo
echo "MCP Inspector $(node -p 'require("./interop/clients/node_modules/@modelcontextprotocol/inspector/package.json").version') CLI:"
# Results of the 2026-07-28 era carry the server's identity in _meta.
meta_legacy='"content"'
meta_modern='"io.modelcontextprotocol/serverInfo"'
for era in legacy modern; do
  meta=meta_$era
  meta=${!meta}
  http=("$INSPECTOR" --cli "$URL" --transport http --protocol-era "$era")
  stdio=("$INSPECTOR" --cli --transport stdio --protocol-era "$era")
  expect "http $era: tools/list" 0 '"test_simple_text"' "${http[@]}" --method tools/list
  expect "http $era: tools/call echo" 0 "\"text\": \"hi\" && $meta" "${http[@]}" --method tools/call --tool-name echo --tool-arg text=hi
  expect "http $era: tools/call test_error_handling (isError)" 5 'intentionally returns an error' \
    "${http[@]}" --method tools/call --tool-name test_error_handling
  expect "http $era: tools/call of an unknown tool" 5 'tool_not_found' \
    "${http[@]}" --method tools/call --tool-name no_such_tool
  expect "stdio $era: tools/list" 0 '"test_simple_text"' "${stdio[@]}" --method tools/list -- "$SERVER" -stdio
  expect "stdio $era: tools/call echo" 0 "\"text\": \"over stdio\" && $meta" \
    "${stdio[@]}" --method tools/call --tool-name echo --tool-arg "text=over stdio" -- "$SERVER" -stdio
  expect "stdio $era: tools/call test_error_handling (isError)" 5 'intentionally returns an error' \
    "${stdio[@]}" --method tools/call --tool-name test_error_handling -- "$SERVER" -stdio
done

echo
echo "clients: $pass passed, $fail failed ($((SECONDS - start)) s)"
if [ "$fail" -gt 0 ]; then
  printf '  failed: %s\n' "${failed[@]}"
  exit 1
fi
