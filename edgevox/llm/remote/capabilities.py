"""What a remote server can do, learnt once per backend.

Cheap facts first (GET /v1/models, GET /props), then a tiny generation per feature,
only when a request first needs that feature:

* tools: the same one-token request with and without a probe tool. A server that
  renders tools into the prompt reports more prompt tokens with them; the same count
  means it silently dropped them (llama-cpp-python with a template that ignores
  tools), a 4xx means it refuses them. Either way tools then go into the prompt.
* grammar: a grammar that admits only "ok-7". The first request field whose reply is
  exactly that is the one this server obeys; unknown fields are often ignored without
  an error (vLLM, llama-cpp-python), which is why the reply is checked, not the status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: request field -> the name recorded in Completion.info["grammar_path"]
GRAMMAR_PATHS = {
    "grammar": "llama.cpp-grammar",
    "structured_outputs": "vllm-structured",
    "guided_grammar": "vllm-guided",
}
PROBE_WORD = "ok-7"
PROBE_GRAMMAR = f'root ::= "{PROBE_WORD}"'
PROBE_TOOL = {"type": "function", "function": {
    "name": "edgevox_probe", "description": "Capability probe; never call it.",
    "parameters": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}}


@dataclass
class Capabilities:
    """Probe results; None means "not probed yet"."""

    server: str = "unknown"  # llama.cpp | llama-cpp-python | vllm | sglang | unknown
    models: tuple[str, ...] = ()
    chat_template: str | None = None
    n_ctx: int | None = None
    native_tools: bool | None = None
    tools_with_grammar: bool | None = None
    grammar_field: str | None = None
    grammar_probed: bool = False
    #: the server refused a schema-aware tool grammar: send the structural one instead
    schema_grammar_refused: bool = False
    rejected_formats: set[str] = field(default_factory=set)
    ignored_formats: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "server": self.server, "models": list(self.models), "n_ctx": self.n_ctx,
            "has_chat_template": self.chat_template is not None,
            "native_tools": self.native_tools, "tools_with_grammar": self.tools_with_grammar,
            "grammar_path": (GRAMMAR_PATHS.get(self.grammar_field, "none") if self.grammar_probed
                             else None),
            "schema_grammar_refused": self.schema_grammar_refused,
            "rejected_formats": sorted(self.rejected_formats),
            "ignored_formats": sorted(self.ignored_formats), "notes": list(self.notes),
        }


def read_models(obj: Any, caps: Capabilities) -> None:
    """Fill server kind, model ids and context size from a /v1/models answer."""
    data = obj.get("data") if isinstance(obj, dict) else None
    if not isinstance(data, list):
        return
    ids = []
    for entry in data:
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get("id"), str):
            ids.append(entry["id"])
        owner = str(entry.get("owned_by", "")).lower()
        if owner in ("vllm", "sglang"):
            caps.server = owner
        elif owner == "llamacpp":
            caps.server = "llama.cpp"
        elif owner == "me" and caps.server == "unknown":  # llama-cpp-python's fixed value
            caps.server = "llama-cpp-python"
        n = entry.get("max_model_len") or (entry.get("meta") or {}).get("n_ctx_train")
        if isinstance(n, int) and n > 0 and caps.n_ctx is None:
            caps.n_ctx = n
    caps.models = tuple(ids)


def read_props(obj: Any, caps: Capabilities) -> None:
    """llama.cpp's /props: the chat template and the slot context size."""
    if not isinstance(obj, dict):
        return
    caps.server = "llama.cpp"
    template = obj.get("chat_template")
    if isinstance(template, str) and template.strip():
        caps.chat_template = template
    settings = obj.get("default_generation_settings")
    n = settings.get("n_ctx") if isinstance(settings, dict) else None
    if isinstance(n, int) and n > 0:
        caps.n_ctx = n  # the slot's real window beats the training length from /v1/models


def grammar_candidates(server: str) -> tuple[str, ...]:
    """Grammar request fields to try, most likely first."""
    if server == "vllm":
        return ("structured_outputs", "guided_grammar")
    if server in ("llama.cpp", "llama-cpp-python"):
        return ("grammar",)
    return ("grammar", "structured_outputs", "guided_grammar")


def put_grammar(body: dict, field_name: str, gbnf: str) -> None:
    """Put a GBNF grammar into a request body under the given field."""
    if field_name == "structured_outputs":
        body["structured_outputs"] = {"grammar": gbnf}
    else:
        body[field_name] = gbnf
