#!/usr/bin/env bash
# Every companion module (otelmcp, redisstore, bench, interop, searcheval,
# scripts/scale/driver...) resolves as a user gets it, not only inside this
# tree's go.work: each is copied out of the tree and built and vetted with
# GOWORK=off (and its tests' imports resolved), and must have no replace
# directive pointing outside itself.
# The root module it requires is served at the version its go.mod names (a
# pseudo-version until the first tag) by a file-based GOPROXY this script
# builds from the checkout: list, .info, .mod and a module zip made with
# golang.org/x/mod/zip, as the module proxy protocol lays them out. Other
# modules come from the local module cache, then the real proxy.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
ROOTMOD=github.com/embedmcp/mcp
WORK=$(mktemp -d)
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
fail() { echo "modules: $*" >&2; exit 1; }

# The tree's files as checked out (tracked, and new files not ignored).
files() { git ls-files -co --exclude-standard -z -- "$@"; }

# The zip maker: a throwaway module outside the tree using x/mod/zip.
mkdir -p "$WORK/mkzip"
cat >"$WORK/mkzip/main.go" <<'EOF'
// Command mkzip writes the module zip of the module in a directory.
package main

import (
	"fmt"
	"os"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	path, version, dir, out := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	f, err := os.Create(out)
	if err == nil {
		err = zip.CreateFromDir(f, module.Version{Path: path, Version: version}, dir)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkzip:", err)
		os.Exit(1)
	}
}
EOF
XMOD=$(awk '$1 == "golang.org/x/mod" { print $2; exit }' go.mod)
[ -n "$XMOD" ] || fail "the root go.mod names no golang.org/x/mod version"
MODCACHE=$(go env GOMODCACHE)
UPSTREAM=$(go env GOPROXY)
(
  cd "$WORK/mkzip"
  export GOWORK=off GOFLAGS=-mod=mod GOPROXY="file://$MODCACHE/cache/download,$UPSTREAM"
  go mod init mkzip >/dev/null 2>&1
  go get "golang.org/x/mod@$XMOD" >/dev/null 2>&1 || go get "golang.org/x/mod@$XMOD"
  go build -o "$WORK/mkzip.bin" .
)

# The root module as of the checkout, nested modules left out by the zip.
mkdir -p "$WORK/root"
files . | tar -C "$ROOT" --null -T - -cf - | tar -C "$WORK/root" -xf -

# serve VERSION [SUBDIR] publishes the root module (or the companion
# module in SUBDIR, such as staticembed, which others require) at VERSION
# in the file proxy.
PROXY="$WORK/proxy"
serve() {
  local v=$1 mp=$ROOTMOD src=$WORK/root
  if [ -n "${2:-}" ]; then mp=$ROOTMOD/$2 src=$WORK/root/$2; fi
  local dir="$PROXY/$mp/@v"
  [ -e "$dir/$v.zip" ] && return
  mkdir -p "$dir"
  # A pseudo-version carries its commit time; a tag gets the checkout's.
  local ts when
  ts=$(printf '%s\n' "$v" | sed -nE 's/.*[.-]([0-9]{14})-[0-9a-f]{12}(\+incompatible)?$/\1/p')
  if [ -n "$ts" ]; then
    when="${ts:0:4}-${ts:4:2}-${ts:6:2}T${ts:8:2}:${ts:10:2}:${ts:12:2}Z"
  else
    when=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)
  fi
  printf '{"Version":"%s","Time":"%s"}\n' "$v" "$when" >"$dir/$v.info"
  cp "$src/go.mod" "$dir/$v.mod"
  "$WORK/mkzip.bin" "$mp" "$v" "$src" "$dir/$v.zip"
  echo "$v" >>"$dir/list"
}

checked=0
for mod in $(git ls-files '*go.mod' | grep -v -e '^go.mod$' -e '/testdata/' -e '^scripts/scale/codehost/'); do
  dir=$(dirname "$mod")
  echo "$dir"
  # No replace directive may point outside the module: a dependency's
  # replace directives are ignored, so they cannot work for its users.
  if grep -nE '=>[[:space:]]*(\.\.(/|[[:space:]]|$)|/)' "$mod"; then
    fail "$mod: a replace directive points outside the module (use the go.work for development)"
  fi
  need=$(awk -v m="$ROOTMOD" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$mod")
  case "$need" in
  "") ;;
  v0.0.0) fail "$mod requires $ROOTMOD v0.0.0, which no proxy can serve: require a real (pseudo-)version" ;;
  *) serve "$need" ;;
  esac
  # Companion modules that others require are served the same way.
  for sub in staticembed; do
    v=$(awk -v m="$ROOTMOD/$sub" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$mod")
    if [ -n "$v" ]; then serve "$v" "$sub"; fi
  done
  copy="$WORK/mods/$dir"
  mkdir -p "$WORK/mods"
  files "$dir" | tar -C "$ROOT" --null -T - -cf - | tar -C "$WORK/mods" -xf -
  [ -e "$copy/go.mod" ] || fail "$dir: copying the module out failed"
  (
    cd "$copy"
    # A module cache of its own, so that no earlier run's copy of the root
    # module is used; -trimpath keeps the build cache valid across them.
    export GOWORK=off GOFLAGS="-mod=mod -trimpath" GONOSUMDB="$ROOTMOD" GONOSUMCHECK=1 GOMODCACHE="$WORK/modcache"
    export GOPROXY="file://$PROXY,file://$MODCACHE/cache/download,$UPSTREAM"
    go build -o /dev/null ./... || fail "$dir does not build out of the tree with GOWORK=off"
    # The tests' imports resolve too (scripts/test vets and tests them).
    go list -deps -test ./... >/dev/null || fail "$dir: its tests' imports do not resolve with GOWORK=off"
    if [ -n "$need" ]; then
      got=$(go list -m -f '{{.Version}}' "$ROOTMOD")
      [ "$got" = "$need" ] || fail "$dir resolved $ROOTMOD $got, want $need"
    fi
  )
  checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || fail "no companion module found"
echo "modules: $checked companion modules build out of the tree with GOWORK=off against $ROOTMOD from the checkout"
