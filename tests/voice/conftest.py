"""Voice fixtures: real Whisper tiny.en, Piper joe-medium and Silero, loaded once per session.

Models come from the registry (`edgevox.models.ensure_model`); EDGEVOX_TEST_WHISPER (a
CTranslate2 directory) and EDGEVOX_TEST_PIPER (an .onnx with its .onnx.json) override it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _model(env: str, name: str) -> Path:
    if os.environ.get(env):
        return Path(os.environ[env])
    from edgevox.models import ensure_model

    return Path(ensure_model(name))


@pytest.fixture(scope="session")
def stt():
    from edgevox.voice.stt import WhisperSTT

    return WhisperSTT(_model("EDGEVOX_TEST_WHISPER", "whisper-tiny.en"))


@pytest.fixture(scope="session")
def tts():
    from edgevox.voice.tts import PiperTTS

    # no synthesis noise: the same text always gives the same audio, so runs are reproducible
    return PiperTTS(_model("EDGEVOX_TEST_PIPER", "piper-joe-medium"), noise_scale=0.0, noise_w_scale=0.0)


@pytest.fixture(scope="session")
def vad():
    from edgevox.voice.vad import SileroVAD

    return SileroVAD()


@pytest.fixture(scope="session")
def speech_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("speech")


@pytest.fixture(scope="session")
def request_wav(tts, speech_dir) -> Path:
    """Piper says the request the demo is built around."""
    path = speech_dir / "request.wav"
    tts.to_wav("Turn on the kitchen light.", path)
    return path


@pytest.fixture(scope="session")
def stop_wav(tts, speech_dir) -> Path:
    path = speech_dir / "stop.wav"
    tts.to_wav("Stop, what time is it?", path)
    return path
