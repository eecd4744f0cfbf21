"""Gemma family: Gemma 4 ``<|tool_call>call:name{k:<|"|>text<|"|>,n:3}<tool_call|>``,
FunctionGemma ``<start_function_call>call:name{k:<escape>v<escape>}<end_function_call>``,
and Gemma 3's fenced ```` ```tool_code ```` block (the wire format ``tool_code``)."""

from .base import Format, Layout

OPEN, CLOSE, QUOTE = "<|tool_call>", "<tool_call|>", '<|"|>'
FN_OPEN, FN_CLOSE, FN_QUOTE = "<start_function_call>", "<end_function_call>", "<escape>"
CALL = "call:"
FENCE = "```"
TOOL_CODE = FENCE + "tool_code"

FORMAT = Format(
    name="gemma", style="gemma", begin=OPEN, end=CLOSE, detector="gemma",
    layout=Layout(call="args", head=OPEN + CALL + "{name}", tail=CLOSE, sep=""),
    markers=(QUOTE, FN_CLOSE, FN_QUOTE), alt_open=(FN_OPEN,),
    example=f"{OPEN}{CALL}f{{a:1,s:{QUOTE}x{QUOTE}}}{CLOSE}",
    prompt_example=f"{OPEN}{CALL}tool_name{{arg1:{QUOTE}value{QUOTE},arg2:3}}{CLOSE}",
)
TOOL_CODE_FORMAT = Format(
    name="tool_code", style="python", begin=TOOL_CODE, end=FENCE, detector="gemma",
    layout=Layout(call="python", head=TOOL_CODE + "\n", tail="\n" + FENCE, sep="\n", newline_after=True),
    example=f"{TOOL_CODE}\nf(a=1)\n{FENCE}", prompt_example=f'{TOOL_CODE}\ntool_name(arg1="value", arg2=3)\n{FENCE}',
)
FORMATS = (FORMAT, TOOL_CODE_FORMAT)
