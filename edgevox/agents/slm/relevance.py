"""Relevance by meaning: is a request for one of the tools at all, and for which one.

Grounding (``grounding.py``) compares words; a request said in words no tool uses ("Unpause
it.", "Kill the lights") shares none, and a line that shares a word ("Why is the sky
blue?" -> the weather) looks grounded. Here the request is compared by meaning: a sentence
embedding (``edgevox.llm.embedding``, all-MiniLM-L6-v2) against two pools of short lines,

* each tool's requests: its ``@tool(examples=)`` and ``@tool(phrasings=)`` and the first
  sentence of its description (from the registry, so any tool set has them), and
* ``NO_TOOL_LINES``: a fixed, generic pool of things people say to an assistant that no
  device tool serves (greetings, thanks, "never mind", knowledge, arithmetic, opinions),
  written here and taken from no evaluation set.

The nearest neighbour in each pool gives a similarity per tool and one for "no tool"
(``Relevance``); the gate that acts on them is ``RelevanceGate``.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from edgevox.agents.demonstrations import first_sentence, tool_spec
from edgevox.agents.hooks import Hook, HookResult, TurnContext
from edgevox.agents.slm.changed_mind import minds_nothing
from edgevox.agents.slm.grounding import (
    HANDOVER,
    RELATED,
    VERDICT,
    Grounding,
    held_back_call,
    reason_for,
)
from edgevox.agents.slm.held_back import HELD_BACK, WAITS, unheld
from edgevox.agents.slm.parts import parts_of
from edgevox.agents.slm.questions import is_question, orders_beside_a_question
from edgevox.agents.slm.remarks import asks_nothing
from edgevox.agents.slm.services import asks_another_service
from edgevox.agents.slm.telling import only_tells
from edgevox.agents.slm.vocabulary import (
    HOME_PLACES,
    UNITS,
    WORD,
    changes_things,
    content_words,
    enum_of,
    heard_words,
    properties,
    stem,
    target_words,
    tool_words,
)
from edgevox.agents.types import ANSWER

log = logging.getLogger(__name__)

#: Generic lines no device tool serves (written for this project, not from an evaluation).
NO_TOOL_LINES: tuple[str, ...] = (
    "Hi there.", "Hello, how's it going?", "Good morning.", "Hey.", "Good night.", "See you later.",
    "Thanks!", "Thank you so much.", "Great, thanks.", "Okay.", "Never mind.",
    "Cancel that, I changed my mind.", "Forget what I said.", "Nothing, sorry.",
    "Sorry, I wasn't talking to you.", "Hmm.", "Let me think.", "Who are you?", "What can you do?",
    "Tell me a joke.", "How are you?", "You're great.", "I love you.", "That's wrong.", "Are you a robot?",
    "What is the capital of France?", "Who wrote Hamlet?", "How far is the moon?",
    "What does photosynthesis mean?", "Why do cats purr?", "How do I boil an egg?", "What is 12 times 7?",
    "What's the square root of 81?", "How many days are in a leap year?", "Convert 5 miles to kilometers.",
    "Spell necessary.", "What's your favorite color?", "Can you recommend a good book?",
    "Tell me about the Roman empire.", "What's the meaning of life?", "What did I just ask you?",
    "Translate hello into Spanish.", "Write me a poem about the sea.", "What's a good name for a dog?",
    "How do you say thank you in Japanese?", "Who won the world cup in 2018?",
    "What's the difference between a virus and a bacterium?", "Is the door locked?", "Is the oven on?",
)


#: the gate's thresholds on ``Relevance.margin`` (chosen on the tuning splits dev to dev4; see
#: RelevanceGate). Session 6 added ``@tool(phrasings=)`` to the home tools, which raised every
#: margin (AUC requests vs no-tool lines 0.86 -> 0.91 on dev, 0.77 -> 0.85 dev2, 0.83 -> 0.90
#: dev3, 0.85 -> 0.90 dev4), so each threshold moved to keep its share of the no-tool lines:
#: must-call 0.15 -> 0.25 (requests forced 85 -> 92 %, no-tool lines 35 -> 36 %), answer in words
#: -0.1 -> 0.0 (no request's first turn below 0.13; 81 of 245 no-tool lines below 0)
ANSWER_BELOW: float | None = 0.0
CALL_ABOVE: float | None = 0.25
REDIRECT_ABOVE: float | None = 0.05
#: the one-off note of a redirected hop (never stored in the session)
REDIRECT_NOTE = 'Call {tool} for the request "{request}", with the arguments it says.'
TRUST_ABOVE: float | None = 0.3
READ_TRUST_ABOVE: float | None = 0.2
#: a call of a tool this far below the nearest no-tool line is blocked (off: see RelevanceGate)
FAR_BELOW: float | None = None
TRUST_LEAD = 0.1
#: a part of a request this near a tool keeps the whole from being answered in words (``_a_part_asks``)
PART_CALL_ABOVE = 0.25


@dataclass(frozen=True)
class Relevance:
    """How near a request is to each tool's requests and to the no-tool lines (cosines)."""

    tools: dict[str, float]
    none: float

    @property
    def best(self) -> tuple[str | None, float]:
        """The nearest tool and its similarity (None: no tools)."""
        if not self.tools:
            return None, -1.0
        name = max(self.tools, key=self.tools.__getitem__)
        return name, self.tools[name]

    @property
    def margin(self) -> float:
        """Nearest tool minus nearest no-tool line: above 0 the request looks like a tool's."""
        return self.best[1] - self.none

    def runner_up(self) -> float:
        """The second tool's similarity (-1 when there is one tool)."""
        return self.second[1]

    @property
    def second(self) -> tuple[str | None, float]:
        """The second nearest tool and its similarity (None, -1.0 when there is one tool)."""
        ranked = sorted(self.tools.items(), key=lambda kv: kv[1], reverse=True)
        return ranked[1] if len(ranked) > 1 else (None, -1.0)


