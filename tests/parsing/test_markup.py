"""The one markup filter (``edgevox/parsing/markup.py``) in both of its uses.

The voice's filter drops code and JSON; the agent's keeps a fenced sentence's words and
JSON and drops markdown. Either way, feeding a text in any pieces gives what feeding it
whole gives, and the one-shot helpers of both callers are that filter fed once.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from parsing_strategies import FRAGMENTS

from edgevox.agents.speech import clean_markup, speech_filter
from edgevox.parsing.markup import MarkupFilter
from edgevox.voice.text import strip_markup as voice_strip

PIECES = [*FRAGMENTS, "<|im_start|>", "system", "systematic ", "<|start_header_id|>", "**", "__", "\n# ", "\n- ", "* ", "`x`", "[INST]", "[/INST]", "word ", "Nice day. ", "snake_case"]
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(1, 9), min_size=1, max_size=40), agent=st.booleans())
def test_any_split_gives_what_the_whole_text_gives(text, cuts, agent):
    make = speech_filter if agent else MarkupFilter
    f, out, i = make(), [], 0
    for n in cuts:
        out.append(f.feed(text[i:i + n]))
        i += n
    out.append(f.feed(text[i:]) + f.flush())
    assert "".join(out) == make().whole(text)


def test_the_callers_one_shot_helpers_are_the_filter_fed_once():
    text = "<think>plan</think>**It is** `14:05`.<|im_end|> ```python\nNice day!\n``` [INST] {\"a\": 1}"
    assert clean_markup(text) == speech_filter().whole(text)
    assert voice_strip(text) == MarkupFilter().whole(text)
    assert clean_markup(text).split() == ["It", "is", "14:05.", "Nice", "day!", '{"a":', "1}"]
    assert voice_strip(text).split() == ["**It", "is**", "`14:05`."]  # code and JSON go; markdown is the splitter's


def test_markdown_goes_only_where_markdown_is_meant():
    said = clean_markup("# Plan\n- first **step**\n  * second __one__\nsnake_case stays, 2 - 1 and a*b too")
    assert said.split() == ["Plan", "first", "step", "second", "one", "snake_case", "stays,", "2", "-", "1", "and", "a*b", "too"]


def test_control_tokens_and_unread_call_openers_are_never_said():
    for make in (MarkupFilter, speech_filter):
        assert make().whole("[INST] Hi [/INST] Hello.").split() == ["Hi", "Hello."]
        assert make().whole("Okay. [TOOL_CALLS] not json").split() == ["Okay."]


def test_a_chat_header_role_goes_with_its_special_token():
    """``<|im_start|>system`` is a template header a small model may write: the role name is
    part of it, not a word of the reply; a word that only begins like a role stays."""
    for make in (MarkupFilter, speech_filter):
        assert make().whole("<|im_start|>system Hello there.").split() == ["Hello", "there."]
        assert make().whole("<|start_header_id|>assistant<|end_header_id|>\nHi.").split() == ["Hi."]
        assert make().whole("<|im_start|>systematic checks.").split() == ["systematic", "checks."]
        assert make().whole("The system is on.").split() == ["The", "system", "is", "on."]
