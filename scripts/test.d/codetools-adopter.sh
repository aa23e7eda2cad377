#!/usr/bin/env bash
# codetools, as an adopter meets it (run from the repo root by scripts/test):
# a scratch module outside the repository follows the README section "Let
# agents read your code" verbatim (its setup, its main.go and its commands,
# taken from the README), with a replace directive to this checkout instead
# of "go get github.com/embedmcp/mcp" of a release. It checks that the
# generator runs as a tool of the module (go get -tool, go tool
# mcpsnapshot) from the module's own go.sum, that the first go generate
# works with no directory or placeholder, that generating again (and after
# a commit) leaves git status clean, that -check passes and then catches an
# edit, and that the built service answers code_definition about one of its
# own functions with its source and a consistency of "match", its callers,
# its go.mod and the handler of one of its routes. Then it checks the
# catalog budgets and the lookup speed with one run of the
# examples/codeserver benchmarks.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
WORK=$(mktemp -d "${TMPDIR:-/tmp}/codetools-adopter.XXXXXX")
PID=
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  chmod -R u+w "$WORK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "codetools-adopter: $*" >&2; exit 1; }
# port returns a loopback port for a service: BASE_PORT+offset+attempt
# when BASE_PORT is set, else a random one.
port() {
  if [ -n "${BASE_PORT:-}" ]; then echo $((BASE_PORT + $1 + attempt)); else echo $((20000 + RANDOM % 20000)); fi
}

# The README's block after <!-- codetools-adopter: NAME -->.
block() {
  awk -v m="<!-- codetools-adopter: $1 -->" '
    $0 == m { want = 1; next }
    want && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' README.md
}

APP=$WORK/myservice
mkdir -p "$APP"
block setup > "$WORK/setup.sh"
block main.go > "$WORK/main.go"
block commands > "$WORK/commands.sh"
[ -s "$WORK/setup.sh" ] && [ -s "$WORK/main.go" ] && [ -s "$WORK/commands.sh" ] || fail "README section blocks not found"
grep -q '^go get -tool ' "$WORK/setup.sh" || fail "the README setup does not add the generator as a tool"
grep -q '^go generate' "$WORK/commands.sh" || fail "the README commands do not generate"
# The module proxy has no release of this checkout, so the two go get
# lines become their local equivalents: a requirement replaced by this
# checkout, and the tool directive that go get -tool writes (the README's
# go mod tidy then adds the tool's requirements and go.sum entries, as go
# get -tool does).
grep -qx 'go get github.com/embedmcp/mcp' "$WORK/setup.sh" || fail "the README setup does not get the library"
sed -i -e "s|^go get github.com/embedmcp/mcp\$|go mod edit -require=github.com/embedmcp/mcp@v0.0.0-00010101000000-000000000000 -replace=github.com/embedmcp/mcp=$ROOT|" \
  -e "s|^go get -tool |go mod edit -tool=|" "$WORK/setup.sh"

export GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=adopter GIT_AUTHOR_EMAIL=adopter@example.com \
  GIT_COMMITTER_NAME=adopter GIT_COMMITTER_EMAIL=adopter@example.com
cd "$APP"
bash -e "$WORK/setup.sh" 2>"$WORK/setup.log" || { cat "$WORK/setup.log"; fail "the README setup"; }
grep -q '^tool github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot' go.mod || fail "go.mod lists no mcpsnapshot tool"
cp "$WORK/main.go" main.go
git init -q . && git add -A && git commit -qm "the README's service"

# The README's commands, up to the start of the service.
grep -v '^MCP_TOKEN=' "$WORK/commands.sh" > "$WORK/build.sh"
bash -e "$WORK/build.sh"
[ -f snapshot/manifest.json ] && [ -f snapshot/.mcpsnapshot ] || fail "go generate did not write the snapshot"
git add -A && git commit -qm "snapshot"
go generate ./...
[ -z "$(git status --porcelain)" ] || { git status --short; fail "a second go generate changed the snapshot"; }
go tool mcpsnapshot -check -o snapshot . >/dev/null || fail "-check on a fresh snapshot"
printf '\n// later is an edit not yet in the snapshot.\nfunc later() {}\n' >> main.go
if go tool mcpsnapshot -check -o snapshot . >/dev/null 2>&1; then
  fail "-check missed an edit"
fi
git checkout -q main.go

# Build from the clean checkout (VCS-stamped), start, ask.
go build -buildvcs=true -o myservice .
for attempt in 1 2 3 4 5; do
  PORT=$(port 0)
  ADDR=127.0.0.1:$PORT MCP_TOKEN=s3cret ./myservice 2>"$WORK/service.log" &
  PID=$!
  for _ in $(seq 1 50); do
    if curl -s -o /dev/null "http://127.0.0.1:$PORT/mcp" && sleep 0.2 && kill -0 "$PID" 2>/dev/null; then break 2; fi
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
  done
  kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=
