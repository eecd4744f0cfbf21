"""A ```json fenced list of calls: not a template's format but what small instruct and
coder models write when asked for a JSON list of calls (Qwen2.5-Coder-0.5B: 97 % of its
BFCL answers); a grammar in this format constrains the calls the model actually makes."""

from .base import Format, Layout

FENCE = "```"
OPEN = FENCE + "json"

FORMAT = Format(
    name="json_fenced", style="json", begin=OPEN, end=FENCE, detector="xlam", plain=(OPEN,),
    layout=Layout(open=OPEN + "\n[", close="]\n" + FENCE, block="fenced"),
    example=f'{OPEN}\n[{{"name": "f", "arguments": {{"a": 1}}}}]\n{FENCE}',
    prompt_example=f'{OPEN}\n[{{"name": "<tool name>", "arguments": {{<arguments as JSON>}}}}]\n{FENCE}',
)
FORMATS = (FORMAT,)
