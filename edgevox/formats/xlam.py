"""Salesforce xLAM: a bare JSON array of calls (or ``{"tool_calls": [...]}``)."""

from .base import Format, Layout

FORMAT = Format(
    name="xlam", style="json", begin=None, detector="xlam", trigger="[", at_start=True,
    layout=Layout(open="[", close="]"),
    example='[{"name": "f", "arguments": {"a": 1}}]',
    prompt_example='[{"name": "<tool name>", "arguments": {<arguments as JSON>}}]',
)
FORMATS = (FORMAT,)
