"""The remote backend: generation on an OpenAI-compatible server (llama.cpp, vLLM).

`edgevox.llm.load_model("http://host:8080/v1")` returns a RemoteBackend; agents, tools,
hooks and voice stay on the device.
"""

from edgevox.llm.remote.backend import RemoteBackend
from edgevox.llm.remote.capabilities import Capabilities
from edgevox.llm.remote.errors import (
    RemoteContextOverflow,
    RemoteError,
    RemoteProtocolError,
    RemoteRequestRejected,
    RemoteTimeout,
    RemoteUnavailable,
    StreamInterrupted,
)

__all__ = [
    "Capabilities", "RemoteBackend", "RemoteContextOverflow", "RemoteError", "RemoteProtocolError",
    "RemoteRequestRejected", "RemoteTimeout", "RemoteUnavailable", "StreamInterrupted",
]
