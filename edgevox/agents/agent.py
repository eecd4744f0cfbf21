"""LLMAgent: the tool-calling loop around one loaded model.

One turn = hops until the model answers in words. Each hop: trim the history to fit,
render, generate (under the grammar the policy and ``tool_choice`` ask for), parse with the
preset's detector chain, then either dispatch the calls (concurrently, each with a timeout)
and feed the results back, or take the reply. Hooks watch and steer each step. A turn
always ends with something to say: the model's reply, a hook's reply, or a short spoken
fallback (``Phrases``) — never silence, never an exception for bad model output.

Session consistency (what the history holds after a turn):

* reply / max_hops / hook end: the user message, every complete tool exchange of the turn
  (assistant ``tool_calls`` + one result per call), then the final assistant message;
* cancelled: **the partial exchange is dropped** — the user message plus one assistant
  message holding what was already spoken stay; if nothing was spoken, the turn is
  rolled back entirely. So there is never an assistant ``tool_calls`` without results,
  and roles keep alternating for templates that insist (Gemma, Mistral);
* safety hook failure: the user message and the safe apology;
* context overflow or backend error: the turn is rolled back.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from edgevox.agents.data import neutralise
from edgevox.agents.hooks import Hook, HookFailed, HookRunner, StreamFilter, TurnContext
from edgevox.agents.ids import assign_ids
from edgevox.agents.phrases import DEFAULT_PHRASES, Phrases
from edgevox.agents.session import Session
from edgevox.agents.speech import summarise
from edgevox.agents.types import (
    STOP_CANCELLED,
    STOP_CONFIRM,
    STOP_CONTEXT,
    STOP_ERROR,
    STOP_HOOK,
    STOP_HOOK_FAILED,
    STOP_MAX_HOPS,
    STOP_REPLY,
    AgentResult,
    CallRecord,
    LLMOutput,
    LLMRequest,
    ToolCallEvent,
    ToolResultEvent,
)

log = logging.getLogger(__name__)

_POLL_S = 0.02  # how often a cancelled tool wait checks the stop event
_DECISIONS = 12  # sampled tokens whose margins are kept: enough to cover "answer or call" and the name
DEFAULT_INSTRUCTIONS = "You are a helpful voice assistant. Answer in one or two short sentences."


class _Stop:
    """Stop signal of one turn: set by ``cancel()`` or by the caller's own event."""

    def __init__(self, outer: threading.Event | None):
        self.own = threading.Event()
        self.outer = outer

    def is_set(self) -> bool:
        return self.own.is_set() or (self.outer is not None and self.outer.is_set())

    def set(self) -> None:
        self.own.set()

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            self.own.wait(_POLL_S)
        return True


class AgentStream:
    """What ``run_stream`` returns: iterate for ``str`` pieces and events; then ``.result``."""

    def __init__(self, gen: Generator[Any, None, AgentResult]):
        self._gen = gen
        self.result: AgentResult | None = None

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        try:
            return next(self._gen)
        except StopIteration as stop:
            self.result = stop.value
            raise

    def close(self) -> None:
        """Stop early (cancels the turn; the session stays consistent)."""
        self._gen.close()

    def text(self) -> str:
        """Consume the stream and return the reply."""
        for _ in self:
            pass
        assert self.result is not None
        return self.result.reply