def tool_lines(tool: Any) -> list[str]:
    """What a tool's requests sound like: its examples' requests, its phrasings (other ways
    people ask for it, never shown to the model) and its description's first sentence."""
    name, description, _, examples = tool_spec(tool)
    lines = [request for request, _ in examples] + list(getattr(tool, "phrasings", None) or ())
    head = first_sentence(description).strip() or name.replace("_", " ")
    return list(dict.fromkeys([*lines, head]))


class ToolIndex:
    """The two pools of one tool set, embedded once; ``relevance(text)`` scores a request."""

    def __init__(self, tools: Iterable[Any], embedder: Any, no_tool: Iterable[str] = NO_TOOL_LINES):
        import numpy as np

        self.embedder = embedder
        self.lines: list[str] = []
        self.owner: list[str] = []
        for tool in tools:
            lines = tool_lines(tool)
            self.lines += lines
            self.owner += [tool_spec(tool)[0]] * len(lines)
        self.names = list(dict.fromkeys(self.owner))
        self._tools = embedder.embed(self.lines) if self.lines else np.zeros((0, 384), dtype=np.float32)
        self._cols = {n: [i for i, o in enumerate(self.owner) if o == n] for n in self.names}
        pool = (id(embedder), tuple(no_tool))
        if pool not in _POOLS:  # the same generic lines for every tool set: embedded once
            _POOLS[pool] = embedder.embed(list(no_tool))
        self._none = _POOLS[pool]

    def relevance(self, text: str) -> Relevance:
        v = self.embedder.embed([text])[0]
        sims = self._tools @ v
        per = {n: float(sims[cols].max()) for n, cols in self._cols.items()}
        return Relevance(per, float((self._none @ v).max()) if len(self._none) else -1.0)


