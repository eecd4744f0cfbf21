"""functionary / Llama 3.1 custom tools: ``<function=name>{json}</function>``."""

from .base import Format

OPEN, CLOSE = "<function=", "</function>"

FORMAT = Format(
    name="functionary", style="json", begin=OPEN, end=CLOSE, detector="functionary",
    example=f'{OPEN}f>{{"a": 1}}{CLOSE}', prompt_example=f'{OPEN}tool_name>{{"arg1": "value"}}{CLOSE}',
)
FORMATS = (FORMAT,)
