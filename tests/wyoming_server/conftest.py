"""Wyoming fixtures: one server on loopback with the real models, loaded once per session.

Whisper tiny.en, Piper joe-medium and Qwen2.5-Coder-0.5B come from the registry; the
agent is the one `edgevox wyoming` serves (the home tools, its instructions and policy).
Tests talk to the server with the `wyoming` package's own client classes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from wyoming_helpers import free_port


@pytest.fixture(scope="session")
def w_stt():
    from edgevox.models import ensure_model
    from edgevox.voice.stt import WhisperSTT

    return WhisperSTT(Path(ensure_model("whisper-tiny.en")))


@pytest.fixture(scope="session")
def w_tts():
    from edgevox.models import ensure_model
    from edgevox.voice.tts import PiperTTS

    # no synthesis noise: the same text always gives the same audio
    return PiperTTS(Path(ensure_model("piper-joe-medium")), noise_scale=0.0, noise_w_scale=0.0)


@pytest.fixture(scope="session")
def served(w_stt, w_tts, qwen_path):
    """(uri, service, home): the server as `edgevox wyoming` builds it, on a free port.

    The agent is built from the command's own parser defaults, model by its registry name:
    the same preset and calling profile, policy, token budget, instructions and hooks, so
    `handle` is tested as it ships."""
    from edgevox.cli import build_parser
    from edgevox.cli.voice import build_voice_agent
    from edgevox.wyoming import ServerThread, Service, ServiceConfig

    args = build_parser().parse_args(["wyoming"])
    assert args.model == "qwen2.5-coder-0.5b"  # qwen_path: already pulled and verified
    agent, home = build_voice_agent(args)
    service = Service(ServiceConfig(), stt=w_stt, tts=w_tts, agent=agent)
    uri = f"tcp://127.0.0.1:{free_port()}"
    server = ServerThread(uri, service).start()
    service.wait_loaded(60)
    yield uri, service, home
    server.stop()
    agent.backend.close()
