"""Voice: audio I/O, VAD, STT, TTS and the streaming pipeline with barge-in.

Importing this package is cheap: numpy only. faster-whisper, Piper, onnxruntime and
sounddevice load when a model or device is first used.

    from edgevox.voice import VoicePipeline
    report = VoicePipeline().run_file("request.wav", "reply.wav", responder)
    print(report.transcript, report.metrics)
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "AudioError": "signals", "WavSource": "streams", "WavSink": "streams", "PacedWavSink": "streams",
    "ArraySource": "streams", "MicSource": "devices", "SpeakerSink": "devices", "ScriptedDuplex": "simulated",
    "Cue": "simulated", "list_devices": "devices", "resolve_device": "devices", "read_wav": "wav",
    "write_wav": "wav", "load_audio": "wav", "resample": "signals", "Resampler": "signals",
    "SAMPLE_RATE": "signals", "FRAME": "signals",
    "SileroVAD": "vad", "VADConfig": "vad", "Endpointer": "vad", "Utterance": "vad",
    "find_utterances": "vad",
    "WhisperSTT": "stt", "Transcript": "stt",
    "PiperTTS": "tts", "SpeechPlayer": "tts",
    "SentenceSplitter": "text", "split_sentences": "text", "normalize_for_speech": "text",
    "strip_markup": "text", "clean_markdown": "text", "MarkupFilter": "text",
    "TurnMetrics": "metrics", "peak_memory_mb": "metrics", "STAGES": "metrics",
    "EventBus": "events", "State": "events", "VoiceEvent": "events", "StateChanged": "events",
    "MicLevel": "events", "TranscriptReady": "events", "ToolCalled": "events",
    "ToolReturned": "events", "ReplyDelta": "events", "AgentNote": "events",
    "TurnFinished": "events", "Observer": "events", "WakeWordHeard": "events",
    "VoicePipeline": "pipeline", "PipelineConfig": "pipeline", "TurnReport": "pipeline",
    "Responder": "pipeline", "EchoGuard": "pipeline",
    "WakeWordDetector": "wake", "WakeHit": "wake", "available_wake_words": "wake",
    "WakeConfig": "wake",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'edgevox.voice' has no attribute {name!r}")
    return getattr(importlib.import_module(f"edgevox.voice.{mod}"), name)
