#!/usr/bin/env bash
# Runs the code_search evaluation sets through gopls v0.24.0's go_search
# (gopls mcp) and through code_search, and prints both hit rates side by
# side (docs/evaluation.md). Not part of the test command: gopls v0.24.0
# needs a newer Go to install, and loading the workspaces takes minutes.
set -euo pipefail
cd "$(dirname "$0")"
GOPLS=${GOPLS:-$(command -v gopls || echo "$(go env GOPATH)/bin/gopls")}
if ! "$GOPLS" version 2>/dev/null | grep -q 'v0.24.0'; then
  GOTOOLCHAIN=go1.27.4 go install golang.org/x/tools/gopls@v0.24.0
  GOPLS="$(go env GOPATH)/bin/gopls"
fi
go run ./cmd/goplscompare -gopls "$GOPLS" "$@"
