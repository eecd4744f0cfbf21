"""Llama 3.1 / 3.2: ``<|python_tag|>`` + calls up to ``<|eom_id|>`` / ``<|eot_id|>``, the
documented bare ``{"name": …, "parameters": …}`` (the wire format ``llama32_json``), and
the pythonic list (see :mod:`.pythonic`)."""

from .base import Format, Layout

PYTHON_TAG = "<|python_tag|>"
ENDS = ("<|eom_id|>", "<|eot_id|>")

FORMAT = Format(
    name="llama32_json", style="json", begin=None, detector="llama32",
    markers=(PYTHON_TAG, *ENDS), alt_open=(PYTHON_TAG,), trigger='{"name"', at_start=True,
    layout=Layout(args_key="parameters", sep="; ", sep_gbnf='";" json-ws'),
    example='{"name": "f", "parameters": {"a": 1}}',
    prompt_example='{"name": "<tool name>", "parameters": {<arguments as JSON>}}',
)
FORMATS = (FORMAT,)