class RelevanceGate(Hook):
    """Decisions by meaning, around the model's own (see the module docstring):

    * **answer in words**: on the first hop, a request nearer to the no-tool lines than
      to every tool's requests (``margin`` below ``answer_below``) decodes under the
      answer-only strategy (``ANSWER``: the tools are still rendered, so the cached prefix
      is kept), so no call can be made. Measured on the tuning splits before the phrasings:
      no request's first turn was below -0.05, 107 of 283 no-tool lines were; at -0.05 on
      those 83 turns no verdict changed and the median turn was no slower (0.93 vs 1.01 s).
      What it buys is a guarantee on unseen phrasings ("Never mind." can no longer act).
      Not when one part of a request of several is plainly near a tool (``_a_part_asks``);
    * **call**: a request near a tool (``margin`` at least ``call_above``) must call one
      on the first hop; which one is still the model's choice, and grounding's check
      (measured with questions left to the model: "Time?" was answered "Time.", and the
      questions no tool answers, "Is it chilly in the den right now?", read the weather
      unforced as well: grounding's place check keeps those);
    * **unreported** (``unreported``): a question whose nearest tool changes things
      ("How long is left on the timer?" -> ``start_timer``), or whose nearest tool reads but
      a setter is within ``trust_lead`` of it ("What temperature is the house set to?"),
      asks about a state no tool reports: it is never forced to call, and any call it draws
      (the model's ``get_time``, ``get_weather``) is blocked as a question ("Sorry, I can't
      check that.");
    * **far** (off unless ``far_below`` is given): a call of a tool whose own similarity is
      that far below the nearest no-tool line is blocked, though it shares a word with the
      request ("Tell me a joke about cats." -> ``play_music("cats")``). Measured at -0.15:
      it changed no verdict on dev, dev2, dev3, and on a fresh probe it blocked "Resume."
      (one word, media_control at -0.19); the cats joke is answered in words anyway;
    * **trust**: a call of the nearest tool, well ahead of the others (``margin`` at least
      ``trust_above``, ``trust_lead`` over the runner-up), is related to the request though
      it shares no word with it ("Should I bring an umbrella?" -> the weather): grounding
      skips its no-shared-word check (not the device, question and place checks). A tool
      that only tells (``get_time``, ``get_weather``: nothing in the home changes if it is
      wrong) is trusted from ``read_trust_above``: on the tuning splits dev to dev9 (first
      turns), a read-only nearest tool at least 0.2 ahead of the no-tool lines and
      ``trust_lead`` ahead of the next tool was the right one for 58 requests (43 at 0.3);
      the 4 other lines there are blocked by the question, place or device checks anyway
      ("Is it chilly in the den right now?", "Wind the awning out, it's sunny.");
    * **redirect**: when grounding blocks a call as sharing nothing with the request, and
      the request looks like one (``margin`` at least ``redirect_above``) for another tool
      that shares a word of its vocabulary with it, the next hop must call that tool (its
      arguments are the model's, the request repeated in a note), and grounding checks
      that call too. At most once a turn.

    None of them right after an action ("And the office.", "Same for the hallway."): a
    sentence embedding knows nothing of the turn before (``follow_up`` handles those).
    Thresholds were chosen on the home evaluation's tuning splits dev, dev2 and dev3
    (evals/README.md). Without the embedding model (onnxruntime or tokenizers missing,
    the model not pulled and no network) the gate stands aside and says so once in the log.
    """

    name = "relevance"
    priority = 4  # before grounding (5): its redirect must be decided before the block ends the turn

    def __init__(self, *, answer_below: float | None = ANSWER_BELOW, call_above: float | None = CALL_ABOVE,
                 redirect_above: float | None = REDIRECT_ABOVE, trust_above: float | None = TRUST_ABOVE,
                 trust_lead: float = TRUST_LEAD, unreported: bool = True, far_below: float | None = FAR_BELOW,
                 read_trust_above: float | None = READ_TRUST_ABOVE, embedder: Any = None, **kw: Any):
        super().__init__(**kw)
        self.read_trust_above = read_trust_above
        self.far_below = far_below
        self.unreported = unreported
        self.trust_above = trust_above
        self.trust_lead = trust_lead
        self.answer_below = answer_below
        self.call_above = call_above
        self.redirect_above = redirect_above
        self._embedder = embedder
        self._failed = False

    @classmethod
    def answer_only(cls, answer_below: float | None = ANSWER_BELOW, **kw: Any) -> RelevanceGate:
        """Only the answer-in-words decision, at the threshold chosen on the home splits: what
        ``default_slm_hooks()`` gives any agent. The other decisions were tuned on one tool
        set's requests and phrasings; this one only ever stops a call. Measured on BFCL (the
        tools' descriptions alone, session 7, the threshold not tuned there): a call is made
        impossible on 40 of live_irrelevance's first 50 cases and on 1 of the first 50 of
        simple, multiple, parallel and parallel_multiple each at most."""
        return cls(answer_below=answer_below, call_above=None, redirect_above=None, trust_above=None,
                   unreported=False, **kw)

    def index(self, registry: Any) -> ToolIndex | None:
        """The registry's two pools, embedded once per tool set and process (None: no
        embedding model). Shared by every gate: the voice and the evaluation build a fresh
        agent, and so a fresh gate, per conversation."""
        key = (registry.fingerprint, tuple(getattr(t, "phrasings", ()) for t in registry), id(self._embedder))
        with _INDEX_LOCK:
            if key in _INDEXES:
                _INDEXES.move_to_end(key)
            if key in _INDEXES or self._failed:
                return _INDEXES.get(key)
            try:
                embedder = self._embedder
                if embedder is None:
                    from edgevox.llm.embedding import load_embedder

                    embedder = load_embedder()
                _INDEXES[key] = ToolIndex(list(registry), embedder)
                while len(_INDEXES) > MAX_INDEXES:  # a BFCL run meets thousands of tool sets
                    _INDEXES.popitem(last=False)
            except Exception as exc:  # noqa: BLE001 -- an optional model: the gate stands aside
                self._failed = True
                log.warning("relevance gate off: no sentence embeddings (%s: %s)", type(exc).__name__, exc)
                return None
            return _INDEXES[key]

    def prepare(self, agent: Any) -> None:
        """Load the model and embed the registry's pools now (the agent's warm-up calls it)."""
        if len(agent.registry):
            self.index(agent.registry)

    def _relevance(self, ctx: TurnContext, *, after_action: bool = False) -> Relevance | None:
        """The request's relevance, once a turn; None without a model, and right after an
        action (unless ``after_action``): a line then may go on with it ("And the office.",
        "Same for the hallway."), and a sentence embedding knows nothing of the turn before."""
        st = ctx.state(self)
        if "after_action" not in st:
            st["after_action"] = _after_action(ctx)  # (a first turn's "it" points nowhere back)
        if st["after_action"] and not after_action:
            return None  # not embedded at all unless a caller asks for it after an action
        if "relevance" not in st:
            index = self.index(ctx.registry) if len(ctx.registry) else None
            # judged without what the line holds back ("Never mind the thermostat, what time is it?", dev53)
            st["relevance"] = None if index is None else index.relevance(unheld(heard_words(ctx.text, ctx.registry)))
        return st["relevance"]

    def _unreported(self, ctx: TurnContext, rel: Relevance) -> bool:
        """A question whose nearest tool changes things ("How long is left on the timer?" ->
        ``start_timer``): it asks about a state, and the tool that could say it would be
        one that reads it, not the setter it sounds like. Measured on dev, dev2 and dev3:
        every such question was a line no tool serves, and every question a tool answers
        (the weather, the time) was nearest to that tool."""
        if not self.unreported or not is_question(ctx.text) or rel.best[0] is None or asks_the_hour(ctx.text) \
                or orders_beside_a_question(ctx.text):  # each call judged by its own sentence (grounding)
            return False
        tool, (other, sim) = ctx.registry.get(rel.best[0]), rel.second
        if changes_things(tool):
            return True
        # as near a setter as the reader: "What temperature is the house set to?" (the weather
        # 0.69, the thermostat 0.64) asks for the setting; on the tuning splits every question
        # within the lead of a setter was a line no tool serves
        setter = ctx.registry.get(other) if other else None
        if setter is None or not changes_things(setter) or rel.best[1] - sim >= self.trust_lead:
            return False
        # unless the reader's own thing is said and the setter's is not ("What's the time now? I've
        # completely lost track with this ironing.", dev44: the time 0.098 ahead of the timer);
        # on the tuning splits every such question was the reader's
        said = content_words(ctx.text)
        return not (said & (target_words(tool) - UNITS) and not said & (target_words(setter) - UNITS))

    def _a_part_asks(self, ctx: TurnContext) -> bool:
        """Is one part of a request of several plainly near a tool (margin at least
        ``PART_CALL_ABOVE``)? Then the whole is not made to answer in words, however far from
        every tool it sits as one text: a request of several asks ("Translate 'Hello World'
        from English to Spanish and 'Goodbye' from French to English. In addition to that get
        the current time in 'Los Angeles' and 'London'.") is as near the no-tool line "Translate
        hello into Spanish." as its first part is. Measured offline on the tools' embeddings
        (session 18): of the requests the gate sent to words, this lifted 2 of 2 in BFCL
        parallel_multiple 0-99 and 1 of 42 in live_multiple 0-399 (all three asking for a
        tool), and none of the 50 in irrelevance 0-99, the 83 in live_irrelevance 0-99 or the
        156 turns of the home's tuning splits (parts_of: sentences and joins)."""
        parts = parts_of(ctx.text)
        index = self.index(ctx.registry) if len(parts) >= 2 else None
        return index is not None and any(index.relevance(p).margin >= PART_CALL_ABOVE for p in parts)

    def before_llm(self, ctx: TurnContext, request: Any) -> HookResult | None:
        st = ctx.state(self)
        if st.get("redirect") and not st.get("redirected") and request.tools:
            st["redirected"] = True
            # the request again, last: the model then takes the arguments from it, not from
            # the demonstrations (measured: "a forty five minute timer" -> the demo's 1 h 5 s)
            note = REDIRECT_NOTE.format(tool=st["redirect"], request=unheld(ctx.text))  # not what it holds back
            return HookResult.replace(dataclasses.replace(request, strategy=("single", st["redirect"]),
                                                          notes=[note]),
                                      reason=f"redirected to {st['redirect']}", counted=False)
        if ctx.hop != 0 or request.strategy not in ("reply_or_tool", "free") or not request.tools:
            return None  # a forced or tool-less hop, or a later one: not the request's first decision
        if takes_itself_back(ctx.text):  # nothing to do, and nothing for the model to word: it had
            # said "Sorry, I can't do that." (dev18)
            return HookResult.end(ctx.agent.phrases.taken_back, reason="taken back")
        if praises_as_is(ctx.text):
            return HookResult.replace(dataclasses.replace(request, strategy=ANSWER), reason="a state praised")
        if why := asks_nothing(ctx.text):  # "I already switched the office light off." (dev44)
            if why in HELD_BACK:  # "Don't add mince to the list, ..."; "In forty minutes, switch ..." (dev53)
                return HookResult.end(ctx.agent.phrases.cannot_wait if why in WAITS else ctx.agent.phrases.left_alone,
                                      reason=why)
            return HookResult.replace(dataclasses.replace(request, strategy=ANSWER), reason=why)
        if minds_nothing(ctx.text) and not _after_action(ctx):
            return HookResult.replace(dataclasses.replace(request, strategy=ANSWER), reason="never mind, and why")
        rel = self._relevance(ctx)
        if rel is None:
            return self._read_after_action(ctx, request)
        if only_tells(ctx.text) and rel.best[0] and changes_things(ctx.registry.get(rel.best[0])):
            # "We left the garage light on for a whole week once ..." (dev56): nothing for a setter
            return HookResult.replace(dataclasses.replace(request, strategy=ANSWER), reason="only tells")
        if (self.answer_below is not None and rel.margin < self.answer_below
                and not commands_a_tool(ctx.text, ctx.registry) and not self._a_part_asks(ctx)):
            return HookResult.replace(dataclasses.replace(request, strategy=ANSWER),
                                      reason=f"no tool near ({rel.margin:+.2f})")
        if self._unreported(ctx, rel):
            return None  # a question about a state no tool reports: never forced to call
        if self.call_above is not None and rel.margin >= self.call_above:
            return HookResult.replace(dataclasses.replace(request, strategy="required"),
                                      reason=f"{rel.best[0]} near ({rel.margin:+.2f})")
        return None

    def _read_after_action(self, ctx: TurnContext, request: Any) -> HookResult | None:
        """A question plainly for a tool that reads, asked right after an action ("Turn off the
        bathroom light." then "What's the weather going to be like today?", dev36: the model
        made the weather up) -> a call required, as on a first turn. Only a reader, a question
        and a clear lead: an order after an action may go on with it ("And the office.")."""
        if self.call_above is None or not is_question(ctx.text):
            return None
        rel = self._relevance(ctx, after_action=True)
        tool = ctx.registry.get(rel.best[0]) if rel is not None and rel.best[0] else None
        if (tool is None or changes_things(tool) or rel.margin < self.call_above
                or rel.best[1] - rel.runner_up() < self.trust_lead):
            return None
        return HookResult.replace(dataclasses.replace(request, strategy="required"),
                                  reason=f"{tool.name} near after an action ({rel.margin:+.2f})")

    def before_tool(self, ctx: TurnContext, call: Any) -> HookResult | None:
        st = ctx.state(self)
        tool = ctx.registry.get(call.name)
        ctx.state(Grounding.name).pop(VERDICT, None)  # decided per call
        if st.get("redirect") or ctx.successes() or tool is None or not isinstance(call.arguments, dict):
            return None
        rel = self._relevance(ctx)
        if rel is None:
            return self._redirect(ctx, tool, call, None)
        if self._unreported(ctx, rel) and not reads_a_named_place(ctx.text, tool, call.arguments):
            ctx.state(Grounding.name)[VERDICT] = "question"  # grounding blocks it: "Sorry, I can't check that."
            return None
        if self.far_below is not None and rel.tools.get(call.name, 1.0) - rel.none < self.far_below:
            # far from the tool's requests, though a word is shared ("Tell me a joke about
            # cats." -> play_music("cats"): the query said verbatim grounds it by words)
            ctx.state(Grounding.name)[VERDICT] = "unrelated"  # a wrong tool: the redirect below may still apply
        return self._redirect(ctx, tool, call, rel)

    def _redirect(self, ctx: TurnContext, tool: Any, call: Any, rel: Relevance | None) -> HookResult | None:
        """Trust the call, or send a wrong tool's turn on to the nearest tool (see the class)."""
        st = ctx.state(self)
        redirect_above = self.redirect_above
        if rel is None:
            # right after an action only a request clearly for one tool by itself is redirected
            # (dev5: "Skip this one, next please." after the music -> cancel_timer, blocked)
            rel = self._relevance(ctx, after_action=True)
            if rel is None or self.call_above is None or rel.runner_up() > rel.best[1] - self.trust_lead:
                return None
            redirect_above = max(redirect_above or 0.0, self.call_above)
        else:
            name, sim = rel.best
            trust = self.trust_above
            if not changes_things(tool) and self.read_trust_above is not None and trust is not None:
                trust = min(trust, self.read_trust_above)  # a wrong read changes nothing in the home
            if (name == call.name and trust is not None and rel.margin >= trust
                    and sim - rel.runner_up() >= self.trust_lead):
                ctx.state(Grounding.name).setdefault(RELATED, set()).add(name)  # "Bring an umbrella?" -> weather
                return None
        name = rel.best[0]
        # a call of what the line holds back goes on to the tool its plain piece is nearest, the
        # same tool too ("Cancel the tea timer, not the one for the cake.", dev55: the cake's timer)
        held = held_back_call(ctx.text, tool, call.arguments, list(ctx.registry)) is not None
        rest = unheld(ctx.text)
        if held and (ordered := ordered_tools(rest, ctx.registry)):
            verb = WORD.findall(rest.lower())[:1]  # "Cancel the tea timer": the tool named on the verb
            opens = [n for n in ordered if verb and n.split("_")[0].lower() == verb[0]]
            name = opens[0] if len(opens) == 1 else max(ordered, key=lambda n: rel.tools.get(n, -1.0))
        ordered = ordered_tools(ctx.text, ctx.registry)
        if not held and ordered and call.name not in ordered and name not in ordered:
            # the request names the thing it orders ("Set a timer for ten minutes for the
            # eggs.", dev13: nearest the shopping list's "take the eggs off" by its embedding):
            # the turn goes on to that tool, the nearest of them when several share the thing
            name = max(ordered, key=lambda n: rel.tools.get(n, -1.0))
        if (redirect_above is None or rel.margin < redirect_above or name is None or (name == call.name and not held)
                or ctx.hops_left < 2 or reason_for(ctx, tool, call.arguments) != "unrelated"):
            return None  # grounded, or blocked for a device, a question, a place: not a wrong tool
        if asks_another_service(ctx.text, ctx.registry.get(name), anywhere=True):
            # "Send an email to Priya ..." went on to the weather, "Can you book me a cab to
            # King's Cross?" to the shopping list (dev13): a service the tool is not for
            return None
        if not content_words(ctx.text) & tool_words(ctx.registry.get(name)):
            # the other tool must share a word of its own with the request: measured on dev,
            # "Mow the lawn." went on to the shopping list with the request copied as its item
            return None
        st["redirect"] = name
        ctx.state(Grounding.name)[HANDOVER] = True
        return None


