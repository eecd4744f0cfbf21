"""Which mask engine a loaded model gets, built once per model and preference.

Kept apart from :mod:`.engine` (the interface) because it imports both implementations,
which import the interface: the interface imports neither, so there is no import circle.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from .engine import MaskEngine

log = logging.getLogger(__name__)

__all__ = ["make_engine", "engine_for"]


def _llguidance_available() -> bool:
    try:
        import llguidance  # noqa: F401
        import llguidance.llamacpp  # noqa: F401
    except ImportError:
        return False
    return True


def make_engine(backend: Any, prefer: str = "llguidance") -> MaskEngine:
    """A mask engine for a loaded model: ``backend`` is a LlamaBackend or a ``llama_cpp.Llama``.

    ``prefer="llguidance"`` falls back to llama.cpp's grammar when llguidance is not
    importable; ``prefer="llama"`` always uses llama.cpp's grammar. Building the
    llguidance tokenizer takes about a second: use :func:`engine_for` to cache it.
    """
    llm = getattr(backend, "llm", backend)
    from .engine_llama import LlamaGrammarEngine

    llama_engine_factory: Callable[[], MaskEngine] = lambda: LlamaGrammarEngine(llm)  # noqa: E731
    if prefer == "llama":
        return llama_engine_factory()
    if prefer != "llguidance":
        raise ValueError(f"unknown mask engine {prefer!r}; expected 'llguidance' or 'llama'")
    if not _llguidance_available():
        log.info("llguidance is not installed: using llama.cpp's grammar sampler (slower masks, "
                 "no fast-forward); `pip install edgevox[fast]` to get it")
        return llama_engine_factory()
    from .engine_llg import LLGuidanceEngine

    return LLGuidanceEngine(llm, fallback=llama_engine_factory)


_ENGINE_ATTR = "_edgevox_mask_engines"
_engine_lock = threading.Lock()


def engine_for(backend: Any, prefer: str = "llguidance") -> MaskEngine:
    """The backend's cached engine (built on first use; one per model and preference)."""
    with _engine_lock:
        engines = getattr(backend, _ENGINE_ATTR, None)
        if engines is None:
            engines = {}
            setattr(backend, _ENGINE_ATTR, engines)
        engine = engines.get(prefer)
        if engine is None:
            engine = engines[prefer] = make_engine(backend, prefer)
        return engine