class LLMAgent:
    """An agent: instructions + tools + a model, with hooks and a conversation session.

    ``model``: a registered model name, a GGUF path, a server URL or an already loaded
    backend (several agents can share one; the backend serialises generation).
    ``tool_choice_policy``: "auto", "required_first_hop" or "required_always";
    ``validation``: the grammar level for tool calls -- "none" (free decoding, the parser
    chain reads what comes), "structural" (the wire format's markup and syntax, any name,
    any arguments object; unknown names are rejected by the chain, never dispatched) or
    "schema_aware" (names and argument schemas); None: structural where the policy asks
    for no schema grammar, schema_aware where it does.
    ``tool_choice``: an OpenAI tool_choice that overrides the policy on the first hop
    (later hops fall back to the policy so the answer can land).
    ``response_format``: ``{"type": "structural_tag", "format": {...}}`` (as vLLM and
    SGLang take it) to run instead of the preset's tool grammar on every hop that offers
    tools; compiled here, so a malformed one fails at construction, naming the field.

    ``instructions``, ``tool_choice_policy``, ``demonstrations`` and ``confirm_below``
    default to the preset's calling profile (its ``[profile]`` table, chosen per model by
    measurement; see ``presets/``). ``demonstrations``: True builds them from the tools
    (``edgevox.agents.demonstrations``), False shows none, or a list of ``Demo``.
    ``confirm_below``: a call whose confidence (``edgevox.agents.confirm``) is below this
    margin is asked about instead of run; None never asks (``@tool(confirm=True)`` always does).
    ``constrain_auto``: under "auto", decode under the answer-or-call grammar instead of freely.
    """

    def __init__(self, name: str = "assistant", description: str = "",
                 instructions: str | None = None,
                 tools: Iterable[Any] | Any = (), model: Any = None, preset: Any = None, *,
                 tool_choice_policy: str | None = None, tool_choice: Any = None,
                 hooks: Iterable[Hook] = (), max_hops: int = 4, max_tokens: int = 256,
                 temperature: float | None = None, seed: int | None = None,
                 parallel_tool_calls: bool = True, tool_timeout: float | None = 10.0,
                 grammar_cache: Any = None, session: Session | None = None,
                 phrases: Phrases = DEFAULT_PHRASES, model_options: dict[str, Any] | None = None,
                 demonstrations: Any = None, confirm_below: float | None = None,
                 constrain_auto: bool | None = None, warm: bool = True, validation: str | None = None,
                 response_format: dict[str, Any] | None = None):
        from edgevox.grammars import POLICIES, GrammarCache, check_validation
        from edgevox.llm.toolgrammar import response_format_grammar
        from edgevox.tools import ToolRegistry

        if model is None:
            raise ValueError("LLMAgent needs a model: a registered name, a GGUF path, a URL or a backend")
        if validation is not None:
            check_validation(validation)
        if tool_choice_policy is not None and tool_choice_policy not in POLICIES:
            raise ValueError(f"unknown tool_choice_policy {tool_choice_policy!r}; allowed: {', '.join(POLICIES)}")
        if not isinstance(max_hops, int) or isinstance(max_hops, bool) or max_hops < 1:
            raise ValueError(f"max_hops must be an int >= 1, got {max_hops!r}")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ValueError(f"max_tokens must be an int >= 1, got {max_tokens!r}")
        if tool_timeout is not None and not (isinstance(tool_timeout, (int, float)) and tool_timeout > 0):
            raise ValueError(f"tool_timeout must be a positive number of seconds or None, got {tool_timeout!r}")
        self.name = name
        self.description = description
        self.registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        if isinstance(model, str) or not hasattr(model, "stream"):
            from edgevox.llm import load_model

            self.backend = load_model(model, preset=preset, **(model_options or {}))
        else:
            self.backend = model
        wanted = getattr(preset, "name", preset)
        if wanted is not None and wanted != self.backend.preset.name:
            # rendering, parsing and grammars must agree on one preset: the backend's
            raise ValueError(f"the backend was loaded with preset {self.backend.preset.name!r}, not {wanted!r}; "
                             f"load the model with preset={wanted!r} instead")
        self.preset = self.backend.preset
        #: grammar level for tool calls: "none", "structural", "schema_aware", or None
        #: (structural where the policy asks for no schema grammar, schema_aware where it does)
        self.validation = validation
        self.response_format = response_format
        self._response_grammar = response_format_grammar(response_format)
        profile = getattr(self.preset, "profile", None) or {}
        self.profile: dict[str, Any] = dict(profile)
        self.instructions = instructions if instructions is not None else profile.get("instructions", DEFAULT_INSTRUCTIONS)
        self.tool_choice_policy = tool_choice_policy or profile.get("policy", "auto")
        if self.tool_choice_policy not in POLICIES:
            raise ValueError(f"preset {self.preset.name!r}: unknown profile policy {self.tool_choice_policy!r}")
        self.constrain_auto = bool(profile.get("constrain_auto", False) if constrain_auto is None else constrain_auto)
        self.confirm_below = confirm_below if confirm_below is not None else profile.get("confirm_below")
        if demonstrations is None:
            demonstrations = bool(profile.get("demonstrations", False))
        self._demo_setting = self._check_demonstrations(demonstrations)
        self._demo_cache: tuple[str, list[Any]] | None = None
        self.tool_choice = tool_choice
        self.max_hops = max_hops
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed
        self.parallel_tool_calls = parallel_tool_calls
        self.tool_timeout = tool_timeout
        self.grammar_cache = grammar_cache if grammar_cache is not None else GrammarCache()
        self.hooks = HookRunner(hooks)
        self.session = session if session is not None else Session()
        self.phrases = phrases
        #: counts of loop events that are not hooks (empty replies, grammar fallbacks, …)
        self.loop_stats: dict[str, int] = {}
        self._active: set[_Stop] = set()
        self._active_lock = threading.Lock()
        self._warm: WarmJob | None = None
        if warm:
            self.warm()

    # -- the static prompt prefix ---------------------------------------------------

    def prefix_tokens(self, session: Session | None = None) -> list[int]:
        """The tokens every turn's prompt starts with: the prefix rendered with the tools,
        up to where user turns of different shapes first differ (text that starts with a
        newline merges with the template's own newline into one token)."""
        b = self.backend
        tools = self.registry.schemas() if len(self.registry) else None
        head = self.prompt_prefix(session)
        probes = [b.tokenize(b.render([*head, {"role": "user", "content": text}], tools))
                  for text in ("A", "z?", "\n\n1", " ")]
        n = min(len(p) for p in probes)
        for i in range(n):
            if any(p[i] != probes[0][i] for p in probes):
                n = i
                break
        return probes[0][:n]

    def warm(self, *, wait: bool = False, persist: bool = True) -> WarmJob | None:
        """Evaluate (or restore from the prompt cache) the static prompt prefix in the
        background, so the first turn pays only for the user's words. The agent's first
        turn waits for it. None when the backend cannot keep a prefix (a server)."""
        if not hasattr(self.backend, "warm_prefix"):
            return None
        job = self._warm = WarmJob(self, persist)
        if wait:
            job.wait()
        return job

    @property
    def warm_job(self) -> WarmJob | None:
        """The running or finished warm-up (None if none was started)."""
        return self._warm

    @property
    def warm_info(self) -> dict | None:
        """What the last warm-up did (``source``: memory, disk or evaluated; tokens;
        seconds), or None before it finished."""
        return self._warm.info if self._warm is not None else None

    # -- decoding ---------------------------------------------------------------------

    def strategy_for(self, hop: int, tool_choice: Any = None) -> Any:
        """The decoding strategy of hop ``hop`` under ``tool_choice`` and the agent's policy."""
        from edgevox.grammars import tool_choice_strategy

        if not len(self.registry):
            return "none"
        # an explicit tool_choice holds for the first hop ("none": for the whole turn), so
        # that after the forced call the model is free to answer
        choice = tool_choice if hop == 0 or tool_choice == "none" else None
        return tool_choice_strategy(choice, self.tool_choice_policy, hop, tool_names=self.registry.names(),
                                    constrain_auto=self.constrain_auto)

    def grammar_for(self, strategy: Any, tools: list[dict]) -> Any:
        """The grammar a hop decodes under (None: free decoding), from the agent's cache."""
        from edgevox.grammars import GrammarError, grammar_for_strategy
        from edgevox.llm.types import supports_grammar

        if not supports_grammar(self.backend):
            return None
        # the envelope keeps its shape even with no tools: "none" is its answer branch
        if strategy == "none" and self.preset.wire_format != "envelope":
            return None
        if self._response_grammar is not None and strategy != "none":
            return self._response_grammar
        try:
            return grammar_for_strategy(strategy, tools, self.preset.wire_format, cache=self.grammar_cache,
                                        think=self.preset.think, parallel_tool_calls=self.parallel_tool_calls,
                                        validation=self.validation)
        except GrammarError as exc:  # fall back to free decoding: the parser and hooks still guard
            self._count("grammar_failures")
            log.warning("agent %r: no grammar for %r (%s); decoding unconstrained", self.name, strategy, exc)
            return None

    def prefill(self, text: str) -> int:
        """Evaluate the first hop's prompt for ``text`` now, before the turn starts; returns
        the tokens evaluated (0: nothing to do, or the agent is busy).

        ``edgevox voice`` calls it with the speculative transcript while the endpointer still
        waits for the end of the silence, so the turn starts with the user's words already
        in the KV cache. Skipped while a turn runs or the warm-up has not finished (it
        would only displace their state)."""
        b = self.backend
        if not hasattr(b, "prefill") or not text.strip() or (self._warm is not None and not self._warm.done):
            return 0
        with self._active_lock:
            if self._active:
                return 0
        strategy = self.strategy_for(0, self.tool_choice)
        tools = self.registry.schemas() if len(self.registry) and strategy != "none" else None
        msgs = [*self.conversation(self.session), {"role": "user", "content": text}]
        return b.prefill(b.render(msgs, tools))

    def prepare_decoding(self) -> list[Any]:
        """Build and compile now the grammars a turn's hops decode under (the first hop's,
        a later hop's, and the answer-only one hooks may ask for), and with them the
        model's mask engine. Why: in a fresh process the first turn otherwise pays for
        both -- measured 0.7-1.4 s on 2 cores, mostly building llguidance's tokenizer from
        the vocabulary -- and a later turn pays nothing. The warm-up runs this before
        ``edgevox voice`` says it is ready. Returns the grammars prepared."""
        prepare = getattr(self.backend, "prepare_grammar", None)
        if prepare is None:
            return []
        tools = self.registry.schemas() if len(self.registry) else []
        done: list[Any] = []
        for strategy in (self.strategy_for(0, self.tool_choice), self.strategy_for(1, self.tool_choice), "none"):
            grammar = self.grammar_for(strategy, tools if strategy != "none" else [])
            if grammar is None or any(grammar is g for g in done):
                continue
            try:
                prepare(grammar)
            except Exception as exc:  # the turn meets the same error and falls back as usual
                log.warning("agent %r: preparing the %r grammar failed (%s)", self.name, strategy, exc)
                continue
            done.append(grammar)
        return done

    # -- demonstrations ----------------------------------------------------------------

    @staticmethod
    def _check_demonstrations(wanted: Any) -> Any:
        from edgevox.agents.demonstrations import Demo

        if isinstance(wanted, bool):
            return wanted
        demos = list(wanted)
        if not all(isinstance(d, Demo) for d in demos):
            raise TypeError("demonstrations must be True, False or a list of edgevox.agents.demonstrations.Demo")
        return demos

    @property
    def demonstrations(self) -> list[Any]:
        """The demonstrations shown before the conversation (rebuilt when the tools change)."""
        from edgevox.agents.demonstrations import build_demonstrations

        if not isinstance(self._demo_setting, bool):
            return list(self._demo_setting)
        if not self._demo_setting or not len(self.registry):
            return []
        key = self.registry.fingerprint
        if self._demo_cache is None or self._demo_cache[0] != key:
            self._demo_cache = (key, build_demonstrations(list(self.registry)))
        return list(self._demo_cache[1])

    def prompt_prefix(self, session: Session | None = None) -> list[dict]:
        """The static messages every hop puts before the session's own: the system message
        (the session's own system text wins over the instructions), then the demonstration
        turns, rendered by the preset like any other turn."""
        from edgevox.agents.demonstrations import demonstration_messages

        sess = session if session is not None else self.session
        system = sess.system if sess.system is not None else self.instructions
        head = [{"role": "system", "content": system}] if system else []
        return head + demonstration_messages(self.demonstrations)

    def conversation(self, session: Session) -> list[dict]:
        """What a hop shows the model: the static prefix (system message, demonstrations),
        then a copy of the session's messages. One place, so the prefill of a speculative
        transcript renders exactly the prompt its turn will."""
        with session.lock:
            history = [dict(m) for m in session.messages]
        return [*self.prompt_prefix(session), *history]

    # -- public API -----------------------------------------------------------------

    @property
    def hook_stats(self) -> dict[str, int]:
        """How often each hook acted (replaced a payload or ended a turn), by hook name."""
        return dict(self.hooks.stats)

    @property
    def hook_errors(self) -> dict[str, int]:
        """How often each hook raised."""
        return dict(self.hooks.errors)

    def add_hook(self, hook: Hook) -> Hook:
        return self.hooks.add(hook)

    def run(self, text: str, *, session: Session | None = None,
            stop_event: threading.Event | None = None, tool_choice: Any = None) -> AgentResult:
        """Run one turn to completion and return its result (never raises on model output)."""
        gen = self._turn(text, session, stop_event, tool_choice)
        while True:
            try:
                next(gen)
            except StopIteration as stop:
                return stop.value

    def run_stream(self, text: str, *, session: Session | None = None,
                   stop_event: threading.Event | None = None, tool_choice: Any = None) -> AgentStream:
        """Like ``run``, but yields reply text (``str``) as it is generated and a
        ``ToolCallEvent``/``ToolResultEvent`` per call. ``.result`` holds the AgentResult
        once the stream is exhausted."""
        return AgentStream(self._turn(text, session, stop_event, tool_choice))

    def cancel(self) -> None:
        """End every running turn of this agent within one token or one tool wait."""
        with self._active_lock:
            for stop in self._active:
                stop.set()

    def reset(self) -> None:
        """Forget the conversation of the agent's own session."""
        self.session.reset()

    # -- the loop -------------------------------------------------------------------

    def _turn(self, text: str, session: Session | None, stop_event: threading.Event | None,
              tool_choice: Any) -> Generator[Any, None, AgentResult]:
        if not isinstance(text, str):
            raise TypeError(f"run() takes the user's text as a str, got {type(text).__name__}")
        sess = session if session is not None else self.session
        sess.meta.setdefault("agent", self.name)
        sess.meta.setdefault("preset", self.preset.name)
        stop = _Stop(stop_event)
        with self._active_lock:
            self._active.add(stop)
        turn = _RunningTurn(self, sess, text, stop, self.tool_choice if tool_choice is None else tool_choice)
        try:
            return (yield from turn.run())
        finally:
            with self._active_lock:
                self._active.discard(stop)
            if not turn.finished:  # the consumer closed the stream early
                turn.abandon()
            self._keep_prefix(sess)

    def _keep_prefix(self, session: Session) -> None:
        """Restore the warm prefix in the background when a turn left the KV cache without
        it. Why: a hop that offers no tools renders no tool schemas, so its prompt parts
        from the prefix early and llama.cpp's cache is overwritten from there; the next
        turn would evaluate the whole prefix again (2,041 tokens, ~10 s on 2 cores).
        Restored from the prompt cache it takes a tenth of a second, while the reply is
        spoken; the next turn waits for it like for the first warm-up."""
        job = self._warm
        holds = getattr(self.backend, "holds_prefix", None)
        if session is not self.session or job is None or not job.done or job.tokens is None or holds is None:
            return
        if not holds(job.tokens):
            self._count("prefix_restores")
            self.warm()

    def _count(self, key: str) -> None:
        with self._active_lock:
            self.loop_stats[key] = self.loop_stats.get(key, 0) + 1

    def __repr__(self) -> str:
        return (f"LLMAgent({self.name!r}, tools={self.registry.names()}, preset={self.preset.name!r}, "
                f"policy={self.tool_choice_policy!r})")


