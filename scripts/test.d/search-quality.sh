#!/usr/bin/env bash
# The search evaluation (docs/evaluation.md): code_search and tool_detail
# over this repository through the codeserver example, and code_search over
# real services (in the searcheval module, which writes their -deps
# snapshots with mcpsnapshot first): gofakes3 and the tuning sets (go-smtp;
# miniredis, mochi-mqtt and pion/turn since 2026-12-01; gliderlabs/ssh,
# modbus, ldapserver, go-webdav, dhcp and pkg/sftp, then miekg/dns,
# goproxy, psql-wire and go-coap, since 2026-12-02; hashicorp/raft, sipgo
# and gosnmp since 2026-12-03), whose per-query tables are printed, and the
# held-out sets (hashicorp/memberlist, go-imap, glsp: heldout.Services, run
# by go test ./... below), whose summaries only are printed, after
# TestHeldOutIDsExist has checked that every id the sets expect exists;
# then the start-up cost of the search index. Prints the
# tables; fails below target (held-out sets: the missed targets are
# printed, a set under 50 % top-3 fails).
set -euo pipefail
cd "$(dirname "$0")/../.."
show() { grep -v -E '^(=== RUN|--- PASS|PASS$)'; }
go test -count=1 -v -run 'Quality' ./examples/codeserver | show
cd searcheval
go vet ./...
go test -count=1 -v ./... | show
# Benchmarks of code_search on a 50 000-entry catalog (CPU per query).
cd ..
go test -run XXX -bench 'BenchmarkSearch(Terms|Literal|50k)' -benchtime 200x ./codetools | grep -E '^(Benchmark|ok)'
