"""Mistral: ``[TOOL_CALLS] [{…}]`` (v3) and ``[TOOL_CALLS]name[ARGS]{…}`` (v11+, with
``[CALL_ID]id`` in v11). Its other control tokens are listed so no speaker says them."""

from .base import Format, Layout

OPEN, ARGS, CALL_ID = "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"
#: control tokens of Mistral's templates that are never words
CONTROL = ("INST", "TOOL_CALLS", "TOOL_RESULTS", "AVAILABLE_TOOLS", "SYSTEM_PROMPT", "ARGS", "CALL_ID")

FORMAT = Format(
    name="mistral", style="json", begin=OPEN, detector="mistral", markers=(ARGS, CALL_ID),
    layout=Layout(open=OPEN + "[", close="]"),
    example=f'{OPEN}[{{"name": "f", "arguments": {{"a": 1}}}}]',
    prompt_example=f'{OPEN}[{{"name": "<tool name>", "arguments": {{<arguments as JSON>}}}}]',
)
FORMATS = (FORMAT,)