@dataclass(frozen=True)
class _Next:
    """A hop's outcome: the turn goes on to the next hop (with ``note`` when it retries)."""

    note: str | None = None


@dataclass(frozen=True)
class _Done:
    """A hop's outcome: the turn ends with ``reply`` (None: the hop's own reply) for ``reason``."""

    reply: str | None
    reason: str


_Step = _Next | _Done


class _RunningTurn:
    """State of one running turn (kept off the agent so turns can run in parallel)."""

    def __init__(self, agent: LLMAgent, session: Session, text: str, stop: _Stop, tool_choice: Any):
        self.agent = agent
        self.session = session
        self.stop = stop
        self.tool_choice = tool_choice
        self.ctx = TurnContext(agent=agent, session=session, text=text, stop_event=stop)  # type: ignore[arg-type]
        self.start_len = len(session)
        self.t0 = time.perf_counter()
        self.llm_s = 0.0
        self.tools_s = 0.0
        self.ttft: float | None = None
        self.spoken: list[str] = []  # what was said, hop by hop
        self._hop_spoken = ""  # what was streamed of the current hop
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        self.hops = 0
        self.finished = False
        self.last_failed = False  # did a call of the latest tool exchange fail?
        self.taken_ids = {c.get("id") for m in session.messages for c in (m.get("tool_calls") or [])
                          if isinstance(c, dict)}
        self._early: list[tuple[tuple[str, dict], Any, int]] = []  # calls started while decoding (and their hop)
        # a call may start as soon as the stream completes it unless an after_llm hook could
        # still drop it (see Hook.keeps_calls)
        self._early_ok = all(getattr(h, "keeps_calls", False) for h in agent.hooks.hooks
                             if "after_llm" in h.points())

    # -- driver -----------------------------------------------------------------------

    def run(self) -> Generator[Any, None, AgentResult]:
        a = self.agent
        try:
            out = a.hooks.run("on_run_start", self.ctx, self.ctx.text)
            self.ctx.text = str(out.payload)
            self.session.append({"role": "user", "content": self.ctx.text})
            if out.ended:
                return (yield from self._finish(out.end_reply, STOP_HOOK))
            notes: list[str] = []
            hop = 0
            step = yield from self._settle_pending()
            if step is not None:
                if isinstance(step, _Done):
                    return (yield from self._finish(step.reply, step.reason))
                hop = 1
            while True:
                if self.stop.is_set():
                    return (yield from self._finish("", STOP_CANCELLED))
                if hop >= a.max_hops:
                    return (yield from self._finish(self._max_hops_reply(), STOP_MAX_HOPS))
                self.ctx.hop = hop
                self.hops = hop + 1
                step = yield from self._hop(hop, notes)
                if isinstance(step, _Done):
                    return (yield from self._finish(step.reply, step.reason))
                notes = [step.note] if step.note is not None else []
                hop += 1
        except HookFailed as exc:
            log.error("%s; the turn fails closed", exc)
            self.session.truncate(self.start_len)
            self.session.append({"role": "user", "content": self.ctx.text})
            self.spoken = []
            return (yield from self._finish(a.phrases.hook_failed, STOP_HOOK_FAILED, run_end_hooks=False))
        except _Overflow as exc:
            log.warning("agent %r: %s", a.name, exc)
            self.session.truncate(self.start_len)
            return (yield from self._finish(a.phrases.context, STOP_CONTEXT, record=False))
        except _BackendFailed as exc:
            log.error("agent %r: generation failed: %s", a.name, exc)
            self.session.truncate(self.start_len)
            return (yield from self._finish(a.phrases.error, STOP_ERROR, record=False))

    def _hop(self, hop: int, notes: list[str]) -> Generator[Any, None, _Step]:
        """One generation and what follows from it: the next hop (retrying with a note) or
        the end of the turn."""
        a = self.agent
        strategy = a.strategy_for(hop, self.tool_choice)
        tools = a.registry.schemas() if len(a.registry) else []
        last = self.session.messages[-1] if self.session.messages else {}
        if last.get("role") == "tool" and a.preset.native_tool_role:
            note = a.phrases.failed_note if self.last_failed else a.phrases.answer_note
            if note:
                notes = [note, *notes]  # see Phrases.answer_note for why
        if hop == 0 and a._warm is not None:
            a._warm.wait()  # the prefix is (being) evaluated: let it finish first
        request = LLMRequest(hop=hop, messages=self._messages(),
                             tools=tools, strategy=strategy, notes=list(notes),
                             options={"max_tokens": a.max_tokens, "temperature": a.temperature,
                                      "seed": a.seed})
        out = a.hooks.run("before_llm", self.ctx, request)
        if out.ended:
            return _Done(out.end_reply, STOP_HOOK)
        request = out.payload
        output = yield from self._generate(request)
        if output.finish_reason == "cancelled" or self.stop.is_set():
            self.spoken_hop_commit(self._hop_spoken)
            return _Done("", STOP_CANCELLED)
        output = self._drop_note_echo(output, request.notes)
        out = a.hooks.run("after_llm", self.ctx, output)
        spoken_before = self._hop_spoken
        if out.ended:
            self.spoken_hop_commit(spoken_before)
            return _Done(out.end_reply, STOP_HOOK)
        output = out.payload
        if request.strategy == "none" and output.calls:
            output = output.replace(calls=[])  # no tools were offered: a call is not acted on
        if output.retry:
            self.spoken_hop_commit(spoken_before)
            if self.ctx.hops_left > 0:
                a._count("retries")
                return _Next(output.retry)
            return _Done(output.fallback or self._fallback_reply(), STOP_HOOK if output.fallback else STOP_MAX_HOPS)
        yield from self._speak_rest(output.content)
        if output.calls:
            return (yield from self._dispatch(hop, output))
        reply = output.content.strip()
        if not reply:
            a._count("empty_replies")
            if self.ctx.hops_left > 0:
                return _Next(a.phrases.empty_note)
            return _Done(self._fallback_reply(), STOP_MAX_HOPS)
        return _Done(None, STOP_REPLY)

    def _settle_pending(self) -> Generator[Any, None, _Step | None]:
        """Calls waiting for a yes or no from the previous turn: a yes runs them (the model
        then words the answer), a no drops them; anything else drops them too and the turn
        goes on as a new request. None: nothing was pending, or it was dropped that way."""
        from edgevox.agents.confirm import PENDING_KEY, yes_or_no
        from edgevox.parsing import ToolCall

        pending = self.session.meta.pop(PENDING_KEY, None)
        if not pending:
            return None
        answer = yes_or_no(self.ctx.text)
        if answer is None:
            return None
        if answer is False:
            return _Done(self.agent.phrases.declined, STOP_REPLY)
        calls = [ToolCall(None, p["name"], dict(p.get("arguments") or {}), confidence=p.get("confidence"))
                 for p in pending if isinstance(p, dict) and p.get("name") in self.agent.registry.names()]
        if not calls:
            return None
        self.hops = 1
        output = LLMOutput(hop=0, text="", content="", calls=calls, rejected=[], reasoning=None,
                           finish_reason="stop", strategy="confirmed")
        step = yield from self._dispatch(0, output, confirmed=True)
        if isinstance(step, _Done):
            return step
        # said from the results, not by the model: measured, a 0.5B model answering here
        # repeated its own question ("Unlock the front door?") after the door was unlocked
        phrases = self.agent.phrases
        failed = [r for r in self.ctx.records if not r.ok]
        if failed:
            return _Done(phrases.tool_failed.format(error=failed[0].error), STOP_REPLY)
        summary = "; ".join(summarise(r.result) for r in self.ctx.records)
        return _Done(phrases.done.format(summary=summary), STOP_REPLY)

    def _drop_note_echo(self, output: LLMOutput, notes: list[str]) -> LLMOutput:
        """Small models sometimes read the runtime's one-off note back: never speak it."""
        content = output.content
        for note in notes:
            for form in (f"({note})", note):
                if form and form in content:
                    content = content.replace(form, " ")
        if content == output.content:
            return output
        self.agent._count("note_echoes")
        return output.replace(content=" ".join(content.split()))

    # -- generation -----------------------------------------------------------------------

    def _messages(self) -> list[dict]:
        return self.agent.conversation(self.session)

    def _messages_for(self, request: LLMRequest) -> list[dict]:
        msgs = request.messages
        if not request.notes:
            return msgs
        from edgevox.llm.template import prepare_messages

        note = "(" + " ".join(dict.fromkeys(n.strip() for n in request.notes if n.strip())) + ")"
        msgs = prepare_messages(msgs, self.agent.preset)  # fold synthetic results first
        if msgs and msgs[-1]["role"] == "user":  # keep roles alternating for strict templates
            last = dict(msgs[-1])
            last["content"] = f"{last.get('content') or ''}\n\n{note}".strip()
            return [*msgs[:-1], last]
        return [*msgs, {"role": "user", "content": note}]

    def _render_fitting(self, request: LLMRequest, tools: list[dict]) -> tuple[list[dict], str]:
        """Trim the session until the prompt plus the reply budget fits; return the prompt."""
        a = self.agent
        backend = a.backend
        n_ctx = getattr(backend, "n_ctx", None)
        msgs = self._messages_for(request)
        prompt = backend.render(msgs, tools or None)
        if not n_ctx or not hasattr(backend, "tokenize"):
            return msgs, prompt
        budget = n_ctx - request.options.get("max_tokens", a.max_tokens) - 1
        if len(backend.tokenize(prompt)) <= budget:
            return msgs, prompt
        turn_start = self.start_len
        n_head = len(a.prompt_prefix(self.session))

        n_head = len(a.prompt_prefix(self.session))

        def count(history: list[dict]) -> int:
            head = request.messages[:n_head]
            return len(backend.tokenize(backend.render(self._messages_for(
                LLMRequest(request.hop, head + history[:], tools, request.strategy, {}, request.notes)),
                tools or None)))

        dropped = self.session.trim_to_fit(count, budget, keep_from=turn_start)
        if dropped:
            a._count("trimmed_messages")
            self.start_len = max(0, self.start_len - dropped)
            log.info("agent %r: dropped %d old messages to fit the context", a.name, dropped)
            request.messages = self._messages()
            msgs = self._messages_for(request)
            prompt = backend.render(msgs, tools or None)
        if len(backend.tokenize(prompt)) > budget:
            raise _Overflow(f"this turn needs more than the {n_ctx}-token context window")
        return msgs, prompt

    def _generate(self, request: LLMRequest) -> Generator[Any, None, LLMOutput]:
        from edgevox.llm import ContextOverflow
        from edgevox.parsing import (
            DEFAULT_THINK_TAGS,
            CallComplete,
            StreamingParser,
            TextDelta,
            parse_tool_calls,
        )

        a = self.agent
        tools = request.tools if request.strategy != "none" else []
        grammar = a.grammar_for(request.strategy, tools)
        msgs, prompt = self._render_fitting(request, tools)
        think = (a.preset.think,) if a.preset.think else DEFAULT_THINK_TAGS
        parser = StreamingParser(a.preset.detectors, tools=tools or None, think_tags=think)
        ordered = sorted(a.hooks.hooks, key=lambda h: not getattr(h, "stream_first", False))  # stable
        filters = [f for f in (h.stream_filter(self.ctx) for h in ordered) if f is not None]
        early = self._early_ok and bool(tools) and request.strategy != "none"
        self._drop_early()
        self._hop_spoken = ""
        opts = {k: v for k, v in request.options.items() if v is not None}
        if tools and getattr(a.backend, "reports_decisions", False):
            opts.setdefault("decisions", _DECISIONS)  # margins for the calls' confidence
        t0 = time.perf_counter()
        pieces: list[str] = []
        said: list[str] = []  # the parser's content deltas (what precedes a call)
        stream = None
        ended = False
        try:
            stream = a.backend.stream(msgs, tools or None, grammar=grammar,
                                      stop_event=self.stop, prompt=prompt, **opts)
            for piece in stream:
                pieces.append(piece)
                for ev in parser.feed(piece):
                    if isinstance(ev, TextDelta):
                        said.append(ev.text)
                        yield from self._say(ev.text, filters)
                    elif isinstance(ev, CallComplete):
                        if early:
                            self._start_early(ev.call)
                        # (not when the call's confidence is wanted: it comes with the end)
                        ended = ended or (not a.parallel_tool_calls and bool(tools) and a.confirm_below is None)
                if ended:  # one call allowed and it is complete: nothing more to decode
                    break
        except ContextOverflow as exc:
            raise _Overflow(str(exc)) from None
        except (RuntimeError, OSError, ValueError) as exc:  # BackendError is a RuntimeError
            raise _BackendFailed(f"{type(exc).__name__}: {exc}") from exc
        finally:
            if stream is not None:
                stream.close()  # frees the backend at once when decoding ended at the call
            self.llm_s += time.perf_counter() - t0
        completion = stream.completion  # a TextStream (see edgevox.llm.Backend)
        if not self.stop.is_set() and not ended:  # a cancelled tail is undecided text: never say it
            for ev in parser.close():
                if isinstance(ev, TextDelta):
                    yield from self._say(ev.text, filters)
        text = completion.text if completion is not None else "".join(pieces)
        if completion is not None:
            for k in self.usage:
                self.usage[k] += int(completion.usage.get(k, 0))
        if text == "".join(pieces):  # the usual case: the streaming parser has read it all
            parsed = parser.result()
        else:  # a backend whose final text differs from what it streamed: read the final one
            parsed = parse_tool_calls(text, parsers=a.preset.detectors, tools=tools or None, think_tags=think)
        if ended:  # decoding stopped at the one allowed call: what came after it is undecided
            parsed.calls, parsed.content = parsed.calls[:1], "".join(said).strip()
        decisions = completion.info.get("decisions") if completion is not None else None
        calls = list(parsed.calls)
        if decisions is not None:
            from edgevox.agents.confirm import call_confidences

            for call, conf in zip(calls, call_confidences(text, [c.name for c in calls], decisions), strict=True):
                call.confidence = conf
        return LLMOutput(hop=request.hop, text=text, content=parsed.content, calls=calls,
                         rejected=list(parsed.rejected), reasoning=parsed.reasoning,
                         finish_reason=completion.finish_reason if completion else "stop",
                         strategy=request.strategy, decisions=decisions)

    # -- speaking -----------------------------------------------------------------------

    def _say(self, text: str, filters: list[StreamFilter]) -> Iterator[str]:
        for f in filters:
            if not text:
                break
            text = f.feed(text)
        if text:
            if self.ttft is None:
                self.ttft = time.perf_counter() - self.t0
            sep = " " if not self._hop_spoken and self.spoken else ""
            self._hop_spoken += text
            yield sep + text

    def _speak_rest(self, content: str) -> Iterator[str]:
        """Say what the final content of this hop adds to what was already streamed."""
        rest = _remainder(content, self._hop_spoken)
        if rest:
            if self.ttft is None:
                self.ttft = time.perf_counter() - self.t0
            yield (" " if not self._hop_spoken and self.spoken else "") + rest
        # the reply holds the final (hook-processed) text; the stream may have said an
        # earlier version of it when a hook rewrote text that was already streamed
        self.spoken_hop_commit(content)

    def spoken_hop_commit(self, text: str) -> None:
        if text and text.strip():
            self.spoken.append(text.strip())
        self._hop_spoken = ""

    # -- tools ---------------------------------------------------------------------------

    def _plan(self, call: Any) -> tuple[Any, Any] | str | None:
        """Give ``call`` its id and run the ``before_tool`` hooks: ``(call to run, pre-made
        ToolResult or None)``, or the reply of a hook that ended the turn."""
        from edgevox.tools import ToolResult

        a = self.agent
        call.id = assign_ids([call.id], a.preset.call_ids, self.taken_ids,
                             calls=[(call.name, call.arguments)],
                             seed=f"{self.start_len}\x00{self.ctx.text}")[0]
        out = a.hooks.run("before_tool", self.ctx, call, settled=lambda p: isinstance(p, ToolResult))
        if out.ended:
            return out.end_reply
        if isinstance(out.payload, ToolResult):
            out.payload.call_id = call.id
            return call, out.payload
        if hasattr(out.payload, "name") and isinstance(getattr(out.payload, "arguments", None), dict):
            new = out.payload
            new.id = call.id
            return new, None
        log.warning("a before_tool hook returned %r; running the original call", type(out.payload).__name__)
        return call, None

    def _start_early(self, call: Any) -> None:
        """A call the stream just completed starts while the model finishes its reply.

        Only a call of a known tool with valid arguments, and only when every ``after_llm``
        hook keeps completed calls (``Hook.keeps_calls``): a hook that might still drop the
        call must see it before it runs. This plan is the call's one and only: ``_dispatch``
        takes it over when the final parse has the same call at the same place."""
        a = self.agent
        tool = a.registry.get(call.name)
        if tool is None or tool.confirm or a.confirm_below is not None:
            return  # unknown, or it may have to be asked about first (its confidence comes at the end)
        try:
            tool.validate(call.arguments)
        except Exception:
            return
        plan = self._plan(call)
        if isinstance(plan, tuple) and plan[1] is None:
            plan = (plan[0], _start_call(a, plan[0], self.stop))
        self._early.append(((call.name, dict(call.arguments or {})), plan, self.ctx.hop))
        a._count("early_dispatches")

    def _drop_early(self) -> None:
        """Calls started early that no dispatch took over (the hop was cancelled, retried or
        ended otherwise)."""
        early, self._early = self._early, []
        self._record_unused([(plan, hop) for _, plan, hop in early])

    def _record_unused(self, plans: list[tuple[Any, int]]) -> None:
        """Started calls no dispatch took over still go into the turn's record, with what
        came of them: a person's record must show every action that began (a light may be on
        already), ``error_type="cancelled"`` when the turn stopped before the tool ended."""
        if not plans:
            return
        log.warning("agent %r: %d call(s) started early were not used", self.agent.name, len(plans))
        self.agent._count("early_calls_unused")
        for plan, hop in plans:
            if isinstance(plan, tuple) and isinstance(plan[1], _Job):  # (a hook's answer ran nothing)
                self.ctx.records.append(_record(plan[0], plan[1].wait(), hop, True))

    def _ask_first(self, output: LLMOutput) -> str | None:
        """The question to ask instead of running these calls, or None to run them: a tool
        marked ``confirm``, or a call less confident than the agent's ``confirm_below``."""
        from edgevox.agents.confirm import question_for

        a = self.agent
        unsure = [c for c in output.calls
                  if getattr(a.registry.get(c.name), "confirm", False)
                  or (a.confirm_below is not None and c.confidence is not None
                      and c.confidence < a.confirm_below)]
        if not unsure:
            return None
        return " ".join(question_for(a.registry.get(c.name), c.name, c.arguments or {}) for c in output.calls)

    def _dispatch(self, hop: int, output: LLMOutput, confirmed: bool = False) -> Generator[Any, None, _Step]:
        from edgevox.agents.confirm import PENDING_KEY
        from edgevox.tools import ToolResult

        a = self.agent
        question = None if confirmed else self._ask_first(output)
        if question is not None:  # nothing started early: _start_early skips calls that may ask
            a._count("confirmations_asked")
            self.session.meta[PENDING_KEY] = [{"name": c.name, "arguments": dict(c.arguments or {}),
                                               "confidence": c.confidence} for c in output.calls]
            return _Done(question, STOP_CONFIRM)
        early, self._early = self._early, []
        plans = []
        for i, call in enumerate(output.calls):
            same = i < len(early) and early[i][0] == (call.name, dict(call.arguments or {}))
            if same and isinstance(early[i][1], tuple):  # the early call is the streamed one:
                early[i][1][0].confidence = call.confidence  # its margin is known only now
            plans.append(early[i][1] if same else self._plan(call))
        self._record_unused([(plan, at) for i, (_, plan, at) in enumerate(early)
                             if i >= len(plans) or plans[i] is not plan])
        for plan in plans:
            if not isinstance(plan, tuple):  # a hook ended the turn: nothing of this hop is recorded
                return _Done(plan, STOP_HOOK)
        planned = [(c, job if job is not None else _start_call(a, c, self.stop)) for c, job in plans]
        for call, _ in planned:
            yield ToolCallEvent(id=call.id, name=call.name, arguments=dict(call.arguments or {}), hop=hop)
        t0 = time.perf_counter()
        results: list[ToolResult] = []
        end_reply: str | None = None
        for call, job in planned:
            if isinstance(job, ToolResult):
                res, dispatched = job, False
            else:
                res, dispatched = job.wait(), True
            out = a.hooks.run("after_tool", self.ctx, res)
            res = out.payload
            if out.ended and end_reply is None:
                end_reply = out.end_reply
            results.append(res)
            record = _record(call, res, hop, dispatched)
            record.confidence = getattr(call, "confidence", None)
            self.ctx.records.append(record)
            self.ctx.results.append(res)
            ev = ToolResultEvent(id=call.id, name=call.name, ok=res.ok, result=res.value if res.ok else None,
                                 error=res.error, duration_s=res.duration_s, hop=hop, record=record)
            yield ev
        self.tools_s += time.perf_counter() - t0
        if self.stop.is_set():
            return _Done("", STOP_CANCELLED)
        self._record_exchange(output.content, planned, results)
        self.last_failed = not all(r.ok for r in results)
        if end_reply is not None:
            return _Done(end_reply, STOP_HOOK)
        said = self._tools_say([c for c, _ in planned], results)
        if said is not None:  # one hop: the tools word their own results
            a._count("one_hop_replies")
            return _Done(said, STOP_REPLY)
        return _Next()

    def _tools_say(self, calls: list, results: list) -> str | None:
        """The tools' own sentences (``@tool(say=...)``) when every call succeeded and has
        one; None sends the results back to the model as before."""
        sentences = []
        for call, res in zip(calls, results, strict=True):
            tool = self.agent.registry.get(call.name)
            speak = getattr(tool, "speak", None)
            text = speak(res.value, res.arguments if isinstance(res.arguments, dict) else None) \
                if res.ok and speak is not None else None
            if not text:
                return None
            sentences.append(text)
        return " ".join(sentences) if sentences else None

    def _record_exchange(self, content: str, planned: list, results: list) -> None:
        a = self.agent
        markers = tuple(a.preset.stop) + (tuple(a.preset.think) if a.preset.think else ())
        self.session.append({
            "role": "assistant", "content": content or "",
            "tool_calls": [{"id": c.id, "type": "function",
                            "function": {"name": c.name,
                                         "arguments": json.dumps(c.arguments or {}, ensure_ascii=False)}}
                           for c, _ in planned],
        })
        for (c, _), res in zip(planned, results, strict=True):
            self.session.append({"role": "tool", "tool_call_id": c.id, "name": c.name,
                                 "content": neutralise(res.to_model_text(), markers)})

    # -- endings ---------------------------------------------------------------------------

    def _fallback_reply(self) -> str:
        ok = self.ctx.successes()
        if ok:
            return self.agent.phrases.found.format(summary=summarise(ok[-1].result))
        return self.agent.phrases.empty

    def _max_hops_reply(self) -> str:
        ok = self.ctx.successes()
        base = self.agent.phrases.max_hops
        if ok:
            return base.split(".")[0] + ". " + self.agent.phrases.found.format(summary=summarise(ok[-1].result))
        return base

    def _finish(self, reply: str | None, reason: str, *, run_end_hooks: bool = True,
                record: bool = True) -> Generator[str, None, AgentResult]:
        """Say the closing words, build the result, run on_run_end hooks, and leave the
        session consistent."""
        a = self.agent
        self._drop_early()
        extra = reply.strip() if reply else ""
        if reason != STOP_CANCELLED and not extra and not any(self.spoken):
            extra = a.phrases.empty  # never silence
        if extra and reason != STOP_CANCELLED:
            if self.ttft is None and reason == STOP_REPLY:
                self.ttft = time.perf_counter() - self.t0
            yield (" " if any(self.spoken) else "") + extra
            self.spoken.append(extra)
        text = " ".join(s for s in self.spoken if s)
        if reason == STOP_CANCELLED:
            self._settle_cancelled(text)
            record = False
        result = AgentResult(
            reply=text, calls=list(self.ctx.records), hops=self.hops, stopped_reason=reason,
            usage=dict(self.usage),
            timings={"total_s": time.perf_counter() - self.t0, "llm_s": self.llm_s,
                     "tools_s": self.tools_s, "ttft_s": self.ttft},
        )
        if run_end_hooks:
            try:
                out = a.hooks.run("on_run_end", self.ctx, result)
                if isinstance(out.payload, AgentResult):
                    result = out.payload
                if out.ended:
                    result.reply = out.end_reply or result.reply
                    result.stopped_reason = STOP_HOOK
            except HookFailed as exc:
                log.error("%s; the turn fails closed", exc)
                result.reply, result.stopped_reason = a.phrases.hook_failed, STOP_HOOK_FAILED
            if result.reply != text and reason != STOP_CANCELLED:
                more = _remainder(result.reply, text)
                if more:  # a hook extended the reply: say the rest
                    yield (" " if text else "") + more
        if record:
            self.session.append({"role": "assistant", "content": result.reply})
        result.timings["total_s"] = time.perf_counter() - self.t0
        self.finished = True
        return result

    def _settle_cancelled(self, spoken: str) -> None:
        """Drop the partial exchange: keep the user message + what was said, or nothing."""
        self.session.truncate(self.start_len)
        if spoken:
            self.session.append({"role": "user", "content": self.ctx.text})
            self.session.append({"role": "assistant", "content": spoken})

    def abandon(self) -> None:
        """The stream was closed before the end: treat as cancelled.

        The pieces of the current hop the consumer already took count as said, as they
        do when the stop event cancels the turn.
        """
        self.stop.set()
        self.spoken_hop_commit(self._hop_spoken)
        self._settle_cancelled(" ".join(self.spoken))
        self.finished = True


