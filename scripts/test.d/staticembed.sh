#!/usr/bin/env bash
# The staticembed module (the pure-Go static sentence embedder), run from
# the repo root by scripts/test: vet, staticcheck, its tests under the race
# detector (the tokenizer against the Hugging Face tokenizer's output on a
# fixed list of strings, the table reader and pooling against the Python
# tooling's output), then the time of one query and of a reranking batch.
# When the embedtable tooling has built the real table
# (.cache/embedtable/table-v0-d256, searcheval/embedtable/build.sh), the
# tokenizer is checked with its full vocabulary and the benchmarks use it.
set -euo pipefail
cd "$(dirname "$0")/../.."
table=$PWD/.cache/embedtable/table-v0-d256/table.semb
cd staticembed
go vet ./...
if command -v staticcheck >/dev/null 2>&1; then staticcheck ./...; fi
go test -race -count=1 ./...
what="a synthetic 256-dimension table"
if [ -e "$table" ]; then
  export STATICEMBED_TABLE=$table
  go test -count=1 -run 'TestTokensFullVocabulary' -v . | grep -E '^(--- |ok|FAIL)'
  what="the all-MiniLM-L6-v2 table ($(wc -c <"$table") bytes)"
fi
go test -count=1 -run '^$' -bench 'Embed' -benchmem -benchtime 2000x . | grep -E '^Benchmark'
go test -count=1 -run '^$' -bench 'Parse' -benchmem -benchtime 20x . | grep -E '^Benchmark' || true
echo "staticembed: tests passed; benchmarks on $what"
