"""functionary / Llama 3.1 custom tools: ``<function=name>{json}</function>``."""

from .base import Format, Layout

OPEN, CLOSE = "<function=", "</function>"

FORMAT = Format(
    name="functionary", style="json", begin=OPEN, end=CLOSE, detector="functionary",
    layout=Layout(call="args", head=OPEN + "{name}>", tail=CLOSE, sep="\n", sep_gbnf='"\\n"?', newline_after=True,
                  name_chars='[^<>\\n"]'),
    example=f'{OPEN}f>{{"a": 1}}{CLOSE}', prompt_example=f'{OPEN}tool_name>{{"arg1": "value"}}{CLOSE}',
)
FORMATS = (FORMAT,)
