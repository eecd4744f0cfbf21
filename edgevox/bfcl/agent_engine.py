"""The BFCL engine that measures the agent as shipped: each case runs through ``LLMAgent``.

:class:`~edgevox.bfcl.runner.EdgeVoxEngine` asks the backend for one generation with a
prompt and grammar chosen on the command line. This engine builds an ``LLMAgent`` per case
with the case's functions as tools and **nothing chosen here**: the instructions, policy,
demonstrations and confirmation of the preset's calling profile, and
``default_slm_hooks()``, exactly what ``LLMAgent(..., hooks=default_slm_hooks())`` gives a
user. ``agent_options`` (``edgevox bfcl run --engine agent --set KEY=VALUE``) override them
for an experiment and are recorded with every row.

What is scored is what the agent *did*: the calls it dispatched and that succeeded (a
call blocked for an unknown name or invalid arguments never reached a tool, and a hook may
have had the model retry it). Tools are stubs that accept any valid arguments and return
``{"ok": true}``; the turn ends as soon as a call has succeeded (unless a hook asks for the
undone part of the request: ``slm.remainder``), so no tokens are spent on the spoken answer
BFCL does not judge. A case's own system message becomes the session's
system text (it replaces the instructions, as a user's own system text does); earlier
turns of the case become the session's history.

Records keep the agent's calls, so ``replay`` re-checks them (no re-parsing: the text of
several hops is not one output).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from edgevox.bfcl.checker import check
from edgevox.bfcl.data import Case

__all__ = ["AgentEngine", "score_agent"]


def _stub(**_: Any) -> dict[str, Any]:
    return {"ok": True}


def score_agent(case: Case, out: Mapping[str, Any]) -> dict[str, Any]:
    """Check the calls the agent made (recorded as ``agent_calls``): the scored part."""
    from edgevox.bfcl.runner import _calls_back, no_answer

    failed = no_answer(out.get("finish_reason"))
    if failed is not None:
        return failed
    made = [c for c in out.get("agent_calls") or [] if c.get("ok")]
    calls = _calls_back(case, made)
    verdict = check(case, calls)
    return {"calls": calls, "rejected": [c.get("error") for c in out.get("agent_calls") or [] if c.get("error")],
            "parse_failed": False, "valid": verdict.valid, "error_type": verdict.error_type,
            "verdict": verdict.to_dict()}


class AgentEngine:
    """``LLMAgent`` with its shipped defaults, one fresh agent and session per case."""

    name = "agent"

    def __init__(self, model: str, preset: str | None = None, *, max_tokens: int = 320, n_ctx: int = 4096,
                 backend: Any = None, threads: int | None = None,
                 agent_options: Mapping[str, Any] | None = None) -> None:
        from edgevox.agents import LLMAgent
        from edgevox.grammars import GrammarCache
        from edgevox.llm import load_model

        self.model, self.max_tokens = model, max_tokens
        self.backend = backend if backend is not None else load_model(model, preset=preset, n_ctx=n_ctx,
                                                                      n_threads=threads)
        self.preset = self.backend.preset
        self.options = dict(agent_options or {})
        self._grammars = GrammarCache(maxsize=256)
        probe = LLMAgent("bfcl", tools=[], model=self.backend, max_tokens=max_tokens, **self.options)
        self.policy = probe.tool_choice_policy  # what the profile (or an option) chose

    def describe(self) -> dict[str, Any]:
        return {"engine": self.name, "model": self.model, "preset": self.preset.name, "policy": self.policy,
                "system": "agent", "max_tokens": self.max_tokens,
                **({"agent_options": self.options} if self.options else {})}

    def agent(self, case: Case) -> Any:
        """The agent for one case: the case's functions as stub tools, shipped defaults."""
        from edgevox.agents import LLMAgent, default_slm_hooks
        from edgevox.agents.hooks import HookResult, hook
        from edgevox.agents.slm.remainder import NOTE_HEADS
        from edgevox.tools import Tool

        @hook("before_llm", name="bfcl_stop_after_call", priority=0)
        def stop_after_call(ctx: Any, request: Any) -> HookResult | None:
            if not ctx.successes() or any(n.startswith(NOTE_HEADS) for n in request.notes):
                return None  # nothing done yet, or a hook asks for the request's undone part
            return HookResult.end("(called)", reason="BFCL judges the calls")

        tools = [Tool.from_schema(t, _stub) for t in case.tools(sanitize=True)]
        options = {"hooks": [*default_slm_hooks(), stop_after_call], "grammar_cache": self._grammars,
                   "temperature": 0.0, **self.options}
        warm = options.pop("warm", True)
        agent = LLMAgent("bfcl", tools=tools, model=self.backend, max_tokens=self.max_tokens, warm=False, **options)
        if warm:  # as shipped (the prefix evaluated from an empty context), but never written to
            # the prompt cache: a case's prefix is never asked for again, and each one (5-27 MB)
            # would evict the prefixes that voice agents restore from it
            agent.warm(persist=False)
        return agent

    def answer(self, case: Case) -> dict[str, Any]:
        from edgevox.agents import Session
        from edgevox.agents.types import STOP_CONTEXT, STOP_ERROR
        from edgevox.bfcl.runner import unanswered

        t0 = time.perf_counter()
        msgs = [dict(m) for m in case.question]
        if not msgs or msgs[-1].get("role") != "user":
            return unanswered("error", "the case does not end with a user message", {})
        text = str(msgs.pop().get("content") or "")
        agent = self.agent(case)
        result = agent.run(text, session=Session(msgs))
        timings = {"total_s": round(time.perf_counter() - t0, 4)}
        if result.stopped_reason == STOP_CONTEXT:
            return unanswered("context_overflow", result.reply, timings)
        if result.stopped_reason == STOP_ERROR:
            return unanswered("error", result.reply, timings)
        return {
            "raw": result.reply, "finish_reason": "stop", "timings": timings, "hops": result.hops,
            "stopped": result.stopped_reason, "hooks": dict(agent.hook_stats), "loop": dict(agent.loop_stats),
            "agent_calls": [{"name": r.name, "arguments": r.arguments, "ok": r.dispatched and r.error is None,
                             "error": r.error, "hop": r.hop} for r in result.calls],
        }

    def score(self, case: Case, out: Mapping[str, Any]) -> dict[str, Any]:
        return score_agent(case, out)

    def close(self) -> None:
        close = getattr(self.backend, "close", None)
        if close:
            close()
