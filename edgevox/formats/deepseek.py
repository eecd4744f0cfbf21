"""DeepSeek V3 / R1 / V3.1 tool calls, between full-width bar markers.

V3/R1: ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` + a ```json
fence + ``<｜tool▁call▁end｜>`` … ``<｜tool▁calls▁end｜>``; V3.1: ``…begin｜>NAME<｜tool▁sep｜>{json}…``.
Read by the ``deepseek`` detector (and used in structural tags); no preset writes it yet, so
it is not in the package's wire-format list (which every grammar builder must serve).
"""

CALLS_BEGIN, CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_BEGIN, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
LITERALS = (CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END, SEP)
