"""Run BFCL cases single-turn through a real model and score them with the AST checker.

Two engines produce the raw model output:

* :class:`EdgeVoxEngine` -- the EdgeVox stack: the model's own chat template with the
  case's tools, the grammar the policy asks for, the preset's parser chain.
* :class:`PeerEngine` -- llama-cpp-python's own tool calling
  (``chat_format="chatml-function-calling"``), what a user gets without EdgeVox.

Scoring (:func:`score_edgevox`, :func:`score_peer`) is separate from generation so that
``replay`` can re-parse and re-score recorded raw text with the current code and no model.

BFCL names may contain dots; the model sees sanitized names (``math_factorial``) and
calls are mapped back to BFCL's spelling with :meth:`Case.name_map` before checking.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from edgevox.agents.own_layout import LIST_INSTRUCTIONS
from edgevox.bfcl.checker import check
from edgevox.bfcl.data import Case
from edgevox.bfcl.report import read_records
from edgevox.formats import call_openers, gemma, hermes

log = logging.getLogger(__name__)

__all__ = [
    "RUN_POLICIES",
    "SYSTEM_PROMPTS",
    "EdgeVoxEngine",
    "Engine",
    "PeerEngine",
    "RunConfigError",
    "looks_like_call",
    "no_answer",
    "run_cases",
    "score_edgevox",
    "score_peer",
]

#: What grammar a BFCL run decodes under (not the agent's tool_choice policies, which are
#: edgevox.grammars.POLICIES): none, the reply-or-calls union, or calls only.
RUN_POLICIES = ("auto", "reply_or_tool", "required")

#: Named system prompts for ``--system``; anything else given there is used verbatim.
#: "none" keeps the template's own default system text.
SYSTEM_PROMPTS: dict[str, str | None] = {
    "none": None,
    "bfcl": (
        "You are an expert in composing functions. You are given a question and a set of "
        "possible functions. Based on the question, make one or more function calls to "
        "achieve the purpose. If none of the functions can be used, point it out and do not "
        "call any function. If the question lacks the parameters a function requires, "
        "point it out. Use the exact values from the question for the arguments."
    ),
    "parallel": (
        f"Call the provided functions to answer. Write every call as {hermes.OPEN}\n"
        f'{{"name": <function-name>, "arguments": <args-json-object>}}\n{hermes.CLOSE}. '
        "When the request asks for several things (several items, values, places or "
        f"questions), make one call for each of them: several {hermes.OPEN} blocks, one after "
        "another. If no function fits the request, answer in plain text without a call."
    ),
    "list": LIST_INSTRUCTIONS,  # the agent's own-layout hop asks in the same words
    "calls": (
        "Answer by calling the provided functions. Make every call the request needs: "
        f"when it asks for several things, emit one {hermes.OPEN} block per call. Use values "
        "exactly as given in the request and omit optional arguments that it does not "
        "mention. If no function fits the request, reply in plain text without any call."
    ),
}

# Call-like markup of every wire format the chain knows: text with any of these but no
# parsed call "failed to parse at all".
_CALL_MARKUP = re.compile(
    "|".join(re.escape(o) for o in call_openers()) + r"|\"name\"\s*:|\b" + re.escape(gemma.CALL) + "[A-Za-z_]"
)


class RunConfigError(ValueError):
    """A run was asked for with settings that cannot work (policy, output file, preset)."""


def looks_like_call(text: str) -> bool:
    """True when ``text`` carries call markup of any known wire format."""
    return bool(_CALL_MARKUP.search(text or ""))


def _calls_back(case: Case, calls: Iterable[Any]) -> list[dict[str, Any]]:
    """Parsed calls with BFCL's original (possibly dotted) function names."""
    mapping = case.name_map()
    out = []
    for c in calls:
        name = c["name"] if isinstance(c, Mapping) else c.name
        args = c.get("arguments") if isinstance(c, Mapping) else c.arguments
        out.append({"name": mapping.get(name, name), "arguments": args})
    return out


#: The opt-out tool of ``--abstain``: small models pick a tool more readily than they
#: decline, so declining is offered as a tool; its calls are dropped before scoring.
ABSTAIN_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "no_function_fits",
        "description": (
            "Call this when none of the other functions can answer the request, or when the "
            "request lacks values the functions require."
        ),
        "parameters": {
            "type": "object",
            "properties": {"reason": {"type": "string", "description": "why no function fits"}},
            "required": ["reason"],
        },
    },
}
ABSTAIN = ABSTAIN_TOOL["function"]["name"]


