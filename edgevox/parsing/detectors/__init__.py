"""Built-in detectors, registered under the names presets use."""

from __future__ import annotations

from ..base import Detector, MultiDetector, register_detector
from .bare import BareJson
from .deepseek import DeepSeek
from .envelope import Envelope
from .gemma import Gemma
from .llama import Llama32, PythonTag
from .mistral import Mistral
from .pythonic import Pythonic
from .tagged import Hermes, Phi4, PipeToolCall
from .xmlfunc import Functionary, Qwen3Coder


class Qwen25(MultiDetector):
    """Qwen2.5 (hermes tags, ideally ``<tool_call>\\n{json}\\n</tool_call>``) plus the bare
    JSON / ```json fences that the small Qwen2.5-Coder models fall back to."""

    name = "qwen25"
    parts = (Hermes, BareJson)


class Xlam(BareJson):
    """Salesforce xLAM: a bare JSON array of calls or ``{"tool_calls": [...]}``."""

    name = "xlam"


class Granite(MultiDetector):
    """IBM Granite 3.x ``<|tool_call|>[…]`` and Granite 4 hermes tags."""

    name = "granite"
    parts = (PipeToolCall, Hermes)


BUILTIN: dict[str, type[Detector]] = {
    "hermes": Hermes,
    "qwen25": Qwen25,
    "llama32": Llama32,
    "mistral": Mistral,
    "pythonic": Pythonic,
    "xlam": Xlam,
    "granite": Granite,
    "gemma": Gemma,
    "phi4": Phi4,
    "functionary": Functionary,
    "qwen3_coder": Qwen3Coder,
    "envelope": Envelope,
    "deepseek": DeepSeek,
}

for _name, _cls in BUILTIN.items():
    register_detector(_name, _cls)

__all__ = [
    "BUILTIN",
    "BareJson",
    "DeepSeek",
    "Envelope",
    "Functionary",
    "Gemma",
    "Granite",
    "Hermes",
    "Llama32",
    "Mistral",
    "Phi4",
    "PythonTag",
    "Pythonic",
    "Qwen25",
    "Qwen3Coder",
    "Xlam",
]
