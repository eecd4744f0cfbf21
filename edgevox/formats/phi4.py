"""Phi-4-mini: ``<|tool_call|>[…]<|/tool_call|>`` (the closing tag often missing) and the
``functools[…]`` form of its other published template."""

from .base import Format, Layout
from .granite import OPEN

CLOSE = "<|/tool_call|>"
FUNCTOOLS = "functools"  # a call only when "[" follows at once: the bare word may be prose

FORMAT = Format(
    name="phi4", style="json", begin=OPEN, end=CLOSE, detector="phi4",
    alt_open=(FUNCTOOLS + "[",), plain=(FUNCTOOLS + "[",), layout=Layout(open=OPEN + "[", close="]" + CLOSE),
    example=f'{OPEN}[{{"name": "f", "arguments": {{"a": 1}}}}]{CLOSE}',
    prompt_example=f'{OPEN}[{{"name": "<tool name>", "arguments": {{<arguments as JSON>}}}}]{CLOSE}',
)
FORMATS = (FORMAT,)
