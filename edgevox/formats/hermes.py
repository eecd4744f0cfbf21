"""Hermes (NousResearch), Qwen2.5 / Qwen3, Granite 4: ``<tool_call>{json}</tool_call>``."""

from .base import Format, Layout

OPEN, CLOSE = "<tool_call>", "</tool_call>"

FORMAT = Format(
    name="hermes", style="json", begin=OPEN, end=CLOSE, detector="hermes",
    layout=Layout(head=OPEN + "\n", tail="\n" + CLOSE, sep="\n", newline_after=True),
    example=f'{OPEN}\n{{"name": "f", "arguments": {{"a": 1}}}}\n{CLOSE}',
    prompt_example=f'{OPEN}\n{{"name": "<tool name>", "arguments": {{<arguments as JSON>}}}}\n{CLOSE}',
)
FORMATS = (FORMAT,)
