"""Pythonic call lists ``[f(a=1), g()]`` (Llama 3.2's pythonic prompt, Llama 4, BFCL
fine-tunes): no markup, a list where a reply would start one."""

from .base import Format, Layout

FORMAT = Format(
    name="pythonic", style="python", begin=None, detector="pythonic", trigger="[", at_start=True,
    layout=Layout(call="python", open="[", close="]"),
    example='[f(a=1, b="x"), g()]', prompt_example='[tool_name(arg1="value", arg2=3)]',
)
FORMATS = (FORMAT,)
