#!/usr/bin/env python3
"""Writes the test data of the Go package staticembed (its testdata directory):

  wordpiece.json  a small WordPiece vocabulary and a fixed list of strings with
                  the tokens the Hugging Face tokenizer (BertNormalizer,
                  BertPreTokenizer, WordPiece) cuts them into, with that
                  vocabulary and with the encoder's full one
  tiny.semb       a 40-token, 8-dimension table written by distill.write_table
  tiny.json       the vectors model2vec's inference gives for a few texts with it

The output depends only on the inputs.
"""

import argparse
import json
import os
import sys

import numpy as np
from tokenizers import Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordPiece

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import distill  # noqa: E402

CASES = [
    "how do I close a session",
    "The server returns an error when the request is too large.",
    "ServeHTTP writeHeader http.Handler",
    "parse_dns_message(header, body) -> (*Message, error)",
    "Résumé of a café, naïve coöperation, Ångström",
    "ÉCOLE façade São Paulo Zürich İstanbul",
    "tabs\tnewlines\nand\r\nreturns",
    "non\u00a0breaking\u2003em space\u3000ideographic",
    "zero\u200bwidth\u200djoiner\ufeffbom\u00adsoft hyphen",
    "control\x00nul\x07bell\x1bescape\x7fdel",
    "中文字符和日本語のテキスト",
    "한국어 텍스트",
    "Ελληνικά κείμενα ΣΊΣΥΦΟΣ",
    "русский текст Ёлка",
    "emoji 🙂 and symbols $+<=>^`|~ ©®™ ±×÷ € £",
    "quotes “curly” ‘single’ «guillemets» — dash – en…",
    "unsupervisedpretrainingoflanguagerepresentations",
    "a" * 99 + " " + "b" * 100 + " " + "c" * 101,
    "x" * 150,
    "numbers 3.14159 1e-9 0x1F 1,000,000 42nd",
    "URL https://example.com/path?q=1&r=two#frag",
    "email someone@example.org, @mention #hashtag",
    "TLS handshake timeout; retry with exponential backoff",
    "what limits the size of a DHCP lease table?",
    "Ǆ ǅ ǆ ﬁ ﬂ ß ẞ Ⅻ ① ｆｕｌｌｗｉｄｔｈ",
    "combining e\u0301 a\u0300 o\u0308 n\u0303 stacked a\u0301\u0302\u0303",
    "arabic نص عربي hebrew טקסט",
    "devanagari हिन्दी thai ภาษาไทย",
    "",
    "   ",
    "!!!???...",
    "don't can't won't it's",
    "C++ C# F# .NET node.js",
    "snake_case kebab-case PascalCase camelCase SCREAMING_CASE",
]


def bert_tokenizer(vocab):
    tk = Tokenizer(WordPiece(vocab=vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tk.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                               strip_accents=None, lowercase=True)
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tk


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="directory with the encoder's tokenizer.json")
    ap.add_argument("--out", required=True, help="the testdata directory")
    a = ap.parse_args()
    with open(os.path.join(a.model, "tokenizer.json")) as f:
        full = json.load(f)["model"]["vocab"]
    full_tk = bert_tokenizer(full)
    full_tokens = [full_tk.encode(c, add_special_tokens=False).tokens for c in CASES]
    # The small vocabulary: the first 3000 ids, every single character and
    # its ## form, and the tokens of the cases, in id order.
    keep = {t for t, i in full.items() if i < 3000}
    keep |= {t for t in full if len(t) == 1 or (t.startswith("##") and len(t) == 3)}
    for ts in full_tokens:
        keep |= set(ts)
    # Leave some words' longest pieces out, so that shorter ones are chosen.
    for t in ("##ing", "##tion", "session", "request"):
        keep.discard(t)
    small = {t: i for i, t in enumerate(sorted(keep, key=lambda t: full[t]))}
    small_tk = bert_tokenizer(small)
    cases = []
    for c, ft in zip(CASES, full_tokens):
        cases.append({"text": c, "tokens": small_tk.encode(c, add_special_tokens=False).tokens, "full": ft})
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "wordpiece.json"), "w") as f:
        json.dump({"vocab": list(small), "cases": cases}, f, ensure_ascii=False, indent=0)
        f.write("\n")

    # A tiny table with known vectors, and what model2vec's inference (mean
    # of the known tokens' rows, normalized) gives with it.
    words = ["the", "server", "client", "close", "open", "session", "request", "error", "large",
             "small", "##s", "##ed", "##ing", "dns", "message", "parse", "header", "body", "café",
             "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "r",
             "s", "t", "u", "."]
    rng = np.random.default_rng(43)
    vecs = rng.normal(size=(len(words), 8)).astype(np.float32)
    vecs[:, 3] *= 10  # dimensions of different scales
    vecs[:, 5] *= 0.01
    path = os.path.join(a.out, "tiny.semb")
    _, q, scale = distill.write_table(path, words, vecs, "Test table: no model, no licence.\n")
    deq = q.astype(np.float64) * scale
    tiny_tk = bert_tokenizer({**{w: i for i, w in enumerate(words)}, "[UNK]": len(words)})
    out = []
    for text in ["close the session", "Closed sessions.", "parse DNS message header", "Café", "xyz qqq", ""]:
        ids = [i for i in tiny_tk.encode(text, add_special_tokens=False).ids if i < len(words)]
        v = deq[ids].mean(axis=0) if ids else np.zeros(8)
        n = np.linalg.norm(v)
        out.append({"text": text, "vector": [round(float(x), 6) for x in (v / n if n else v)]})
    with open(os.path.join(a.out, "tiny.json"), "w") as f:
        json.dump(out, f, ensure_ascii=False, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
