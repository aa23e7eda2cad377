#!/usr/bin/env python3
"""Learn a linear query-to-code alignment W for a static embedding table.

A staticembed table embeds a text as the normalized mean of its tokens'
rows, so a linear map W applied to the text's vector is the same as W
applied to every row: the table E becomes E·W, with no change at query
time. W is learned on the tuning sets of searcheval (the export command
writes them: queries, the ids they expect, and every declaration of the
service's snapshot with the text code_search embeds), so that
cos(W·q, W·d) ranks an expected declaration above the service's others:
a softmax over all the service's declarations (temperature --tau), the
loss the negative log of the expected ones' share, W = I + A with
--decay·|A|² pulling it toward the identity, full-batch Adam.

  align.py cv    --data train.jsonl --table T.semb [options]
      leave-one-set-out cross-validation: for each of the sets, W is
      trained on the others and the set's phrase queries are ranked
      among its service's declarations by cosine alone; prints recall
      at 1, 3 and 10 before and after, per set and in total.
  align.py build --data train.jsonl --table T.semb --out DIR [options]
      trains W on every set and writes DIR/table.semb (E·W, int8, the
      format distill.py writes), DIR/NOTICE and DIR/table.json.

Only numpy. The result depends only on the inputs (single-threaded
BLAS, fixed steps, no randomness).
"""

import argparse
import gzip
import hashlib
import json
import os
import struct
import sys
import time
import zlib

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from distill import write_table  # noqa: E402


def read_table(path):
    """Reads a .semb table (plain or gzip): tokens, float32 rows, flags, notice."""
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    body, crc = data[:-4], struct.unpack("<I", data[-4:])[0]
    if data[:4] != b"SEMB" or zlib.crc32(body) & 0xFFFFFFFF != crc:
        sys.exit(f"align: {path} is not a table file")
    _, flags, n, dims = struct.unpack("<IIII", body[4:20])
    p = 20

    def uvarint():
        nonlocal p
        x, s = 0, 0
        while True:
            b = body[p]
            p += 1
            x |= (b & 0x7F) << s
            if b < 0x80:
                return x
            s += 7

    def string():
        nonlocal p
        ln = uvarint()
        s = body[p:p + ln].decode()
        p += ln
        return s

    notice = string()
    unk = string()
    tokens = [string() for _ in range(n)]
    scale = np.frombuffer(body[p:p + 4 * dims], "<f4")
    p += 4 * dims
    q = np.frombuffer(body[p:p + n * dims], np.int8).reshape(n, dims)
    return tokens, q.astype(np.float32) * scale, flags, notice, unk


class Service:
    """One tuning set: the bags of tokens of its declarations and queries."""

    def __init__(self, rec, vocab, emb):
        self.name = rec["service"]
        ids = {d["id"]: i for i, d in enumerate(rec["decls"])}
        self.xd = bags([d["tokens"] for d in rec["decls"]], vocab, emb)
        qs = [q for q in rec["queries"] if q["kind"] == "phrase" or q["phrase"]]
        self.kinds = [q["kind"] for q in qs]
        self.texts = [q["text"] for q in qs]
        self.want = [[ids[w] for w in q["want"] if w in ids] for q in qs]
        self.xq = bags([q["tokens"] for q in qs], vocab, emb)
        self.missing = sum(1 for w in self.want if not w)

    def candidates(self, hard, rand, seed):
        """The declarations the training softmax runs over: every expected
        one, the hard nearest ones of each query by the table as it is,
        and rand others drawn at random (seeded by the set's name)."""
        keep = set(i for w in self.want for i in w)
        if hard:
            zq, _ = normalize(self.xq)
            zd, _ = normalize(self.xd)
            S = zq @ zd.T
            k = min(hard, S.shape[1] - 1)
            for row in np.argpartition(-S, k, axis=1)[:, :k]:
                keep.update(int(i) for i in row)
        if not hard and not rand:
            self.cxd, self.cwant = self.xd, self.want
            return
        rng = np.random.default_rng(zlib.crc32(self.name.encode()) + seed)
        keep.update(int(i) for i in rng.choice(len(self.xd), min(rand, len(self.xd)), replace=False))
        idx = np.array(sorted(keep))
        pos = {int(i): j for j, i in enumerate(idx)}
        self.cxd = self.xd[idx]
        self.cwant = [[pos[i] for i in w] for w in self.want]

    def train_mask(self):
        return np.array([bool(w) for w in self.want])

    def phrase_mask(self):
        return np.array([k == "phrase" for k in self.kinds])