class WarmJob:
    """A prompt-prefix warm-up running in its own thread (``LLMAgent.warm``)."""

    def __init__(self, agent: LLMAgent, persist: bool):
        self.info: dict | None = None
        self.error: str | None = None
        #: the prefix's tokens, once computed
        self.tokens: list[int] | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(agent, persist),
                                        name=f"edgevox-warm-{agent.name}", daemon=True)
        self._thread.start()

    def _run(self, agent: LLMAgent, persist: bool) -> None:
        # the backend's lock around tokenizing too: a model closed meanwhile is refused
        # (an error), never read after it was freed
        lock = getattr(agent.backend, "lock", None) or contextlib.nullcontext()
        try:
            with lock:
                self.tokens = agent.prefix_tokens()
                self.info = info = agent.backend.warm_prefix(self.tokens, persist=persist)
                t0 = time.perf_counter()
                info["grammars"] = len(agent.prepare_decoding())
                if hasattr(agent.backend, "rehearse"):
                    agent.backend.rehearse()
                info["prepare_s"] = time.perf_counter() - t0
        except Exception as exc:  # a failed warm-up only costs time: the turn evaluates it
            self.error = f"{type(exc).__name__}: {exc}"
            log.warning("agent %r: warming the prompt prefix failed (%s)", agent.name, self.error)
        finally:
            self._done.set()

    def wait(self, timeout: float | None = None) -> dict | None:
        """Block until the warm-up ended; its info (None if it failed or timed out)."""
        self._done.wait(timeout)
        return self.info

    @property
    def done(self) -> bool:
        return self._done.is_set()


