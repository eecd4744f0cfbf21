"""SLM safety hooks: the net for what grammars cannot catch in small-model output.

``default_slm_hooks()`` returns one fresh instance of each; they keep per-turn state in the
turn context, so the same instances may serve several agents.

=================  ============  =========================================================
hook (stats name)  point(s)      catches
=================  ============  =========================================================
worked_out         on_run_start  a request that is a spoken sum or unit conversion and
                                 nothing else ("Nine squared.") -> its value, worked out,
                                 before the model runs (none where a tool does arithmetic)
relevance          before_llm    a request nearer, by meaning, to generic lines no tool
                                 serves ("Who wrote Hamlet?") than to every tool's own
                                 requests, and no part of it plainly near one -> the first
                                 hop may only answer in words
remainder          after_tool,   a part of a two-action request clearly for a tool no call
                   before_llm    of the turn used -> one more hop that calls it
result_is_data     before_tool   an action only a tool's result asked for (a message that
                                 says "switch every light on") -> withdrawn: a result is
                                 data, never an instruction
loop_guard         before_tool   the same call twice in a turn -> earlier result, then a
                                 plain-reply hop
placeholder_args   before_tool   "", "string", "<value>", "..." as argument values
unknown_tool       after_llm     a call to a tool that does not exist -> list the real ones
grounding          before_tool   a call that shares no word with the request (a blind
                                 request -> the light tool) -> blocked, answer in words
listed_items       after_llm,    one call where the request lists several values of its
                   before_tool   argument ("in Egypt and Turkey") -> a call for each item;
                                 listed numbers run together ("5,10" -> 510) -> withdrawn
unit_args          before_tool   numbers under the wrong unit ("2 hours and 15 minutes" ->
                                 seconds=15) -> moved to the unit the request said;
                                 amounts in words ("half an hour", "max") -> set
echo_guard         after_llm     a reply that is a JSON dump of a result or an error
arg_shape          after_tool    schema validation errors -> one retry with a schema hint
speakable          after_llm     markup, reasoning, code fences in the spoken reply
false_claim        after_llm     a reply saying an action was done that no successful call
                                 of the turn did (or the opposite of what it did) -> one
                                 retry with a note, then a reply made from the results;
                                 a device no tool is for said done -> a refusal
=================  ============  =========================================================
"""

from __future__ import annotations

from edgevox.agents.hooks import Hook
from edgevox.agents.slm.arg_shape import ArgShapeHint, schema_hint
from edgevox.agents.slm.echo_guard import EchoGuard
from edgevox.agents.slm.false_claim import FalseClaim
from edgevox.agents.slm.grounding import Grounding
from edgevox.agents.slm.listed import ListedItems
from edgevox.agents.slm.loop_guard import LoopGuard
from edgevox.agents.slm.placeholders import PlaceholderArgs, is_placeholder
from edgevox.agents.slm.result_is_data import ResultIsData
from edgevox.agents.slm.speakable import SpeakableReply
from edgevox.agents.slm.transcript import MendTranscript
from edgevox.agents.slm.unit_args import UnitArgs
from edgevox.agents.slm.unknown_tool import UnknownToolHint
from edgevox.agents.slm.worked_out import WorkedOut

__all__ = [
    "ArgShapeHint", "EchoGuard", "FalseClaim", "Grounding", "ListedItems", "LoopGuard", "PlaceholderArgs", "ResultIsData",
    "SpeakableReply",
    "UnitArgs", "UnknownToolHint", "WorkedOut", "MendTranscript",
    "default_slm_hooks", "is_placeholder", "schema_hint",
]


def default_slm_hooks(*, relevance: bool = True) -> list[Hook]:
    """A fresh set of the SLM safety hooks, in their intended priority order.

    ``relevance`` adds the relevance gate's answer-in-words decision alone
    (``RelevanceGate.answer_only()``) and, on the gate's embeddings, the undone part of a
    request that asks for two things (``remainder``); the voice assistant's ``home_hooks()``
    brings the whole gate and its own remainder hook instead and passes False. Without the
    embedding model both stand aside."""
    from edgevox.agents.slm.relevance import RelevanceGate
    from edgevox.agents.slm.remainder import Remainder

    by_meaning: list[Hook] = []
    if relevance:
        gate = RelevanceGate.answer_only()
        by_meaning = [gate, Remainder(gate=gate, readers_only=True, rounds=3)]
    return [MendTranscript(), WorkedOut(), ResultIsData(), *by_meaning, LoopGuard(), PlaceholderArgs(), UnknownToolHint(), Grounding(), ListedItems(), UnitArgs(), EchoGuard(),
            ArgShapeHint(), SpeakableReply(), FalseClaim()]