def bags(token_lists, vocab, emb):
    """The sum of the rows of each text's tokens (its mean, unnormalized)."""
    x = np.zeros((len(token_lists), emb.shape[1]), np.float32)
    for i, toks in enumerate(token_lists):
        rows = [vocab[t] for t in toks if t in vocab]
        if rows:
            x[i] = emb[rows].sum(0)
    return x


def normalize(z):
    n = np.linalg.norm(z, axis=1, keepdims=True)
    n[n == 0] = 1
    return z / n, n


def norm_back(g, zh, n):
    """Gradient through z -> z/|z| (zh = z/|z|)."""
    return (g - zh * (g * zh).sum(1, keepdims=True)) / n


def loss_grad(W, svcs, tau):
    """The mean contrastive loss over the services' queries and its gradient in W."""
    gW = np.zeros_like(W)
    total, count = 0.0, 0
    for s in svcs:
        m = s.train_mask()
        if not m.any():
            continue
        xq = s.xq[m]
        want = [w for w, k in zip(s.cwant, m) if k]
        zq, nq = normalize(xq @ W)
        zd, nd = normalize(s.cxd @ W)
        S = tau * (zq @ zd.T)
        S -= S.max(1, keepdims=True)
        e = np.exp(S)
        p = e / e.sum(1, keepdims=True)
        g = p.copy()
        for j, w in enumerate(want):
            pw = p[j, w]
            total += -np.log(pw.sum() + 1e-30)
            g[j, w] -= pw / pw.sum()
        count += len(want)
        gq = tau * (g @ zd)
        gd = tau * (g.T @ zq)
        gW += xq.T @ norm_back(gq, zq, nq) + s.cxd.T @ norm_back(gd, zd, nd)
    return total, count, gW


def train(svcs, dims_in, dims_out, a):
    """W (dims_in x dims_out), from the identity's first columns, by full-batch Adam."""
    W0 = np.eye(dims_in, dims_out, dtype=np.float32)
    A = np.zeros_like(W0)
    m = np.zeros_like(A)
    v = np.zeros_like(A)
    n = sum(int(s.train_mask().sum()) for s in svcs)
    for step in range(1, a.steps + 1):
        loss, count, g = loss_grad(W0 + A, svcs, a.tau)
        g = g / n + 2 * a.decay * A
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        A -= a.lr * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
        if a.verbose and (step % 50 == 0 or step == 1):
            print(f"  step {step}: loss {loss / max(count, 1):.4f} |A| {np.linalg.norm(A):.3f}", file=sys.stderr)
    return W0 + A


def ranks(W, s):
    """The 1-based rank of each query's first expected declaration (0: none expected)."""
    zq, _ = normalize(s.xq @ W)
    zd, _ = normalize(s.xd @ W)
    S = zq @ zd.T
    out = []
    for j, w in enumerate(s.want):
        if not w:
            out.append(0)
            continue
        best = S[j, w].max()
        out.append(int((S[j] > best).sum()) + 1)
    return np.array(out)


def recall(r, mask):
    r = r[mask]
    return [int(((r >= 1) & (r <= k)).sum()) for k in (1, 3, 10)], int(mask.sum())


def load(a):
    tokens, emb, flags, notice, unk = read_table(a.table)
    vocab = {t: i for i, t in enumerate(tokens)}
    svcs = []
    with open(a.data) as f:
        for line in f:
            svcs.append(Service(json.loads(line), vocab, emb))
    for s in svcs:
        s.candidates(a.hard, a.rand, 0)
    return tokens, emb, flags, notice, unk, svcs


