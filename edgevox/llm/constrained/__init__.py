"""Constrained decoding at the speed of free decoding.

A generation loop of our own over llama-cpp-python's low-level API, used by the
embedded backend whenever a grammar is set:

* **rejection first** -- the grammar is asked about the best few tokens only; the
  whole-vocabulary mask is computed only when that cannot decide (:mod:`.sampling`);
* **fast-forward** -- tokens the grammar forces are evaluated in one batched decode;
* **mask engines** -- llguidance when installed, llama.cpp's grammar otherwise
  (:mod:`.engine`, chosen in :mod:`.engines`), behind one interface;
* **triggered (lazy) grammars** -- free prose until a call marker, then the call grammar,
  described as data (:mod:`.lazy`).

Nothing here imports llama_cpp or llguidance at import time.
"""

from .engine import (
    GbnfSource,
    GrammarViolation,
    MaskEngine,
    Matcher,
    prepare_grammar,
)
from .engines import engine_for, make_engine
from .lazy import StructuralTag, TriggeredGrammar, lazy_tool_grammar
from .loop import ConstrainedGeneration, constrained_generate
from .sampling import Sampler, SamplingParams

__all__ = [
    "MaskEngine", "Matcher", "GrammarViolation", "GbnfSource", "make_engine", "engine_for",
    "prepare_grammar",
    "ConstrainedGeneration", "constrained_generate", "Sampler", "SamplingParams",
    "StructuralTag", "TriggeredGrammar", "lazy_tool_grammar",
]
