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

Where the parts live: this module holds the agent (configuration, the prompt prefix, the
decoding strategy, the public API); ``turn`` drives one turn's hops and ends it, ``hop``
generates and speaks a hop, ``dispatch`` runs a hop's tool calls, ``warm`` evaluates the
prefix in the background, and ``steps`` holds what these parts hand each other.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Generator, Iterable
from typing import Any

from edgevox.agents.hooks import Hook, HookRunner
from edgevox.agents.hop import note_text
from edgevox.agents.phrases import DEFAULT_PHRASES, Phrases
from edgevox.agents.session import Session
from edgevox.agents.steps import TurnStop
from edgevox.agents.turn import AgentStream, RunningTurn
from edgevox.agents.types import AgentResult
from edgevox.agents.warm import WarmJob, shared_prefix_tokens

__all__ = ["DEFAULT_INSTRUCTIONS", "AgentStream", "LLMAgent", "WarmJob"]

log = logging.getLogger(__name__)

DEFAULT_INSTRUCTIONS = "You are a helpful voice assistant. Answer in one or two short sentences."


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
        #: the hop right after tool results that all succeeded only answers in words (the
        #: preset profile's ``answer_after_results``; see ``edgevox.agents.types.ANSWER``)
        self.answer_after_results = bool(profile.get("answer_after_results", False))
        self.confirm_below = confirm_below if confirm_below is not None else profile.get("confirm_below")
        #: (wire format, preset) in which the first acting hop's calls are written again when
        #: no tool has examples (the profile's ``own_layout``; see ``edgevox.agents.own_layout``)
        self.own_layout: tuple[str, str] | None = (
            (profile["own_layout"], profile.get("own_layout_preset", self.preset.name))
            if profile.get("own_layout") else None)
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
        self._active: set[TurnStop] = set()
        self._active_lock = threading.Lock()
        self._warm: WarmJob | None = None
        if warm:
            self.warm()

    # -- the static prompt prefix ---------------------------------------------------

    def prefix_tokens(self, session: Session | None = None) -> list[int]:
        """The tokens every turn's prompt starts with: the prefix rendered with the tools,
        up to where user turns of different shapes first differ (text that starts with a
        newline merges with the template's own newline into one token)."""
        tools = self.registry.schemas() if len(self.registry) else None
        return shared_prefix_tokens(self.backend, self.prompt_prefix(session), tools)

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
        from edgevox.grammars import GrammarError, grammar_for_strategy, supports_grammar

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
        (the session's own system text wins over the instructions), then the whole example
        rounds and the demonstration turns, rendered by the preset like any other turn."""
        from edgevox.agents.demonstrations import demonstration_messages, round_messages

        sess = session if session is not None else self.session
        system = sess.system if sess.system is not None else self.instructions
        head = [{"role": "system", "content": system}] if system else []
        note = self.result_note()
        # the rounds first: placed last, next to the conversation, the model answered requests
        # with made-up state in words instead of calling ("The current time is 10:30 PM.")
        return head + round_messages(self.rounds, note and note_text([note])) + demonstration_messages(self.demonstrations)

    @property
    def rounds(self) -> list[Any]:
        """Whole example rounds (request, call, result, answer) from the tools' ``rounds=``,
        shown before the demonstrations when those are built from the tools and some tool
        has no ``say=``. Why only then: they teach the hop that words a successful result,
        which a registry whose every tool words its own never runs, and they cost the first
        hop -- measured with them, small talk drew calls ("Tell me a joke." -> media_control,
        blocked by grounding: "Sorry, I can't do that." instead of the joke)."""
        from edgevox.agents.demonstrations import round_demonstrations

        tools = list(self.registry)
        if self._demo_setting is not True or all(getattr(t, "say", None) for t in tools):
            return []
        return round_demonstrations(tools)

    def result_note(self, failed: bool = False) -> str | None:
        """The one-off note of a hop right after tool results, on presets with a tool role
        (the others carry theirs in the synthetic results message). None after successful
        results under ``answer_after_results``: the answer-only grammar already does what
        the answer note asks (words, not another call), and its ~20 tokens were prefilled
        before every such hop's first word (measured without it, 10 dev requests: the same
        replies in substance, no echo, first sentence 0.86x)."""
        if not self.preset.native_tool_role or (self.answer_after_results and not failed):
            return None
        return (self.phrases.failed_note if failed else self.phrases.answer_note) or None

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
        stop = TurnStop(stop_event)
        with self._active_lock:
            self._active.add(stop)
        turn = RunningTurn(self, sess, text, stop, self.tool_choice if tool_choice is None else tool_choice)
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