done
[ -n "$PID" ] || { cat "$WORK/service.log"; fail "the service did not start"; }
call() {
  curl -s "http://127.0.0.1:$PORT/mcp" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H "Authorization: Bearer $1" \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'"$2"'","arguments":'"$3"'}}'
}
ANSWER=$(call s3cret code_definition '{"name":"main.listenAddr"}')
echo "$ANSWER" | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]
assert not r.get("isError"), r
d = r["structuredContent"]
checks = {
    "name": d["name"] == "example.com/myservice.listenAddr",
    "source": d["source"] == "snapshot" and len(r["content"]) == 2 and "func listenAddr() string" in r["content"][1]["text"],
    "file": d["sourceFile"] == "example.com/myservice/main.go",
    "linked": d["linked"],
    "consistency": d["consistency"]["status"] == "match",
}
bad = [k for k, ok in checks.items() if not ok]
if bad:
    sys.exit("code_definition of main.listenAddr: %s wrong in %s" % (bad, json.dumps(d, indent=1)[:3000]))
print("codetools-adopter: code_definition main.listenAddr: snapshot source, linked, consistency match")
' || fail "the answer"
# Navigation: the callers of its function, its go.mod, the handler of a route.
{
  call s3cret code_references '{"name":"main.listenAddr","relation":"callers"}'; echo
  call s3cret code_file '{"path":"go.mod"}'; echo
  call s3cret code_search '{"query":"GET /hello/ann"}'; echo
} | python3 -c '
import json, sys
refs, gomod, route = [json.loads(l)["result"] for l in sys.stdin if l.strip()]
for r in (refs, gomod, route):
    assert not r.get("isError"), r
refs, gomod, route = refs["structuredContent"], gomod["structuredContent"], route["structuredContent"]
items = [(i["id"], i["how"], i["text"]) for i in refs["items"]]
checks = {
    "callers": items == [("example.com/myservice.main", "call", "srv := &http.Server{Addr: listenAddr(), Handler: mux, ReadHeaderTimeout: 10 * time.Second}")],
    "go.mod": gomod["path"] == "example.com/myservice/go.mod" and gomod["text"].startswith("module example.com/myservice\n"),
    "route": route["match"] == "route" and route["results"][0]["id"] == "example.com/myservice.hello",
}
bad = [k for k, ok in checks.items() if not ok]
if bad:
    sys.exit("navigation: %s wrong in %s" % (bad, json.dumps([refs, gomod, route], indent=1)[:4000]))
print("codetools-adopter: code_references callers, code_file go.mod and the route of GET /hello/ann")
' || fail "the navigation answers"
STATUS=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/mcp" -H 'Content-Type: application/json' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
[ "$STATUS" = 401 ] || fail "a caller without the token got $STATUS, want 401"
kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=

cd "$ROOT"
echo "codetools-adopter: catalog budgets and lookup speed"
go test -count=1 -run XXX -bench CatalogBuild -benchtime 1x ./examples/codeserver
go test -count=1 -run XXX -bench References -benchtime 2000x ./examples/codeserver

# The README's main job fills examples/codeserver/snapshot, which is not
# committed (only its marker and README are): in a clone of this checkout,
# build and vet work before generating, go generate writes the snapshot,
# the service starts with it, and git status stays clean.
CLONE=$WORK/clone
git clone -q "$ROOT" "$CLONE"
cd "$CLONE"
[ -f examples/codeserver/snapshot/.mcpsnapshot ] && [ -f examples/codeserver/snapshot/README.md ] ||
  fail "examples/codeserver/snapshot lacks its committed marker or README"
[ ! -e examples/codeserver/snapshot/manifest.json ] || fail "a generated snapshot is committed in examples/codeserver/snapshot"
go build ./examples/... || fail "go build before go generate"
go vet ./examples/codeserver || fail "go vet before go generate"
go generate ./examples/codeserver
[ -f examples/codeserver/snapshot/manifest.json ] || fail "go generate ./examples/codeserver wrote no snapshot"
[ -z "$(git status --porcelain)" ] || { git status --short | head; fail "go generate ./examples/codeserver left git status unclean"; }
go build -o "$WORK/codeserver" ./examples/codeserver
for attempt in 1 2 3 4 5; do
  PORT=$(port 5)
  "$WORK/codeserver" -addr "127.0.0.1:$PORT" -token s3cret 2>"$WORK/codeserver.log" &
  PID=$!
  for _ in $(seq 1 50); do
    if curl -s -o /dev/null "http://127.0.0.1:$PORT/mcp" && sleep 0.2 && kill -0 "$PID" 2>/dev/null; then break 2; fi
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
  done
  kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=
done
[ -n "$PID" ] || { cat "$WORK/codeserver.log"; fail "codeserver did not start"; }
call s3cret code_search '{"query":"newMux"}' | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]
assert not r.get("isError"), r
d = r["structuredContent"]
assert not d["coverage"].get("snapshotError"), d["coverage"]
assert d["results"] and d["results"][0]["id"] == "github.com/embedmcp/mcp/examples/codeserver.newMux", d["results"][:3]
print("codetools-adopter: codeserver from a fresh clone: generated, served from its snapshot, git status clean")
' || fail "codeserver's answer after go generate"
kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=
[ -z "$(git status --porcelain)" ] || { git status --short | head; fail "running codeserver left git status unclean"; }