def cmd_cv(a):
    _, emb, _, _, _, svcs = load(a)
    dims_in = emb.shape[1]
    dims_out = a.dims or dims_in
    tb, ta = np.zeros(3, int), np.zeros(3, int)
    tn = 0
    ident = np.eye(dims_in, dtype=np.float32)
    print(f"# cv: tau {a.tau} decay {a.decay} lr {a.lr} steps {a.steps} dims {dims_out}")
    print("| set | phrases | before @1/@3/@10 | after @1/@3/@10 |")
    print("| --- | ---: | ---: | ---: |")
    t0 = time.time()
    for i, s in enumerate(svcs):
        if a.only and s.name not in a.only.split(","):
            continue
        W = train([x for j, x in enumerate(svcs) if j != i], dims_in, dims_out, a)
        mask = s.phrase_mask()
        b, n = recall(ranks(ident, s), mask)
        r, _ = recall(ranks(W, s), mask)
        tb += b
        ta += r
        tn += n
        print(f"| {s.name} | {n} | {'/'.join(map(str, b))} | {'/'.join(map(str, r))} |", flush=True)
    print(f"| all | {tn} | {'/'.join(map(str, tb))} | {'/'.join(map(str, ta))} |")
    pct = lambda x: "/".join(f"{100 * v / max(tn, 1):.1f}" for v in x)
    print(f"# recall@1/3/10 %: before {pct(tb)}, after {pct(ta)} ({time.time() - t0:.0f} s)")


NOTICE_ALIGN = """\
Further changes: the table was multiplied by a {din}x{dout} matrix learned on
this project's tuning queries (searcheval's tuning sets: questions and the
declarations that answer them), so that a question's vector lies nearer to
the code that answers it (searcheval/embedtable/align.py).
"""


def cmd_build(a):
    tokens, emb, flags, notice, unk, svcs = load(a)
    dims_in = emb.shape[1]
    dims_out = a.dims or dims_in
    t0 = time.time()
    if a.fold:
        k, n = map(int, a.fold.split("/"))
        held = [s.name for i, s in enumerate(svcs) if i % n == k]
        svcs = [s for i, s in enumerate(svcs) if i % n != k]
        print(f"build: fold {a.fold}, not trained on {', '.join(held)}", file=sys.stderr)
    W = train(svcs, dims_in, dims_out, a)
    out = (emb @ W).astype(np.float32)
    os.makedirs(a.out, exist_ok=True)
    notice = notice.rstrip("\n") + "\n" + NOTICE_ALIGN.format(din=dims_in, dout=dims_out)
    path = os.path.join(a.out, "table.semb")
    size, q, scale = write_table(path, tokens, out, notice, flags=flags, unk=unk)
    with open(os.path.join(a.out, "NOTICE"), "w") as f:
        f.write(notice)
    np.save(os.path.join(a.out, "W.npy"), W)
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    info = {"base_table": os.path.basename(a.table), "tau": a.tau, "decay": a.decay, "lr": a.lr, "steps": a.steps,
            "dims": dims_out, "vocab": len(tokens), "bytes": size, "sha256": digest,
            "fold": a.fold or "", "train_sets": [s.name for s in svcs],
            "train_queries": int(sum(s.train_mask().sum() for s in svcs)),
            "seconds": round(time.time() - t0, 1)}
    with open(os.path.join(a.out, "table.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(info, sort_keys=True))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=["cv", "build"])
    ap.add_argument("--data", required=True, help="the export command's output")
    ap.add_argument("--table", required=True, help="the table to align (.semb, plain or gzip)")
    ap.add_argument("--out", help="build: output directory")
    ap.add_argument("--dims", type=int, default=0, help="output dimensions (default: the table's)")
    ap.add_argument("--tau", type=float, default=20.0, help="softmax temperature (scale of the cosines)")
    ap.add_argument("--decay", type=float, default=0.1, help="weight of |W - I|^2")
    ap.add_argument("--lr", type=float, default=2e-3, help="Adam step size")
    ap.add_argument("--steps", type=int, default=60, help="full-batch steps")
    ap.add_argument("--hard", type=int, default=200, help="nearest declarations of each query kept as negatives (0: all declarations)")
    ap.add_argument("--rand", type=int, default=1000, help="random declarations of each set kept as negatives")
    ap.add_argument("--fold", help="build: K/N trains on the sets whose index modulo N is not K (the others are held out)")
    ap.add_argument("--only", help="cv: only these sets (comma-separated service names)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if a.cmd == "build" and not a.out:
        sys.exit("align: build needs --out")
    {"cv": cmd_cv, "build": cmd_build}[a.cmd](a)


if __name__ == "__main__":
    main()
