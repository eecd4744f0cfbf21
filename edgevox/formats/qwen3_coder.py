"""Qwen3-Coder XML: ``<tool_call><function=name><parameter=k>\\nv\\n</parameter></function></tool_call>``."""

from .base import Format, Layout
from .functionary import CLOSE as FN_CLOSE
from .functionary import OPEN as FN_OPEN
from .hermes import CLOSE, OPEN

PARAM_OPEN, PARAM_CLOSE = "<parameter=", "</parameter>"

FORMAT = Format(
    name="qwen3_coder", style="json", begin=OPEN, end=CLOSE, detector="qwen3_coder",
    layout=Layout(call="params", head=f"{OPEN}\n{FN_OPEN}{{name}}>\n", tail=f"{FN_CLOSE}\n{CLOSE}", sep="\n",
                  newline_after=True, name_chars='[^<>\\n"]'),
    markers=(FN_OPEN, FN_CLOSE, PARAM_OPEN, PARAM_CLOSE),
    example=f"{OPEN}\n{FN_OPEN}f>\n{PARAM_OPEN}a>\n1\n{PARAM_CLOSE}\n{FN_CLOSE}\n{CLOSE}",
    prompt_example=f"{OPEN}\n{FN_OPEN}tool_name>\n{PARAM_OPEN}arg1>\nvalue\n{PARAM_CLOSE}\n{FN_CLOSE}\n{CLOSE}",
)
FORMATS = (FORMAT,)
