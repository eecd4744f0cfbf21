"""Hypothesis strategies: model-like replies built from real markup fragments."""

from __future__ import annotations

from hypothesis import strategies as st

from edgevox.parsing import BUILTIN

Q = '<|"|>'
FRAGMENTS = [
    # markup of every format, whole and in pieces
    "<tool_call>", "</tool_call>", "<tool_call>\n", "\n</tool_call>", "<|tool_call|>", "<|/tool_call|>",
    "[TOOL_CALLS]", "[TOOL_CALLS] ", "[ARGS]", "[CALL_ID]", "abc123XYZ", "<|python_tag|>", "<|eom_id|>",
    "<|tool_call>", "<tool_call|>", "call:", "call:get_weather{city:", f"{Q}Paris{Q}", Q, "}<tool_call|>",
    "<start_function_call>", "<end_function_call>", "<escape>", "```", "```json\n", "```tool_code\n", "\n```\n",
    "<function=get_weather>", "<function=set_timer>", "</function>", "<parameter=city>", "</parameter>",
    "functools", "functools[", "<think>", "</think>", "<think>\n", "\n</think>\n\n",
    # JSON and pythonic pieces
    '{"name": "get_weather", "arguments": {"city": "Paris"}}', '{"name": "set_timer", "parameters": {"minutes": 5}}',
    '{"name": "fly"', ', "arguments": {}}', '"arguments": "{\\"city\\": \\"Oslo\\"}"', '{"tool_calls": [', "]}",
    '[get_weather(city="Paris")]', "[set_timer(minutes=-3)", "get_weather(city='x]')", "math.sqrt(x=2)",
    "[", "]", "{", "}", "(", ")", ",", ";", ":", '"', "'", "\\", "=", "-3", "1.5e3", "true", "null", "None",
    # prose and whitespace
    "Hello.", "Sure:\n", "Let me check the weather for you. ", "The weather is nice: ", "I think ", " ", "\n", "\n\n", "\t",
]

fragment = st.sampled_from(FRAGMENTS)
noise = st.text(max_size=4)
replies = st.lists(st.one_of(fragment, fragment, fragment, noise), max_size=30).map("".join)
parser_sets = st.one_of(
    st.none(),
    st.lists(st.sampled_from(sorted(BUILTIN)), min_size=1, max_size=3, unique=True).map(tuple),
)
tool_sets = st.sampled_from([None, ["get_weather", "set_timer", "math.sqrt"], ["search"]])


@st.composite
def splits(draw, text: str) -> list[str]:
    """``text`` cut at random positions (every piece non-empty)."""
    if len(text) < 2:
        return [text] if text else []
    cuts = draw(st.lists(st.integers(1, len(text) - 1), max_size=min(20, len(text) - 1), unique=True))
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
