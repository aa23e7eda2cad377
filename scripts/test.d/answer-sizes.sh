#!/usr/bin/env bash
# What an answer costs (issue 24), run from the repo root by scripts/test:
# TestAnswerSizes of examples/codeserver calls every tool of the main job
# once and prints the bytes of each answer's text and structured content,
# the table docs/runtime.md shows ("What an answer costs"). The test fails when
# tools/list is over 16 KB, when a function's code_definition is over 1.5x
# its source + 600 bytes, or when a text block is a JSON dump.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(go test -count=1 -v -run '^TestAnswerSizes$' ./examples/codeserver 2>&1) || { echo "$out"; exit 1; }
echo "$out" | sed -n '/^answer sizes of examples\/codeserver/,/^--- PASS/p' | grep -v '^--- PASS'
