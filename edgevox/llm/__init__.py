"""LLM backends, presets and chat templates.

`load_model` is the one entry point: a registered model name, a GGUF path, a server
URL or an already loaded backend all give an object with `complete` and `stream`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edgevox.llm.gguf import ModelFileError, read_gguf
from edgevox.llm.presets import Preset, PresetError, all_presets, detect_preset, get_preset
from edgevox.llm.types import (
    Backend,
    BackendError,
    Completion,
    ContextOverflow,
    TextStream,
)

__all__ = [
    "Backend", "BackendError", "Completion", "ContextOverflow", "ModelFileError", "Preset", "PresetError",
    "TextStream", "all_presets", "detect_preset", "get_preset", "load_model", "read_gguf", "supports_grammar",
]



def __getattr__(name: str) -> Any:
    """``supports_grammar`` now lives in ``edgevox.grammars`` (below llm, so grammars never
    imports llm); still importable from here, loaded only when asked for."""
    if name == "supports_grammar":
        from edgevox.grammars.structured import supports_grammar

        return supports_grammar
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_model(name_or_path: Any, preset: str | Preset | None = None, **opts: Any) -> Any:
    """Load a model by registry name, GGUF path or server URL; pass backends through.

    A registered name is pulled (and verified) on first use; its registry entry gives
    the default preset when none is passed.
    """
    if hasattr(name_or_path, "complete") and hasattr(name_or_path, "stream"):
        return name_or_path
    target = str(name_or_path)
    if target.startswith(("http://", "https://")):
        from edgevox.llm.remote import RemoteBackend

        return RemoteBackend(target, preset=preset, **opts)
    from edgevox.llm.llama_backend import LlamaBackend
    from edgevox.models import MODELS, ensure_model, get_spec

    if target in MODELS:
        spec = get_spec(target)
        return LlamaBackend(ensure_model(target), preset or spec.preset, **opts)
    path = Path(target).expanduser()
    if not path.exists() and not path.suffix:
        raise ModelFileError(f"{target!r} is neither a registered model nor an existing file; "
                             f"registered: {', '.join(sorted(MODELS))}")
    return LlamaBackend(path, preset, **opts)
