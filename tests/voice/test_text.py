"""Sentence splitter, markup filter and normaliser (no models needed)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from edgevox.voice.text import (
    SentenceSplitter,
    clean_markdown,
    normalize_for_speech,
    split_sentences,
    strip_markup,
)


def test_abbreviations_do_not_end_sentences():
    assert split_sentences("Dr. Smith arrived. Mr. Jones left, e.g. early. Then we ate.") == [
        "Dr. Smith arrived.", "Mr. Jones left, e.g. early.", "Then we ate."]


def test_decimals_thousands_and_times_stay_whole():
    assert split_sentences("It costs 3.5 dollars for 1,000 people at 10:30. Okay!") == [
        "It costs 3.5 dollars for 1,000 people at 10:30.", "Okay!"]


def test_question_exclamation_and_ellipsis():
    assert split_sentences("Really? Yes! Well... Maybe.") == ["Really?", "Yes!", "Well...", "Maybe."]


def test_maybe_abbreviations_use_the_next_word():
    assert split_sentences("Meet at 10 a.m. Then lunch. We saw apples etc. and pears.") == [
        "Meet at 10 a.m.", "Then lunch.", "We saw apples etc. and pears."]
    assert split_sentences("No. It is off. Item No. 5 is on.") == ["No.", "It is off.", "Item No. 5 is on."]


def test_markdown_lists_and_headings():
    text = ("# Status\nHere is what I did:\n1. Turned on the **kitchen** light\n"
            "2. Set the `thermostat` to 21.\n- Checked the [timer](http://x.y/z)\n---\nDone.")
    assert split_sentences(text) == ["Status.", "Here is what I did:", "Turned on the kitchen light.",
                                     "Set the thermostat to 21.", "Checked the timer.", "Done."]


def test_long_first_sentence_is_cut_at_a_clause():
    text = ("I have turned on the lights in the kitchen and the living room, and I also set "
            "the thermostat for you, as you asked. Later clauses, like this one, stay whole.")
    assert split_sentences(text) == [
        "I have turned on the lights in the kitchen and the living room,",
        "and I also set the thermostat for you, as you asked.",
        "Later clauses, like this one, stay whole."]
    # a short lead-in is not cut
    assert split_sentences("Yes, the light is on.") == ["Yes, the light is on."]


def test_sentences_come_out_as_soon_as_they_are_certain():
    sp = SentenceSplitter()
    assert sp.feed("The light is on.") == []          # could still be "on.5" or "on. and"
    assert sp.feed(" ") == []
    assert sp.feed("Anything") == ["The light is on."]
    assert sp.feed(" else?") == []
    assert sp.flush() == ["Anything else?"]


def test_reasoning_and_tool_markup_never_reach_the_speaker():
    reply = ("<think>The user wants the kitchen light. I will call light_on.</think>"
             "<tool_call>\n{\"name\": \"light_on\", \"arguments\": {\"room\": \"kitchen\"}}\n</tool_call>"
             "Done, the kitchen light is on. {\"status\": \"ok\"} <b>Enjoy</b>.")
    out = " ".join(split_sentences(reply))
    assert out == "Done, the kitchen light is on. Enjoy."
    assert strip_markup("Fine <think>never closed") .strip() == "Fine"
    assert strip_markup("a <|python_tag|>{\"name\": \"x\"}").strip() == "a"
    assert strip_markup("Okay [TOOL_CALLS] [{\"name\": \"x\"}]").strip() == "Okay"
    assert strip_markup("Code:\n```python\nprint(1)\n```\nbye").split() == ["Code:", "bye"]
    assert strip_markup("3 < 5 and 7 > 2") == "3 < 5 and 7 > 2"


def test_clean_markdown():
    assert clean_markdown("**Bold** and _it_ and snake_case") == "Bold and it and snake_case."
    assert clean_markdown("> quoted 🎉 text") == "quoted text."
    assert clean_markdown("***") == ""


REPLIES = [
    "Dr. Smith said hello. The price is 3.5 dollars, e.g. cheap! Really? Yes.",
    "Here are the steps:\n1. Turn on the light\n2. Set it to 21.\n- **Bold** [link](http://x.com)\nDone.",
    "<think>hmm, tools?</think>Sure. <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>Okay.",
    "I have turned on the lights in the kitchen and the living room, and I also set it. Fine.",
    "It costs $3.50 & takes 10:30 min. That's 1,000 people. No. 5 is mine. No. It is not.",
    "Code:\n```bash\nls -la\n```\nThat lists files. See {\"a\": [1, {\"b\": \"}\"}]} ok.",
    "The meeting is at 10 a.m. Then lunch... We saw etc. and more — really — fine; good: yes.",
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(REPLIES), st.lists(st.integers(1, 12), min_size=1, max_size=60))
def test_any_split_of_the_stream_gives_the_same_sentences(reply, cuts):
    pieces, i = [], 0
    for n in cuts:
        pieces.append(reply[i:i + n])
        i += n
    pieces.append(reply[i:])
    assert split_sentences(pieces) == split_sentences(reply)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .,!?\n<>{}[]`*#-1:3")), max_size=80),
       st.integers(1, 7))
def test_random_text_splits_consistently_and_never_leaks_markup(text, step):
    pieces = [text[i:i + step] for i in range(0, len(text), step)]
    out = split_sentences(pieces)
    assert out == split_sentences(text)
    for s in out:  # a lone "<" may be "less than"; a tag or brace never survives
        assert not re.search(r"<[A-Za-z/|!]", s) and "{" not in s and "`" not in s


def test_normalizer_units_and_symbols():
    cases = {
        "It is 21°C inside.": "It is 21 degrees Celsius inside.",
        "It is -5°F outside.": "It is minus 5 degrees Fahrenheit outside.",
        "The store is 5 km away.": "The store is 5 kilometers away.",
        "Only 1 km left.": "Only 1 kilometer left.",
        "Battery at 80%.": "Battery at 80 percent.",
        "That is $3.50 please.": "That is 3 dollars 50 please.",
        "Just $1 or $0.99 or $2.5 million.": "Just 1 dollar or 99 cents or 2.5 million dollars.",
        "The meeting is at 10:30.": "The meeting is at 10:30.",
        "Salt & pepper.": "Salt and pepper.",
        "Wait 5-10 minutes.": "Wait 5 to 10 minutes.",
        "On 2024-01-15 we met.": "On 2024-01-15 we met.",
        "That is 1,000,000 people.": "That is 1000000 people.",
        "Drive at 50 km/h for 2 h.": "Drive at 50 kilometers per hour for 2 hours.",
        "The 1990s were fun.": "The 1990s were fun.",
        "Use e.g. a lamp.": "Use for example a lamp.",
        "Turn it on/off.": "Turn it on or off.",
        "It weighs 3 kg and has 16 GB.": "It weighs 3 kilograms and has 16 gigabytes.",
    }
    for raw, want in cases.items():
        assert normalize_for_speech(raw) == want, raw


def test_an_exclamation_or_question_is_cut_at_its_blank_without_waiting_for_more():
    sp = SentenceSplitter()
    assert sp.feed("Hello!") == []  # '!!' or a closing quote may still follow
    assert sp.feed(" ") == ["Hello!"]  # the first audio need not wait for the next word
    assert sp.feed("Really? Yes") == ["Really?"]
    assert [s.rstrip(".") for s in sp.flush()] == ["Yes"]
