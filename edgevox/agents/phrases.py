"""What the agent says when the model cannot (short, spoken-friendly, never silence), and
the one-off notes it gives the model.

``answer_note`` follows every successful tool exchange on presets with a native tool role
(measured on Qwen2.5-Coder-0.5B: without it the model answers a tool result by calling the
tool again; with it, it answers in words). After a failed call ``failed_note`` is used
instead: with the answer note the same model claimed success after an error ("The
thermostat was set to 35 degrees" after the tool refused); a longer note telling it to fix
the call or report the failure was read back to the user verbatim. Presets without a tool role
carry the request in their synthetic results message. Kept in one place so an application can translate or restyle them
(``LLMAgent(..., phrases=Phrases(max_hops="…"))``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Phrases:
    max_hops: str = "Sorry, I couldn't finish that. Could you ask me again, a bit differently?"
    empty: str = "Sorry, I don't have an answer for that."
    hook_failed: str = "Sorry, I can't help with that right now."
    context: str = "Sorry, that's more than I can keep in mind at once. Let's start over."
    error: str = "Sorry, something went wrong on my side. Please try again."
    cancelled: str = ""  # a cancelled turn says nothing more: the user interrupted
    tool_failed: str = "Sorry, that didn't work: {error}"
    found: str = "Here's what I found: {summary}."
    done: str = "Done: {summary}."  # a reply made from results when the model's claimed otherwise
    not_done: str = "Sorry, I didn't do that."  # ... and when no call succeeded
    cannot_read: str = "Sorry, I can't tell the {kind} from here."  # a made-up reading no tool could read
    declined: str = "Okay, I won't."  # the user said no to a call the agent asked about
    left_alone: str = "Okay, I'll leave it."  # told not to ("Don't add mince, there's two packs in the freezer.")
    cannot_wait: str = "Sorry, I can't do things later or when something happens. Ask me again then."  # "In forty minutes, ..."
    taken_back: str = "Okay."  # the request took itself back ("Set a timer for... no, forget it.")
    # Runtime notes to the model (one-off, never stored in the session):
    answer_note: str = "Now answer the user in one short sentence, using the tool results above."
    failed_note: str = "Now tell the user in one short sentence what went wrong."
    empty_note: str = "Please answer the user's last message in one short spoken sentence."


DEFAULT_PHRASES = Phrases()
