"""A Wyoming server: EdgeVox's STT, TTS, agent and wake word for Home Assistant.

This stage sits on top of `edgevox.voice` and `edgevox.agents` (imports flow one way:
wyoming → voice, agents). It is built on the `wyoming` package (the `wyoming` extra),
which is imported only when this package's parts are used:

    from edgevox.wyoming import Service, ServiceConfig, ServerThread
    server = ServerThread("tcp://127.0.0.1:10700", Service(ServiceConfig(), agent=agent)).start()
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Service": "service", "ServiceConfig": "service", "Conversations": "service",
    "Unavailable": "service", "installed_wake_words": "service",
    "EdgeVoxHandler": "handler",
    "ServerThread": "server", "serve": "server", "make_server": "server",
    "ToMono16k": "audio", "AudioFormatError": "audio",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'edgevox.wyoming' has no attribute {name!r}")
    try:
        module = importlib.import_module(f"edgevox.wyoming.{mod}")
    except ModuleNotFoundError as err:
        if err.name == "wyoming" or (err.name or "").startswith("wyoming."):
            raise ImportError("the Wyoming server needs the wyoming package: "
                              "pip install 'edgevox[wyoming]'") from err
        raise
    return getattr(module, name)