#: the verbs of an order given to a device ("set a timer", "turn the light on")
#: a length said before the thing ordered: "Start a 7 minute timer labelled soft-boiled eggs."
#: (dev21: made to answer in words, and it echoed the request)
_LENGTH_SAID = r"(?:\d+(?:\.\d+)?|[a-z]+(?:-[a-z]+)?)\s*(?:and\s+a\s+half\s+)?(?:minute|min|hour|hr|second|sec)s?\s+"
_ORDER = re.compile(r"\b(?:set|start|turn|switch|put|play|add|cancel|stop|dim)\s+(?:on\s+|off\s+|up\s+|down\s+)?"
                    r"(?:a|an|the|my|our|some|that|this)?\s*(?:" + _LENGTH_SAID + r")?(?:([a-z]+)\s+)?([a-z]+)\b")
#: words after the ordered thing: "set a timer for 12 minutes" orders the timer, not "for"
_AFTER_THING = frozenset({"for", "to", "in", "on", "at", "of", "with", "and", "from"})
#: an order said as the thing and its new state: "lights out everywhere", "heating on, please"
#: (dev14: "Right, I'm off to bed, lights out everywhere." was made to answer in words)
_SWITCHED = re.compile(r"\b([a-z]+)\s+(?:on|off|out)\b")
#: an order said as the thing and its length, opening the line: "timer for 7 minutes, soft-boiled
#: eggs" (dev30: nearer a no-tool line about eggs than any timer), "ten minute timer, pasta"
_TIMED = re.compile(r"^\W*(?:a\s+|an\s+)?(?:([a-z]+)\s+for\s+(?:\d+|[a-z]+(?:-[a-z]+)?)\s*(?:minute|min|hour|hr|second|sec)s?\b"
                    r"|" + _LENGTH_SAID + r"([a-z]+)\b)")

