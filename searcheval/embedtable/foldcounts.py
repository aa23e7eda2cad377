#!/usr/bin/env python3
"""Counts of searcheval's tuning-set logs, per embedder and out of fold.

  foldcounts.py TABLES_DIR LOG...

LOG: the output of `go test -v -run TestTuningQuality ./heldout` with
SEARCHEVAL_SHOW_QUERIES unset (the tuning sets print their per-query
tables). Prints top-1/top-3/top-10 counts per embedder and kind. For the
tables that `align.py build --fold K/N` wrote (directories named foldK-N
under TABLES_DIR, each with its table.json), it also prints the counts
out of fold: each set counted only with the table not trained on it, and
the other embedders' counts on the same sets.
"""

import collections
import json
import os
import re
import sys

KINDS = ("all", "phrase", "message", "std", "host", "dep")


def read(logs):
    res = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0, 0, 0]))
    order = []
    for fn in logs:
        cur = None
        for line in open(fn):
            m = re.match(r"TUNING code_search over (.+?), (.+?) \(\d+ queries", line)
            if m and m.group(1) != "the tuning sets":
                cur = (m.group(2), m.group(1))
                if cur[1] not in order:
                    order.append(cur[1])
                continue
            if cur and line.startswith("| ") and " | `" in line:
                parts = [p.strip() for p in line.strip().strip("|").split(" | ")]
                rank = 99 if parts[2] == "-" else int(parts[2])
                for k in (parts[0], "all"):
                    c = res[cur][k]
                    c[0] += 1
                    c[1] += rank <= 1
                    c[2] += rank <= 3
                    c[3] += rank <= 10
    return res, order


def show(res, label, keys):
    tot = collections.defaultdict(lambda: [0, 0, 0, 0])
    for key in keys:
        for k, c in res[key].items():
            for i in range(4):
                tot[k][i] += c[i]
    cells = [f"{tot[k][1]}/{tot[k][2]}/{tot[k][3]} of {tot[k][0]}" for k in KINDS]
    print(f"| {label} | " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tables, logs = sys.argv[1], sys.argv[2:]
    res, sets = read(logs)
    embs = sorted(set(e for e, _ in res))
    print("| embedder | " + " | ".join(KINDS) + " |")
    print("| --- |" + " ---: |" * len(KINDS))
    for e in embs:
        show(res, e, [(e, s) for s in sets if (e, s) in res])
    folds = [e for e in embs if re.fullmatch(r"table fold\d+-\d+", e)]
    if not folds:
        return
    keys = []
    for e in folds:
        info = json.load(open(os.path.join(tables, e.split(" ", 1)[1], "table.json")))
        keys += [(e, s) for s in sets if s not in info["train_sets"] and (e, s) in res]
    show(res, "out of fold", keys)
    for e in embs:
        if e not in folds:
            show(res, f"{e}, same sets", [(e, s) for _, s in keys])


if __name__ == "__main__":
    main()
