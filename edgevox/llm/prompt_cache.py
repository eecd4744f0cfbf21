"""A persisted prompt cache: the KV state of an agent's static prompt prefix, on disk.

Why: on a 2-core CPU a 500-800-token prefix (system prompt, tool schemas,
demonstrations) costs seconds to evaluate, and a fresh process would pay it before its
first word. The state llama.cpp holds after evaluating those tokens is a few MB; reading
it back takes milliseconds.

One file per entry under ``$EDGEVOX_HOME/prompt-cache/``, named by a key that covers
everything that changes the state: the model file's sha256, the preset, the context
settings (n_ctx, n_batch, n_ubatch, KV types, flash attention), the llama-cpp-python
version, and the exact token ids of the prefix. The file repeats the key, the tokens and
the sha256 of the state bytes in a JSON header, so a stale, truncated, corrupted or foreign
file is recognised, logged, deleted and rebuilt -- never loaded. The directory is bounded
(``EDGEVOX_PROMPT_CACHE_MB``, default 256): the least recently used entries go first.
``EDGEVOX_PROMPT_CACHE`` names another directory (benchmarks use an empty one).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["PromptCache", "model_sha256", "state_key"]

MAGIC = b"EDGEVOX-PROMPT-CACHE\n"
VERSION = 1
DEFAULT_LIMIT_MB = 256
_HASH_CHUNK = 1 << 20
_hash_lock = threading.Lock()


def cache_dir() -> Path:
    """``$EDGEVOX_PROMPT_CACHE`` if set, else ``$EDGEVOX_HOME/prompt-cache``
    (``~/.cache/edgevox/prompt-cache`` by default)."""
    from edgevox.models.pull import edgevox_home

    own = os.environ.get("EDGEVOX_PROMPT_CACHE")
    return Path(own).expanduser() if own else Path(edgevox_home()).expanduser() / "prompt-cache"


def model_sha256(path: str | Path, memo_dir: Path | None = None) -> str:
    """The model file's sha256: from the registry for a registered file of the pinned size,
    else hashed once and remembered by path, size and mtime (``hashes.json``)."""
    from edgevox.models.registry import MODELS

    p = Path(path).resolve()
    st = p.stat()
    for spec in MODELS.values():
        for f in spec.files:
            if f.sha256 and f.size == st.st_size and f.name == p.name:
                return f.sha256
    memo_file = (memo_dir or cache_dir()) / "hashes.json"
    stamp = f"{p}|{st.st_size}|{st.st_mtime_ns}"
    with _hash_lock:
        try:
            memo = json.loads(memo_file.read_text())
            if not isinstance(memo, dict):
                memo = {}
        except (OSError, ValueError):
            memo = {}
        if isinstance(memo.get(stamp), str):
            return memo[stamp]
        h = hashlib.sha256()
        with open(p, "rb") as fh:
            while chunk := fh.read(_HASH_CHUNK):
                h.update(chunk)
        memo[stamp] = h.hexdigest()
        _write_atomic(memo_file, json.dumps(memo, indent=1).encode())
        return memo[stamp]


def state_key(fields: dict[str, Any], tokens: list[int]) -> str:
    """The entry name: sha256 of the settings that shape the state and of the tokens."""
    blob = json.dumps({"v": VERSION, **fields, "tokens": tokens}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


class PromptCache:
    """Save and restore sequence 0's KV state of a ``Llama`` for a token prefix."""

    def __init__(self, directory: str | Path | None = None, limit_mb: float | None = None):
        self.dir = Path(directory) if directory is not None else cache_dir()
        if limit_mb is None:
            try:
                limit_mb = float(os.environ.get("EDGEVOX_PROMPT_CACHE_MB", DEFAULT_LIMIT_MB))
            except ValueError:
                limit_mb = DEFAULT_LIMIT_MB
        self.limit_bytes = int(limit_mb * 1024 * 1024)

    def path(self, key: str) -> Path:
        return self.dir / f"{key}.kv"

    # -- restore ----------------------------------------------------------------------

    def load(self, llm: Any, key: str, fields: dict[str, Any], tokens: list[int]) -> bool:
        """Restore the state into ``llm`` (sequence 0, the context cleared first). False
        when there is no usable entry; a bad entry is logged and deleted, never loaded."""
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return False
        except OSError as exc:
            log.warning("prompt cache: cannot read %s (%s); evaluating the prefix", path.name, exc)
            return False
        data = self._check(raw, key, fields, tokens, path)
        if data is None:
            self._discard(path)
            return False
        if not write_seq_state(llm, data, tokens):
            log.warning("prompt cache: llama.cpp refused %s (%d bytes); evaluating the prefix", path.name, len(data))
            self._discard(path)
            return False
        try:
            os.utime(path)  # most recently used: evicted last
        except OSError:
            pass
        return True

    def _check(self, raw: bytes, key: str, fields: dict[str, Any], tokens: list[int],
               path: Path) -> bytes | None:
        def bad(why: str) -> None:
            log.warning("prompt cache: ignoring %s (%s); evaluating the prefix again", path.name, why)

        if not raw.startswith(MAGIC):
            return bad("not a prompt-cache file")
        end = raw.find(b"\n", len(MAGIC))
        if end < 0:
            return bad("truncated header")
        try:
            head = json.loads(raw[len(MAGIC):end])
        except ValueError:
            return bad("unreadable header")
        if not isinstance(head, dict) or head.get("version") != VERSION:
            return bad("another format version")
        if head.get("key") != key or head.get("fields") != json.loads(json.dumps(fields)):
            return bad("written for another model or settings")
        if head.get("tokens") != tokens:
            return bad("written for another prompt")
        data = raw[end + 1:]
        if len(data) != head.get("size"):
            return bad(f"truncated: {len(data)} of {head.get('size')} bytes")
        if hashlib.sha256(data).hexdigest() != head.get("sha256"):
            return bad("corrupted: checksum mismatch")
        return data

    # -- save -------------------------------------------------------------------------

    def save(self, llm: Any, key: str, fields: dict[str, Any], tokens: list[int]) -> bool:
        """Write sequence 0's state (which must hold exactly ``tokens``); evict old entries."""
        data = read_seq_state(llm)
        if data is None:
            log.warning("prompt cache: llama.cpp returned no state for the prefix; not saved")
            return False
        head = {"version": VERSION, "key": key, "fields": fields, "tokens": tokens,
                "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        try:
            _write_atomic(self.path(key), MAGIC + json.dumps(head).encode() + b"\n" + data)
            self.evict()
        except OSError as exc:
            log.warning("prompt cache: cannot write %s (%s)", self.path(key), exc)
            return False
        return True

    def evict(self) -> list[Path]:
        """Delete the least recently used entries until the directory fits the limit."""
        try:
            entries = [(p.stat().st_mtime_ns, p.stat().st_size, p) for p in self.dir.glob("*.kv")]
        except OSError:
            return []
        total = sum(s for _, s, _ in entries)
        gone = []
        for _, size, p in sorted(entries):
            if total <= self.limit_bytes:
                break
            self._discard(p)
            total -= size
            gone.append(p)
        return gone

    @staticmethod
    def _discard(path: Path) -> None:
        try:
            path.unlink()
        except OSError:
            pass


def _write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same directory, then rename: readers never see half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_seq_state(llm: Any) -> bytes | None:
    """Sequence 0's KV state as bytes (None when llama.cpp returns none): what the prompt
    cache writes to disk and ``LlamaBackend.kept_state`` holds across a side generation."""
    import llama_cpp

    ctx = llm._ctx.ctx
    size = llama_cpp.llama_state_seq_get_size(ctx, 0)
    buf = (ctypes.c_uint8 * size)()
    n = llama_cpp.llama_state_seq_get_data(ctx, buf, size, 0)
    return bytes(buf)[:n] if 0 < n <= size else None


def write_seq_state(llm: Any, data: bytes, tokens: list[int]) -> bool:
    """Clear the context and set sequence 0 to ``data``, a state holding ``tokens``. False
    when llama.cpp refuses it: the context is then left empty (correct, only slower)."""
    import llama_cpp

    llm._ctx.kv_cache_clear()
    llm.n_tokens = 0
    buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
    if llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buf, len(data), 0) != len(data):
        llm._ctx.kv_cache_clear()
        return False
    llm.input_ids[: len(tokens)] = tokens
    llm.n_tokens = len(tokens)
    return True