#: an order that puts a thing on a list by name, whatever the thing: "Chuck two 7 Up on the list."
#: (dev42: nearer the no-tool lines than any tool, answered in words)
_ONTO = re.compile(r"^\W*(?:(?:please|can\s+you|could\s+you)\s+)?(?:chuck|stick|pop|bung|whack|throw|put|add|jot|write)\b"
                   r"[^,.!?]*?\b(?:on|onto|to)\s+(?:the|my|our)\s+(?:shopping\s+|grocery\s+)?(list)\b")


#: a question whether the clock has reached an hour ("Is it gone five yet?", dev14: nearest a
#: timer by its embedding, so taken for a timer's state): it asks the time of day
_HOUR = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midnight|\d{1,2}(?::\d{2})?)"
_ASKS_THE_HOUR = re.compile(
    r"^\W*(?:(?:so|ok|okay|hey|um|uh|time\s+check|quick\s+question)\W+)*(?:is\s+it|it's|has\s+it|are\s+we)\s+(?:not\s+|already\s+)?"
    rf"(?:(?:(?:gone|past|after|before|nearly|almost|got\s+to)\s+)+{_HOUR}(?:\s*o'?clock)?"
    rf"|{_HOUR}\s*(?:o'?clock|am|pm|a\.m\.|p\.m\.)(?:\s+(?:yet|already))?"
    # "Time check, is it 5 yet?" (dev42): an hour of the clock's face, then "yet"
    r"|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[1-9]|1[0-2])\s+yet)(?:\s+(?:yet|already))?\W*$")


