"""EdgeVox: an on-device voice and agent runtime for GGUF models."""

__version__ = "0.1.0"