def case_tools(case: Case, abstain: bool = False) -> list[dict[str, Any]]:
    """The tools the model sees: sanitized names, plus the opt-out tool when asked."""
    tools = case.tools(sanitize=True)
    return [*tools, ABSTAIN_TOOL] if abstain else tools


#: finish reasons that mean the engine gave no answer at all: the case fails in every
#: category ("no call" after a time-out or a crash is not an abstention a user would get)
NO_ANSWER = {
    "timeout": "stopped at the per-case time limit",
    "context_overflow": "the prompt does not fit the context window",
    "error": "the engine raised on this case",
}


def no_answer(finish_reason: str | None) -> dict[str, Any] | None:
    """The failing scored part of a record for a case the engine did not answer."""
    message = NO_ANSWER.get(finish_reason or "")
    if message is None:
        return None
    return {"calls": [], "rejected": [], "parse_failed": False, "valid": False,
            "error_type": finish_reason,
            "verdict": {"valid": False, "error_type": finish_reason, "message": message}}


def unanswered(finish_reason: str, error: str, timings: dict[str, Any]) -> dict[str, Any]:
    """The answer part of a record for a case the engine did not answer (a NO_ANSWER reason)."""
    assert finish_reason in NO_ANSWER, finish_reason
    return {"raw": "", "finish_reason": finish_reason, "error": error, "timings": timings,
            "usage": {}}