#: a request that ends by taking itself back ("Set a timer for... no, forget it.", dev18: it
#: cancelled a timer named "no"); the words before it must say something of their own
#: what a line began to ask, up to the break before it is taken back
_BEGUN = r"^(.*?\w.*?)(?:\.\.\.|…|[,.;!?-])\s*"
_WITHDRAWN = re.compile(_BEGUN + r"(?:(?:no|nah|oh|actually|wait|hmm|um|uh|ah)\W+)*"
                        r"(?:forget\s+(?:it|that|about\s+it|i\s+said\s+anything)|never\s*mind|don't\s+bother|scratch\s+that"
                        r"|skip\s+it|not\s+now|leave\s+it|no\s+need)"
                        # and why, after it ("Add 4 bananas to... no, never mind, we've got some.", dev40;
                        # "..., forget it, Sophie's reading.", dev46)
                        r"(?:\W+(?:we|we've|we're|i|i've|i'm|it's|there's|that's|they're|[a-z]+'s)\b[^.?!]*)?\W*$")
#: "turn the volume up two... nah, it's fine as it is" (dev40): a thing said fine as it is, after a no
_FINE_AS_IS = re.compile(_BEGUN + r"(?:(?:no|nah|actually|oh)\W+)+"
                         r"it's\s+(?:fine|ok|okay|alright)(?:\s+as\s+it\s+is)?\W*$")
