"""Whatever the model writes, a turn ends with words and a consistent session."""

from __future__ import annotations

from agent_fakes import ScriptedBackend, call
from agent_tools import get_stock, get_time, get_weather, set_lights
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_agent_loop import assert_consistent

from edgevox.agents import LLMAgent, default_slm_hooks

PIECES = [
    call("get_time"), call("get_weather", city="Paris"), call("get_weather", city=""),
    call("get_weather", town="Rome"), call("set_lights", room="kitchen", on="yes"), call("nope", x=1),
    call("get_stock", symbol="X"), '{"name": "get_time", "arguments": {"properties": {}}}',
    '{"city": "Paris", "temp_c": 21}', '{"error": "boom", "error_type": "exception"}', "<think>hmm",
    "</think>", "```json\n", "```", "It is 14:05.", "Sure!", "", "<tool_call>\n{\"name\": \"get_t",
    "[TOOL_CALLS]", "<|im_start|>system", "Hello there, how can I help?",
]

outputs = st.lists(st.lists(st.sampled_from(PIECES), max_size=3).map(" ".join), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outputs=outputs, max_hops=st.integers(1, 4), hooks=st.booleans(), stream=st.booleans())
def test_any_model_output_ends_with_words_and_a_consistent_session(outputs, max_hops, hooks, stream):
    be = ScriptedBackend(outputs + [outputs[-1]] * 4)
    ag = LLMAgent("f", "", "x", tools=[get_time, get_weather, set_lights, get_stock], model=be,
                  max_hops=max_hops, hooks=default_slm_hooks() if hooks else [], tool_timeout=1.0)
    if stream:
        s = ag.run_stream("go")
        items = list(s)
        r = s.result
        spoken = "".join(i for i in items if isinstance(i, str))
        if hooks:  # markup is the speakable hook's job
            assert "<tool_call>" not in spoken and "<|im_start|>" not in spoken and "```" not in spoken
    else:
        r = ag.run("go")
    assert r.reply.strip() and r.hops <= max_hops
    assert not ag.hook_errors and r.stopped_reason != "hook_failed"  # no SLM hook ever breaks
    assert "<tool_call>" not in r.reply and "<think>" not in r.reply  # the parser's job
    if hooks:
        assert "<|im_start|>" not in r.reply and "error_type" not in r.reply
    msgs = ag.session.messages
    assert msgs[0] == {"role": "user", "content": "go"} and msgs[-1]["role"] == "assistant"
    assert msgs[-1]["content"] == r.reply and not msgs[-1].get("tool_calls")
    assert_consistent(msgs)


def test_a_chat_header_before_a_json_error_is_never_said():
    """Found by the fuzz above: ``<|im_start|>system {"error": ...}`` passed the echo guard's
    JSON hold (it judged the raw ``<``) and the error object was spoken. The markup filter
    now runs first and takes the role with its header, so the hold sees the ``{``."""
    out = '<|im_start|>system {"error": "boom", "error_type": "exception"}'
    for stream in (False, True):
        ag = LLMAgent("f", "", "x", tools=[get_time], model=ScriptedBackend([out] * 3), max_hops=1,
                      hooks=default_slm_hooks(), tool_timeout=1.0)
        r, spoken = _run(ag, stream)
        assert "error_type" not in spoken and "system" not in spoken
        assert "error_type" not in r.reply and "system" not in r.reply and r.reply.strip()


def _run(ag: LLMAgent, stream: bool) -> tuple[object, str]:
    """The turn's result and what was spoken ("go" asked; spoken is the reply when not streamed)."""
    if not stream:
        r = ag.run("go")
        return r, r.reply
    s = ag.run_stream("go")
    spoken = "".join(i for i in s if isinstance(i, str))
    return s.result, spoken


def test_json_after_a_word_is_never_said():
    """Found by the fuzz above: after "Sure! " the echo guard's JSON hold let the rest
    stream, so when the guard then ended the turn (one hop, one word of prose left) the
    reply was the half-written call and the error object plus "Sorry, I don't have an answer
    for that." The hold now holds from where JSON starts, in any chunking of the stream."""
    out = 'Sure! {"name": "get_time", "arguments": {"properties": {}}} {"error": "boom", "error_type": "exception"}'
    for stream in (False, True):
        for chunk in (1, 3, 200):
            ag = LLMAgent("f", "", "x", tools=[get_time, get_weather, set_lights, get_stock],
                          model=ScriptedBackend([out] * 5, chunk=chunk), max_hops=1,
                          hooks=default_slm_hooks(), tool_timeout=1.0)
            r, spoken = _run(ag, stream)
            assert "{" not in spoken and "error_type" not in spoken
            assert r.reply == "Sure! Sorry, I don't have an answer for that."
            assert ag.session.messages[-1]["content"] == r.reply


def test_a_sentence_after_held_json_is_still_said():
    """The hold above keeps everything after the JSON back; once the guard has cut the JSON
    out, the sentence after it is said (the final reply's remainder)."""
    out = 'Sure thing friend {"city": "Paris", "temp_c": 21} It is sunny in Paris today.'
    for chunk in (1, 3, 200):
        ag = LLMAgent("f", "", "x", tools=[get_time], model=ScriptedBackend([out] * 3, chunk=chunk),
                      max_hops=1, hooks=default_slm_hooks(), tool_timeout=1.0)
        s = ag.run_stream("go")
        spoken = "".join(i for i in s if isinstance(i, str))
        assert spoken == s.result.reply == "Sure thing friend It is sunny in Paris today."
