#!/usr/bin/env bash
# The official Python MCP SDK (mcp 2.3.0, pinned with its dependencies in
# interop/python/requirements.txt) as a client of this server, run from the
# repo root by scripts/test: a virtual environment under .cache/, the
# pytest suite of interop/python against examples/hello and
# examples/codeserver over Streamable HTTP (loopback) and stdio, in both
# protocol eras, and against oauthmcp's step-up server behind Ory Hydra
# (the binary oauth.sh builds and caches) for the OAuth flow.
# examples/conformance serves the multi round-trip (input_required) tools.
# Ports: BASE_PORT+1 hello, +2 codeserver, +3 Hydra public, +4 Hydra admin,
# +5 the step-up server, +6 conformance; without BASE_PORT every server
# takes a free port.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
start=$SECONDS
fail() { echo "python-sdk: $*" >&2; exit 1; }
port() { if [ -n "${BASE_PORT:-}" ]; then echo $((BASE_PORT + $1)); else echo 0; fi; }

# Python 3.10+ with venv (Debian splits venv out of python3).
command -v python3 >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq python3 >/dev/null; }
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
fi
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' || fail "Python 3.10 or later is needed, found $(python3 -V)"
REQ=interop/python/requirements.txt
VENV=$ROOT/.cache/python-sdk-venv
sum=$( (python3 -V; sha256sum "$REQ") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$VENV/.requirements-sha256" 2>/dev/null)" != "$sum" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --require-hashes --no-deps -r "$REQ"
  "$VENV/bin/python" -m pip check
  echo "$sum" >"$VENV/.requirements-sha256"
fi
echo "Python SDK: $("$VENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"), "pytest", m.version("pytest"))') on $("$VENV/bin/python" -V)"

HYDRA=$ROOT/.cache/bin/hydra-v2.3.0
if [ ! -x "$HYDRA" ]; then
  echo "building Ory Hydra v2.3.0 (cgo, once; cached as $HYDRA)"
  command -v gcc >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq gcc libc6-dev >/dev/null; }
  mkdir -p "$ROOT/.cache/bin"
  (cd oauthmcp/testdata/hydra && GOWORK=off CGO_ENABLED=1 go build -tags sqlite,sqlite_omit_load_extension -o "$HYDRA.tmp" github.com/ory/hydra/v2)
  mv "$HYDRA.tmp" "$HYDRA"
fi

work=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# codeserver serves its code tools from the source snapshot go generate
# writes (ignored by git); the agent checks read source through it.
[ -f examples/codeserver/snapshot/manifest.json ] || go generate ./examples/codeserver
go build -o "$work/hello" ./examples/hello
go build -o "$work/codeserver" ./examples/codeserver
go build -o "$work/conformance" ./examples/conformance
(cd oauthmcp && go build -o "$work/stepupserver" ./internal/stepupserver)