#: "Kitchen lights to 30, no, cancel that, leave them." (dev42: set at 30, then cancelled a timer):
#: "cancel that" after a no takes back what was begun (alone it may cancel a timer)
_CANCELLED = re.compile(_BEGUN + r"(?:(?:no|nah|actually|wait|oh|sorry)\W+)+cancel\s+that"
                        r"(?:\W+leave\s+(?:it|them|that)(?:\s+as\s+(?:it\s+is|they\s+are))?)?\W*$")
#: "Set a timer for, um, hang on, no, the packet says it's ready already." (dev46): no need, said why
_NO_NEED_NOW = re.compile(_BEGUN + r"(?:(?:um|uh|hang\s+on|wait|actually|oh)\W+)*no\W+"
                          r"(?:the|it|it's|its|that's|they're|we're|[a-z]+'s)\b[^,]*\b(?:already|ready|done|sorted|finished)\b[^.?!]*\W*$")
_ONLY_TAKING_BACK = frozenset("no nah oh actually wait hmm um uh ah ok okay sorry so well".split())


def takes_itself_back(request: str) -> bool:
    """Does ``request`` end by taking back what it began to ask? Not a whole request that only
    takes back the turn before ("No, forget it.": ``follow_up.undo``'s)."""
    low = request.lower().strip()
    m = _WITHDRAWN.match(low) or _FINE_AS_IS.match(low) or _CANCELLED.match(low) or _NO_NEED_NOW.match(low)
    return bool(m) and not set(WORD.findall(m.group(1))) <= _ONLY_TAKING_BACK


