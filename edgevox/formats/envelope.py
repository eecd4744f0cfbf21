"""The generic answer-or-call envelope for models with no known tool format: every reply
is one JSON object, ``{"tool": NAME, "arguments": {...}}`` or ``{"answer": "text"}`` (or a
list of calls), so the very first token chooses between acting and answering. No markup:
nothing for a lazy grammar to wait for."""

from .base import Format, Layout

FORMAT = Format(
    name="envelope", style="json", begin=None, detector="envelope",
    layout=Layout(name_key="tool", open="[", close="]", block="either"),
    example='{"tool": "f", "arguments": {"a": 1}}',
    prompt_example='{"tool": "<tool name>", "arguments": {<arguments as JSON>}}',
)
FORMATS = (FORMAT,)