# wait_for NAME FILE SED: the URL a server prints once it listens.
wait_for() {
  local name=$1 file=$2 expr=$3 pid=${PIDS[-1]} url=
  for _ in $(seq 150); do
    url=$(sed -n "$expr" "$file" | head -1)
    [ -n "$url" ] && { echo "$url"; return; }
    kill -0 "$pid" 2>/dev/null || { cat "$work"/*.log >&2; fail "$name exited"; }
    sleep 0.1
  done
  cat "$work"/*.log >&2
  fail "$name did not start"
}

TOKEN=python-sdk-$RANDOM$RANDOM
"$work/hello" -addr "127.0.0.1:$(port 1)" -page-size 3 >"$work/hello.out" 2>"$work/hello.log" &
PIDS+=($!)
HELLO_URL=$(wait_for hello "$work/hello.out" 's/^MCP server listening on //p')
"$work/codeserver" -addr "127.0.0.1:$(port 2)" -token "$TOKEN" 2>"$work/codeserver.log" &
PIDS+=($!)
CODESERVER_URL=$(wait_for codeserver "$work/codeserver.log" 's/^codeserver: serving MCP at //p')
"$work/conformance" -addr "127.0.0.1:$(port 6)" >"$work/conformance.out" 2>"$work/conformance.log" &
PIDS+=($!)
CONFORMANCE_URL=$(wait_for conformance "$work/conformance.out" 's/^MCP conformance server listening on //p')

ISSUER=http://127.0.0.1:$(port 3)
ADMIN=http://127.0.0.1:$(port 4)
if [ -z "${BASE_PORT:-}" ]; then
  # Hydra takes fixed ports: two free ones, asked of the kernel.
  read -r p1 p2 < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
  ISSUER=http://127.0.0.1:$p1 ADMIN=http://127.0.0.1:$p2
fi
env DSN=memory STRATEGIES_ACCESS_TOKEN=jwt URLS_SELF_ISSUER=$ISSUER \
  SERVE_PUBLIC_HOST=127.0.0.1 SERVE_PUBLIC_PORT=${ISSUER##*:} SERVE_ADMIN_HOST=127.0.0.1 SERVE_ADMIN_PORT=${ADMIN##*:} \
  SECRETS_SYSTEM=python-sdk-suite-system-secret-0123 SQA_OPT_OUT=true LOG_LEVEL=warn \
  "$HYDRA" serve all --dev --sqa-opt-out >"$work/hydra.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 150); do
  curl -sf "$ADMIN/health/ready" >/dev/null 2>&1 && curl -sf "$ISSUER/.well-known/openid-configuration" >/dev/null 2>&1 && break
  kill -0 "${PIDS[-1]}" 2>/dev/null || { cat "$work/hydra.log"; fail "hydra exited"; }
  sleep 0.2
done
curl -sf "$ADMIN/health/ready" >/dev/null || { cat "$work/hydra.log"; fail "hydra did not start"; }
"$work/stepupserver" -addr "127.0.0.1:$(port 5)" -issuer "$ISSUER" -accept-typ-jwt >"$work/stepup.out" 2>"$work/stepup.log" &
PIDS+=($!)
STEPUP_URL=$(wait_for stepupserver "$work/stepup.out" 's/^listening on //p')
echo "servers: hello $HELLO_URL, codeserver $CODESERVER_URL, conformance $CONFORMANCE_URL, step-up $STEPUP_URL (Hydra $ISSUER)"

# pytest exits 5 when it collected no test: that is a failure here too.
set +e
(cd interop/python && env PYTHONDONTWRITEBYTECODE=1 \
  HELLO_URL="$HELLO_URL" HELLO_BIN="$work/hello" \
  CODESERVER_URL="$CODESERVER_URL" CODESERVER_TOKEN="$TOKEN" CODESERVER_BIN="$work/codeserver" \
  CONFORMANCE_URL="$CONFORMANCE_URL" \
  STEPUP_URL="$STEPUP_URL" HYDRA_ISSUER="$ISSUER" HYDRA_ADMIN="$ADMIN" \
  "$VENV/bin/python" -m pytest -p no:cacheprovider -q -rfEs --junitxml="$work/junit.xml" "$@") | tee "$work/pytest.out"
rc=${PIPESTATUS[0]}
set -e
case $rc in
  0) ;;
  5) fail "pytest collected no tests" ;;
  *) echo "server logs:"; tail -n 30 "$work/hello.log" "$work/codeserver.log" "$work/conformance.log" "$work/stepup.log" | sed 's/^/    /'
     fail "pytest exited $rc" ;;
esac
read -r tests failures errors skipped < <(python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
s = r if r.tag == "testsuite" else r.find("testsuite")
print(*(int(s.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")))' "$work/junit.xml")
[ "$tests" -gt 0 ] || fail "no checks ran"
[ "$skipped" -eq 0 ] || fail "$skipped checks skipped"
echo
echo "python-sdk: $((tests - failures - errors)) passed, $((failures + errors)) failed ($((SECONDS - start)) s)"
[ $((failures + errors)) -eq 0 ]
