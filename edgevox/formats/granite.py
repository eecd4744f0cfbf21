"""IBM Granite 3.x: ``<|tool_call|>[…]`` with no closing tag (Granite 4 writes hermes)."""

from .base import Format, Layout

OPEN = "<|tool_call|>"

FORMAT = Format(
    name="granite", style="json", begin=OPEN, detector="granite", layout=Layout(open=OPEN + "[", close="]"),
    example=f'{OPEN}[{{"name": "f", "arguments": {{"a": 1}}}}]',
    prompt_example=f'{OPEN}[{{"name": "<tool name>", "arguments": {{<arguments as JSON>}}}}]',
)
FORMATS = (FORMAT,)
