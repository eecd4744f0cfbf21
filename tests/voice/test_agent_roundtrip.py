"""Spoken request -> LLMAgent with the home tools -> spoken reply, on the real models."""

from __future__ import annotations

import re

import pytest

from edgevox.voice.audio import load_audio
from edgevox.voice.pipeline import VoicePipeline

pytestmark = [pytest.mark.voice, pytest.mark.model]


def test_kitchen_light_round_trip(stt, tts, vad, qwen_backend, request_wav, tmp_path):
    from edgevox.agents import LLMAgent, ToolCallEvent, default_slm_hooks
    from edgevox.examples.home import Home

    home = Home()
    agent = LLMAgent("vox", "home assistant",
                     "You are a voice assistant for a home. Use the tools to control the home. "
                     "Answer in one short sentence.",
                     tools=home.tools(), model=qwen_backend, hooks=default_slm_hooks())
    pipe = VoicePipeline(stt, tts, vad=vad)
    rep = pipe.run_file(request_wav, tmp_path / "reply.wav",
                        lambda text, stop: agent.run_stream(text, stop_event=stop))
    print(f"\n{rep.transcript!r} -> {rep.reply_text!r}\n{rep.metrics}")

    calls = [e for e in rep.events if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.arguments.get("room"), c.arguments.get("on")) for c in calls][:1] == \
        [("set_light", "kitchen", True)]
    assert home.lights["kitchen"] is True
    heard = set(re.findall(r"[a-z]+", stt.transcribe(load_audio(tmp_path / "reply.wav")).text.lower()))
    assert heard & {"kitchen", "light", "lights"}, heard
    assert rep.to_dict()["events"][0]["type"] == "ToolCallEvent"
