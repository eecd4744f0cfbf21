"""A small GGUF header reader: metadata and a truncation check without loading weights.

Why our own: llama.cpp reports a bad file as "failed to load model" at best. Reading
the header first lets EdgeVox say *which* problem it is (not a GGUF, truncated), and
gives the chat template and architecture for preset detection.
Format facts from the GGUF specification (ggml docs/gguf.md).

Measured against the ggml project's ``gguf`` package (``GGUFReader``) side by side
(``benchmarks/bench_libraries.py``, the 491 MB Qwen2.5-Coder GGUF): the same values for
every metadata key, read about 25x faster (``GGUFReader`` maps and indexes every tensor),
no import cost, and a truncated file is named as such where ``GGUFReader`` fails with a
numpy dtype error; the package would add 5.7 MB with pyyaml, requests and tqdm. So ours stays.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO


class ModelFileError(ValueError):
    """The model file is missing, not a GGUF, truncated or otherwise unreadable."""


_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_STRING = 64 << 20
_MAX_ARRAY = 16 << 20


@dataclass
class GGUFInfo:
    """What the header says: metadata (large arrays skipped) and where tensor data ends."""

    path: Path
    version: int
    metadata: dict[str, Any] = field(default_factory=dict)
    n_tensors: int = 0
    data_offset: int = 0
    max_tensor_offset: int = 0

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", ""))

    @property
    def chat_template(self) -> str | None:
        value = self.metadata.get("tokenizer.chat_template")
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str:
        return str(self.metadata.get("general.name", self.path.stem))


def _read(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise EOFError
    return data


def _string(f: BinaryIO) -> str:
    (n,) = struct.unpack("<Q", _read(f, 8))
    if n > _MAX_STRING:
        raise ModelFileError("GGUF header holds an implausibly long string; the file is corrupt")
    return _read(f, n).decode("utf-8", errors="replace")


def _value(f: BinaryIO, vtype: int, keep: bool = True) -> Any:
    if vtype in _SCALARS:
        fmt = _SCALARS[vtype]
        return struct.unpack(fmt, _read(f, struct.calcsize(fmt)))[0]
    if vtype == _STRING:
        return _string(f)
    if vtype == _ARRAY:
        (etype,) = struct.unpack("<I", _read(f, 4))
        (n,) = struct.unpack("<Q", _read(f, 8))
        if n > _MAX_ARRAY:
            raise ModelFileError("GGUF header holds an implausibly long array; the file is corrupt")
        if etype in _SCALARS and not keep:
            f.seek(n * struct.calcsize(_SCALARS[etype]), 1)
            return None
        items = [_value(f, etype, keep) for _ in range(n)]
        return items if keep else None
    raise ModelFileError(f"GGUF header holds an unknown value type {vtype}; the file is corrupt")


def read_gguf(path: str | Path) -> GGUFInfo:
    """Read a GGUF header; raise ModelFileError naming the problem."""
    p = Path(path)
    if not p.exists():
        raise ModelFileError(f"model file not found: {p}")
    if not p.is_file():
        raise ModelFileError(f"model path is not a file: {p}")
    size = p.stat().st_size
    try:
        with p.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise ModelFileError(f"{p} is not a GGUF file (wrong magic bytes)")
            version, n_tensors, n_kv = struct.unpack("<IQQ", _read(f, 20))
            if version not in (2, 3):
                raise ModelFileError(f"{p} is GGUF version {version}; only versions 2 and 3 are supported")
            info = GGUFInfo(p, version, n_tensors=n_tensors)
            for _ in range(n_kv):
                key = _string(f)
                (vtype,) = struct.unpack("<I", _read(f, 4))
                keep = not key.startswith("tokenizer.ggml.")  # vocab arrays: skip, they are huge
                info.metadata[key] = _value(f, vtype, keep)
            max_end = 0
            for _ in range(n_tensors):
                _string(f)
                (n_dims,) = struct.unpack("<I", _read(f, 4))
                _read(f, 8 * n_dims + 4)
                (offset,) = struct.unpack("<Q", _read(f, 8))
                max_end = max(max_end, offset)
            align = int(info.metadata.get("general.alignment", 32) or 32)
            pos = f.tell()
            info.data_offset = (pos + align - 1) // align * align
            info.max_tensor_offset = max_end
    except EOFError:
        raise ModelFileError(f"{p} is truncated: the GGUF header ends early ({size} bytes)") from None
    except OSError as exc:
        raise ModelFileError(f"cannot read {p}: {exc.strerror}") from None
    if n_tensors and size <= info.data_offset + info.max_tensor_offset:
        raise ModelFileError(f"{p} is truncated: tensor data ends past the file's {size} bytes")
    return info
