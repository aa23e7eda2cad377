#!/usr/bin/env bash
# Bench smoke (run from the repo root by scripts/test): vet the bench module,
# run its tests (each of the four servers must answer the echo call with the
# same structured result, validate, list 1 000 tools) and one iteration of
# every benchmark. The full benchmark is bench/run, not part of the tests.
set -euo pipefail
cd "$(dirname "$0")/../../bench"
go vet ./...
go test -count=1 -run 'Test' -bench . -benchtime 1x ./...
