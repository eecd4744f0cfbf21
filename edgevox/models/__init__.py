"""Model registry and cache: `ensure_model(name)` returns a verified local path."""

from edgevox.models.pull import (
    ModelPullError,
    edgevox_home,
    ensure_model,
    is_pulled,
    model_path,
    pull,
    sha256_file,
)
from edgevox.models.registry import (
    DEFAULT_LLM,
    DEFAULT_STT,
    DEFAULT_TTS,
    MODELS,
    ModelSpec,
    UnknownModel,
    get_spec,
)

__all__ = [
    "DEFAULT_LLM", "DEFAULT_STT", "DEFAULT_TTS", "MODELS", "ModelPullError", "ModelSpec",
    "UnknownModel", "edgevox_home", "ensure_model", "get_spec", "is_pulled", "model_path",
    "pull", "sha256_file",
]