class _Overflow(Exception):
    pass


class _BackendFailed(Exception):
    pass


class _Job:
    """One tool call started on the registry; ``wait`` honours the turn's stop signal
    (a cancelled turn gets ``error_type="cancelled"`` at once, the tool's thread is left)."""

    def __init__(self, agent: LLMAgent, call: Any, stop: _Stop):
        self.stop = stop
        tool = agent.registry.get(call.name)
        limits = [t for t in (getattr(tool, "timeout", None), agent.tool_timeout) if t]
        self._running = agent.registry.start(call, timeout=min(limits) if limits else None)

    def wait(self) -> Any:
        return self._running.wait(self.stop)  # type: ignore[arg-type]


def _start_call(agent: LLMAgent, call: Any, stop: _Stop) -> _Job:
    return _Job(agent, call, stop)


def _record(call: Any, res: Any, hop: int, dispatched: bool) -> CallRecord:
    args = res.arguments if isinstance(res.arguments, dict) else (call.arguments or {})
    return CallRecord(name=call.name, arguments=dict(args), result=res.value if res.ok else None,
                      error=None if res.ok else (res.error or res.error_type or "error"),
                      duration_s=res.duration_s, id=call.id, error_type=res.error_type, hop=hop,
                      dispatched=dispatched and res.error_type != "cancelled")


def _remainder(final: str, spoken: str) -> str:
    """What ``final`` adds after the already ``spoken`` text.

    Whitespace differences are ignored. If the two diverge (a hook rewrote text that was
    already streamed), the rest of ``final`` from the point of divergence is returned:
    a repeated word is better than a lost answer.
    """
    if not spoken:
        return final.strip()
    i = j = 0
    while i < len(spoken) and j <= len(final):
        if spoken[i].isspace():
            i += 1
            continue
        while j < len(final) and final[j].isspace():
            j += 1
        if j >= len(final) or final[j] != spoken[i]:
            break
        i += 1
        j += 1
    rest = final[j:]
    return rest if rest.strip() else ""

