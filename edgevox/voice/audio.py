"""Audio in and out: WAV files and sound devices, one interface.

Input sources yield float32 mono frames of `FRAME` samples at 16 kHz (what Silero VAD
and Whisper want); output sinks accept float32 chunks at the TTS rate. Files, the sound
card and the scripted test device (`edgevox.voice.simulated`) all look the same to the
pipeline, so everything runs headless. Every failure a user can cause (no PortAudio, no
sound card, unreadable WAV, unusable sample rate) is an `AudioError` whose message is one
sentence.

The code lives along its seams; this module is the one import path for all of it:
`signals` (rate, frame, `AudioError`, resampling, level), `wav` (WAV files), `streams`
(source and sink interfaces, file and buffered ones) and `devices` (microphone, speaker).
"""

from __future__ import annotations

from .devices import DeviceInfo, MicSource, SpeakerSink, list_devices, resolve_device
from .signals import FRAME, MIN_INPUT_RATE, SAMPLE_RATE, AudioError, Resampler, resample, rms
from .streams import (
    ArraySource,
    AudioSink,
    AudioSource,
    BufferedSink,
    PacedWavSink,
    WavSink,
    WavSource,
)
from .wav import load_audio, read_wav, write_wav

__all__ = [
    "FRAME", "MIN_INPUT_RATE", "SAMPLE_RATE", "ArraySource", "AudioError", "AudioSink", "AudioSource",
    "BufferedSink", "DeviceInfo", "MicSource", "PacedWavSink", "Resampler", "SpeakerSink", "WavSink",
    "WavSource", "list_devices", "load_audio", "read_wav", "resample", "resolve_device", "rms",
    "write_wav",
]