#: a state praised as it is, with nothing asked: "Thanks, that 20 minute timer was perfect.",
#: "Thank you, 21 degrees is just right.", "ta, the volume at 30 is spot on" (dev42: each made the
#: call again, the number said read as an order)
_PRAISED = re.compile(
    r"^\W*(?:(?:thanks|thank\s+you|ta|cheers|cool|great|nice|lovely|perfect|oh|ah|yeah|yes|ok|okay|right|mm|wow)\W+)*"
    r"(?:[a-z0-9' %-]*?[a-z][a-z0-9' %-]*?\s+)?(?:is|was|are|were|feels|feel|sounds|sound|looks|look)\s+"
    r"(?:(?:just|absolutely|really|so|pretty|now|bang|dead|quite)\s+)*"
    r"(?:right|perfect|spot\s+on|great|fine|lovely|ideal|nice|good|ok|okay|comfy|cosy|cozy|brilliant|grand|better"
    # praise of a song or a voice ("Adele's voice is unreal.", dev44: played)
    r"|unreal|amazing|incredible|beautiful|gorgeous|stunning|fantastic|awesome|superb|excellent)"
    # what for, or on which ("This lo-fi playlist is perfect for studying.", "Adele's voice is unreal on this one.", dev46)
    r"(?:\s+(?:for|on|in)\s+(?:[a-z'-]+\s+){0,2}[a-z'-]+)?"
    r"(?:\W+(?:now|thanks|thank\s+you|ta|cheers|mate|love))*\W*$")


def praises_as_is(request: str) -> bool:
    """Does ``request`` only praise how a thing is ("the volume at 30 is spot on")? A number
    said there is the state praised, not a level to set."""
    low = re.sub(r"\b(\w+)'s\b", r"\1 is", request.lower().replace("’", "'"))
    return bool(_PRAISED.match(low))


def asks_the_hour(request: str) -> bool:
    """Does ``request`` ask whether it is past an hour of the day ("Is it gone five yet?")?"""
    return bool(_ASKS_THE_HOUR.match(request.lower()))


def ordered_tools(request: str, registry: Any) -> set[str]:
    """The tools whose thing the request orders by name ("..., set a timer." -> both timer
    tools); none for a question ("How do I set a timer on my phone?")."""
    ordered = {stem(w) for m in _ORDER.finditer(request.lower()) for w in m.groups()
               if w and w not in _AFTER_THING} | {stem(m.group(1)) for m in _SWITCHED.finditer(request.lower())} \
        | {stem(w) for m in [_TIMED.match(request.lower())] if m for w in m.groups() if w} \
        | {stem(m.group(1)) for m in [_ONTO.match(request.lower())] if m}
    if not ordered or is_question(request):
        return set()
    return {t.name for t in registry if ordered & (target_words(t) - UNITS)}


def commands_a_tool(request: str, registry: Any) -> bool:
    """Does the request order a tool's thing by name ("..., set a timer.")? Then it is never
    made to answer in words, however near a no-tool line it sits: "Soft-boiled eggs, six and
    a half minutes, set a timer." was nearer "How do I boil an egg?" than any timer request."""
    return bool(ordered_tools(request, registry))


#: the tool sets' indexes, most recently used last (at most MAX_INDEXES are kept)
_INDEXES: OrderedDict[Any, ToolIndex] = OrderedDict()
MAX_INDEXES = 32
#: the no-tool pool's embeddings, per embedder and pool
_POOLS: dict[tuple[int, tuple[str, ...]], Any] = {}
_INDEX_LOCK = threading.Lock()


#: words for the home itself: "How warm is it in the house?" asks about the thermostat's state
_HOME_ITSELF = HOME_PLACES | frozenset({"house", "home", "inside", "indoors", "here", "flat", "apartment", "room"})


def reads_a_named_place(request: str, tool: Any, arguments: Mapping[str, Any]) -> bool:
    """Does a tool that reads (not a setter) get a place the request names outside the home
    ("is it going to be hot in phoenix today" -> ``get_weather("Phoenix")``)? Such a question
    is the reader's, however near the thermostat it sounds."""
    if changes_things(tool):
        return False
    said = set(WORD.findall(request.lower()))
    props = properties(tool)
    for key, value in arguments.items():
        if key in props and not enum_of(props[key]) and isinstance(value, str):
            words = WORD.findall(value.lower())
            if words and sum(map(len, words)) >= 3 and set(words) <= said and not set(words) & _HOME_ITSELF:
                return True
    return False


def _after_action(ctx: TurnContext) -> bool:
    """Did the turn before this one make a call? (short lines then often go on with it)"""
    msgs = getattr(ctx.session, "messages", [])
    for m in reversed(msgs[:-1] if msgs and msgs[-1].get("content") == ctx.text else msgs):
        if m.get("role") == "user":
            return False
        if m.get("role") == "assistant" and m.get("tool_calls"):
            return True
    return False
