"""Agents: ``LLMAgent`` runs the tool-calling loop around one loaded model.

    from edgevox.agents import LLMAgent, default_slm_hooks
    from edgevox.tools import tool

    @tool
    def get_time() -> str:
        "Current local time."
        ...

    agent = LLMAgent("vox", "home assistant", "Answer in one short sentence.",
                     tools=[get_time], model="qwen2.5-coder-0.5b", hooks=default_slm_hooks())
    agent.run("what time is it?").reply
    for piece in agent.run_stream("and the weather?"): ...
"""

from edgevox.agents.agent import DEFAULT_INSTRUCTIONS, AgentStream, LLMAgent
from edgevox.agents.hooks import (
    HOOK_POINTS,
    FunctionHook,
    Hook,
    HookResult,
    StreamFilter,
    TurnContext,
    hook,
)
from edgevox.agents.phrases import Phrases
from edgevox.agents.session import Session, SessionError
from edgevox.agents.slm import default_slm_hooks
from edgevox.agents.types import (
    AgentResult,
    CallRecord,
    LLMOutput,
    LLMRequest,
    ToolCallEvent,
    ToolResultEvent,
)

__all__ = [
    "DEFAULT_INSTRUCTIONS", "HOOK_POINTS", "AgentResult", "AgentStream", "CallRecord", "FunctionHook", "Hook", "HookResult",
    "LLMAgent", "LLMOutput", "LLMRequest", "Phrases", "Session", "SessionError", "StreamFilter",
    "ToolCallEvent", "ToolResultEvent", "TurnContext", "default_slm_hooks", "hook",
]
