#!/usr/bin/env bash
# The search evaluation (docs/search-quality.md): code_search and tool_detail
# over this repository through the codeserver example, and code_search over
# a real service (gofakes3, in the searcheval module, which writes its -deps
# snapshot with mcpsnapshot first). Prints the tables; fails below target.
set -euo pipefail
cd "$(dirname "$0")/../.."
show() { grep -v -E '^(=== RUN|--- PASS|PASS$)'; }
go test -count=1 -v -run 'Quality' ./examples/codeserver | show
cd searcheval
go vet ./...
go test -count=1 -v ./... | show