def score_edgevox(
    case: Case, raw: str, detectors: Sequence[str], *, abstain: bool = False,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    """Parse ``raw`` with the parser chain and check it: the scored part of a record."""
    from edgevox.parsing import parse_tool_calls

    failed = no_answer(finish_reason)
    if failed is not None:
        return failed

    result = parse_tool_calls(raw, parsers=tuple(detectors), tools=case_tools(case, abstain))
    parsed = [c for c in result.calls if not (abstain and c.name == ABSTAIN)]
    calls = _calls_back(case, parsed)
    # A rejected call (unknown name, unreadable arguments) is still an attempt to call:
    # BFCL fails it, so it reaches the checker as a call with no valid arguments.
    attempts = [{"name": r.name, "arguments": {}} for r in result.rejected if r.name]
    verdict = check(case, calls + _calls_back(case, attempts))
    return {
        "calls": calls,
        "abstained": len(parsed) < len(result.calls),
        "rejected": [r.reason for r in result.rejected],
        # call markup the chain could not read at all (no call, not even a named rejection)
        "parse_failed": not result.calls
        and not attempts
        and (looks_like_call(raw) or bool(result.rejected)),
        "valid": verdict.valid,
        "error_type": verdict.error_type,
        "verdict": verdict.to_dict(),
    }


def score_peer(
    case: Case,
    raw: str,
    tool_calls: Sequence[Mapping[str, Any]] | None,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    """Check llama-cpp-python's structured ``tool_calls`` (arguments are JSON strings).

    A case stopped at the time limit fails whatever the category: "no call" after minutes
    of generating is not an abstention a user would get.
    """
    failed = no_answer(finish_reason)
    if failed is not None:
        return failed
    calls: list[dict[str, Any]] = []
    bad: list[str] = []
    for tc in tool_calls or []:
        fn = tc.get("function", tc) if isinstance(tc, Mapping) else {}
        args: Any = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                bad.append(f"arguments of {fn.get('name')!r} are not JSON")
                args = None
        if args is not None:
            calls.append({"name": fn.get("name"), "arguments": args})
    calls = _calls_back(case, [c for c in calls if isinstance(c["name"], str)])
    verdict = check(case, calls)
    return {
        "calls": calls,
        "rejected": bad,
        "parse_failed": not calls and (bool(bad) or looks_like_call(raw)),
        "valid": verdict.valid,
        "error_type": verdict.error_type,
        "verdict": verdict.to_dict(),
    }


class Engine(Protocol):
    """Something that answers one case; ``describe`` goes into every record."""

    def describe(self) -> dict[str, Any]: ...
    def answer(self, case: Case) -> dict[str, Any]: ...
    def close(self) -> None: ...


def _system_text(system: str | None) -> str | None:
    if system is None:
        return None
    return SYSTEM_PROMPTS[system] if system in SYSTEM_PROMPTS else system


def _messages(case: Case, system: str | None) -> list[dict[str, Any]]:
    msgs = [dict(m) for m in case.question]
    text = _system_text(system)
    if text:
        if msgs and msgs[0].get("role") == "system":
            msgs[0]["content"] = f"{text}\n\n{msgs[0].get('content') or ''}"
        else:
            msgs.insert(0, {"role": "system", "content": text})
    return msgs


class EdgeVoxEngine:
    """Model's own template + policy grammar; the parser chain runs in :func:`score_edgevox`."""

    name = "edgevox"

    def __init__(
        self,
        model: str,
        preset: str | None = None,
        *,
        policy: str = "auto",
        system: str | None = None,
        max_tokens: int = 320,
        n_ctx: int = 4096,
        backend: Any = None,
        reuse: Mapping[str, Mapping[str, Any]] | None = None,
        threads: int | None = None,
        abstain: bool = False,
        wire_format: str | None = None,
        validation: str = "schema_aware",
    ) -> None:
        if validation not in ("none", "structural", "schema_aware"):
            raise RunConfigError(f"unknown validation {validation!r}; choose none, structural or schema_aware")
        if policy not in RUN_POLICIES:
            raise RunConfigError(f"unknown policy {policy!r}; choose one of {', '.join(RUN_POLICIES)}")
        if wire_format is not None:
            from edgevox.grammars.wire import get_format

            try:
                get_format(wire_format)
            except ValueError as exc:
                raise RunConfigError(str(exc)) from None
        from edgevox.llm import load_model

        self.model, self.policy, self.system, self.max_tokens = model, policy, system, max_tokens
        self.backend = (
            backend
            if backend is not None
            else load_model(model, preset=preset, n_ctx=n_ctx, n_threads=threads)
        )
        self.preset = self.backend.preset
        self._cache: Any = None
        self.reuse = dict(reuse or {})
        self.abstain = abstain
        # the grammar's call format when it is not the preset's (e.g. json_fenced for a
        # model that writes fenced JSON lists); the preset's parser chain still reads it
        self.wire_format = wire_format
        #: grammar level: schema_aware (names + schemas), structural (markup and syntax
        #: only; under policy auto: reply or structurally well-formed calls), none
        self.validation = validation

    def describe(self) -> dict[str, Any]:
        return {
            "engine": self.name,
            "model": self.model,
            "preset": self.preset.name,
            "policy": self.policy,
            "system": self.system,
            "max_tokens": self.max_tokens,
            "abstain": self.abstain,
            **({"wire_format": self.wire_format} if self.wire_format else {}),
            **({"validation": self.validation} if self.validation != "schema_aware" else {}),
        }

    def grammar(self, tools: list[dict[str, Any]]) -> Any:
        """The grammar the policy asks for at the run's validation level (None for ``auto``
        unless structural); calls may repeat (parallel)."""
        if self.validation == "none" or (self.policy == "auto" and self.validation != "structural"):
            return None
        from edgevox.grammars import GrammarCache

        if self._cache is None:
            self._cache = GrammarCache(maxsize=256)
        level = {"validation": "structural"} if self.validation == "structural" else {}
        return self._cache.get(
            "reply_or_tool" if self.policy == "auto" else self.policy,
            tools,
            self.wire_format or self.preset.wire_format,
            parallel_tool_calls=True,
            **level,
        )

    def answer(self, case: Case) -> dict[str, Any]:
        from edgevox.grammars import GrammarError
        from edgevox.llm import ContextOverflow

        tools = case_tools(case, self.abstain)
        t0 = time.perf_counter()
        note: dict[str, Any] = {}
        try:
            grammar = self.grammar(tools)
        except GrammarError as exc:  # a schema the builder cannot express: run free, say so
            grammar, note = None, {"grammar_error": str(exc)}
        t_grammar = time.perf_counter() - t0
        reused = self._reusable(case, grammar)
        if reused is not None:
            return reused
        try:
            comp = self.backend.complete(
                _messages(case, self.system),
                tools,
                max_tokens=self.max_tokens,
                temperature=0,
                grammar=grammar,
            )
        except ContextOverflow as exc:
            return unanswered("context_overflow", str(exc),
                              {"grammar_s": t_grammar, "total_s": time.perf_counter() - t0})
        timings = {
            **comp.timings,
            "grammar_s": round(t_grammar, 4),
            "total_s": time.perf_counter() - t0,
        }
        return {
            "raw": comp.text,
            "finish_reason": comp.finish_reason,
            "timings": timings,
            "usage": comp.usage,
            **note,
        }

    def _reusable(self, case: Case, grammar: Any) -> dict[str, Any] | None:
        """A recorded free (``auto``) output that this grammar accepts, reused as-is.

        What this guarantees: at temperature 0 a grammar only changes the output where the
        free argmax token is rejected, so if the grammar accepts the whole free text (or,
        for a reply cut at max_tokens, accepts it as a prefix), token-by-token greedy
        decoding under the grammar produces the same tokens. EdgeVox's grammar path also
        fast-forwards forced text in canonical tokens, which
        ``tests/constrained/test_equivalence.py`` finds equal to that only up to trailing
        whitespace; a reused record is not guaranteed byte-identical to a fresh run.
        """
        old = self.reuse.get(case.id)
        if grammar is None or old is None or old.get("finish_reason") not in ("stop", "length"):
            return None
        raw = old.get("raw") or ""
        try:
            ok = (
                grammar.is_prefix(raw) if old["finish_reason"] == "length" else grammar.matches(raw)
            )
        except RuntimeError:  # recogniser gave up (too ambiguous): generate instead
            return None
        if not ok:
            return None
        return {
            "raw": raw,
            "finish_reason": old["finish_reason"],
            "timings": dict(old.get("timings") or {}),
            "usage": dict(old.get("usage") or {}),
            "reused": "auto output accepted by the grammar",
        }

    def score(self, case: Case, out: Mapping[str, Any]) -> dict[str, Any]:
        return score_edgevox(case, out["raw"], self.preset.detectors, abstain=self.abstain,
                             finish_reason=out.get("finish_reason"))

    def close(self) -> None:
        close = getattr(self.backend, "close", None)
        if close:
            close()


def _model_path(model: str) -> str:
    from edgevox.models import MODELS, ensure_model

    return str(ensure_model(model)) if model in MODELS else str(Path(model).expanduser())


def _set_abort_callback(llm: Any, should_abort: Any) -> Any:
    """Make ``llama_decode`` on ``llm`` fail (llama-cpp-python raises RuntimeError) once
    ``should_abort()`` is true. Exceptions cannot cross ctypes callbacks, so this is how a
    generation inside llama-cpp-python's own handlers is stopped. Returns the callback
    object, which must stay referenced while the context lives."""
    import ctypes

    import llama_cpp
    import llama_cpp.llama_cpp as lib

    fn = lib._lib.llama_set_abort_callback
    fn.argtypes = [ctypes.c_void_p, llama_cpp.ggml_abort_callback, ctypes.c_void_p]
    fn.restype = None
    callback = llama_cpp.ggml_abort_callback(lambda _data: bool(should_abort()))
    fn(llm._ctx.ctx, callback, None)
    return callback


class PeerEngine:
    """llama-cpp-python's own tool calling on the same GGUF (a separate Llama instance)."""

    name = "llama-cpp-python"

    def __init__(
        self,
        model: str,
        *,
        system: str | None = None,
        max_tokens: int = 320,
        n_ctx: int = 4096,
        chat_format: str = "chatml-function-calling",
        threads: int | None = None,
        time_limit_s: float = 120.0,
    ) -> None:
        from llama_cpp import Llama

        from edgevox.llm.threads import default_threads

        self.model, self.system, self.max_tokens, self.chat_format = (
            model,
            system,
            max_tokens,
            chat_format,
        )
        # chatml-function-calling loops over further calls with max_tokens=None, so one case
        # can generate up to the context size under the slow grammar path: bound it
        self.time_limit_s = time_limit_s
        self.llm = Llama(
            model_path=_model_path(model),
            chat_format=chat_format,
            n_ctx=n_ctx,
            n_threads=threads or default_threads(),
            seed=0,
            verbose=False,
        )
        self._deadline = float("inf")
        self._abort = _set_abort_callback(self.llm, lambda: time.perf_counter() > self._deadline)

    def describe(self) -> dict[str, Any]:
        return {
            "engine": self.name,
            "model": self.model,
            "preset": self.chat_format,
            "policy": "auto",
            "system": self.system,
            "max_tokens": self.max_tokens,
        }

    def answer(self, case: Case) -> dict[str, Any]:
        t0 = time.perf_counter()
        self._deadline = t0 + self.time_limit_s
        try:
            resp = self.llm.create_chat_completion(
                messages=_messages(case, self.system),
                tools=case.tools(sanitize=True),
                tool_choice="auto",
                temperature=0,
                max_tokens=self.max_tokens,
            )
        except RuntimeError:  # llama_decode aborted by the time limit (or failed)
            if time.perf_counter() < self._deadline:
                raise
            return {**unanswered("timeout", f"no answer within {self.time_limit_s:.0f} s",
                                 {"total_s": time.perf_counter() - t0}), "tool_calls": []}
        except ValueError as exc:  # prompt longer than the context window, bad grammar
            return {**unanswered("error", str(exc), {"total_s": time.perf_counter() - t0}),
                    "tool_calls": []}
        choice = resp["choices"][0]
        msg = choice.get("message") or {}
        tool_calls = [
            {"function": {"name": tc["function"]["name"], "arguments": tc["function"]["arguments"]}}
            for tc in msg.get("tool_calls") or []
        ]
        return {
            "raw": msg.get("content") or "",
            "tool_calls": tool_calls,
            "finish_reason": choice.get("finish_reason"),
            "timings": {"total_s": time.perf_counter() - t0},
            "usage": dict(resp.get("usage") or {}),
        }

    def score(self, case: Case, out: Mapping[str, Any]) -> dict[str, Any]:
        return score_peer(case, out["raw"], out.get("tool_calls"), out.get("finish_reason"))

    def close(self) -> None:
        close = getattr(self.llm, "close", None)
        if close:
            close()


_CONFIG_KEYS = ("engine", "model", "preset", "policy", "system", "abstain", "wire_format")


def _check_same_config(
    existing: list[dict[str, Any]], config: Mapping[str, Any], out: Path
) -> None:
    for rec in existing:
        diff = [k for k in _CONFIG_KEYS if (rec.get(k) or None) != (config.get(k) or None)]
        if diff:
            shown = ", ".join(f"{k}={rec.get(k)!r} (now {config.get(k)!r})" for k in diff)
            raise RunConfigError(
                f"{out} already holds records of another run ({shown}); use a new --out file"
            )


def run_cases(
    cases: Sequence[Case], engine: Any, out: str | Path, *, progress: bool = True
) -> list[dict[str, Any]]:
    """Answer and score every case not yet in ``out``, appending one JSON line per case.

    Resumable: ids already recorded in ``out`` (same engine, model, preset, policy and
    system prompt, else RunConfigError) are skipped. Returns all records of ``out``
    for the given cases, old and new, in case order.
    """
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    config = engine.describe()
    existing = read_records(path)
    _check_same_config(existing, config, path)
    done = {r["id"]: r for r in existing}
    todo = [c for c in cases if c.id not in done]
    if path.is_file() and path.stat().st_size:  # a torn last line must not glue onto ours
        with path.open("rb") as fh:
            fh.seek(-1, 2)
            if fh.read(1) != b"\n":
                with path.open("a", encoding="utf-8") as fa:
                    fa.write("\n")
    bar = None
    if progress and todo:  # rich, the project's one progress library (also `edgevox models pull`)
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        bar = Progress(TextColumn(f"bfcl {config['policy']}"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("{task.fields[note]}"), TimeRemainingColumn(),
                       console=Console(stderr=True), refresh_per_second=0.5)
        task = bar.add_task("cases", total=len(todo), note="")
        bar.start()
    ok = 0
    try:
        with path.open("a", encoding="utf-8") as fh:
            for i, case in enumerate(todo, 1):
                try:
                    out_ = engine.answer(case)
                except Exception as exc:  # one failing case must not end a run of hundreds
                    log.warning("%s: %s: %s", case.id, type(exc).__name__, exc)
                    out_ = unanswered("error", f"{type(exc).__name__}: {exc}", {})
                record = {
                    "id": case.id,
                    "category": case.category,
                    **config,
                    **out_,
                    **engine.score(case, out_),
                }
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                fh.flush()
                done[case.id] = record
                ok += bool(record["valid"])
                if bar is not None:
                    bar.update(task, advance=1, note=f"{case.category} acc {ok}/{i}")
    finally:
        if bar is not None:
            bar.stop()
    return [done[c.id] for c in cases if c.id in done]
