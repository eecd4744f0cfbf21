"""Audio I/O: resampling, WAV files, device errors, sinks (no models needed)."""

from __future__ import annotations

import struct
import sys
import threading
import time
import types
import wave

import numpy as np
import pytest

from edgevox.voice import audio
from edgevox.voice.audio import (
    FRAME,
    AudioError,
    BufferedSink,
    Resampler,
    WavSink,
    WavSource,
    load_audio,
    read_wav,
    resample,
    write_wav,
)
from edgevox.voice.simulated import ScriptedDuplex


def _tone(freq: float, rate: int, seconds: float = 1.0, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


@pytest.mark.parametrize("src,dst", [(44_100, 16_000), (48_000, 16_000), (22_050, 16_000),
                                     (16_000, 48_000), (22_050, 48_000), (8_000, 16_000)])
def test_resampler_keeps_the_tone_and_rejects_aliases(src, dst):
    y = resample(_tone(440, src), src, dst)
    assert len(y) == -(-src * dst // src)
    mid = slice(dst // 10, -dst // 10)
    ref = _tone(440, dst)[: len(y)]
    assert np.max(np.abs(y[mid] - ref[mid])) < 2e-3
    if dst < src:  # a tone above the new Nyquist must vanish, not fold back
        alias = resample(_tone(0.6 * dst, src), src, dst)
        assert np.sqrt(np.mean(alias[mid] ** 2)) < 1e-3


def test_streaming_resampler_matches_one_shot():
    x = np.random.default_rng(0).normal(0, 0.1, 30_000).astype(np.float32)
    r = Resampler(44_100, 16_000)
    parts, i = [], 0
    for n in [1, 7, 513, 4000, 3, 10_000, 12_000]:
        parts.append(r.process(x[i:i + n]))
        i += n
    parts.append(r.process(x[i:]))
    parts.append(r.flush())
    whole = Resampler(44_100, 16_000)
    one_shot = np.concatenate([whole.process(x), whole.flush()])
    assert np.allclose(np.concatenate(parts), one_shot, atol=1e-6)
    # the streaming filter and soxr (whole files) agree on speech-band audio and on length
    tones = _tone(300, 44_100) + _tone(2_500, 44_100) + _tone(6_000, 44_100)
    ref = resample(tones, 44_100, 16_000)
    r = Resampler(44_100, 16_000)
    ours = np.concatenate([r.process(tones), r.flush()])
    assert len(ref) == len(ours) == 16_000
    core = slice(200, -200)
    assert np.max(np.abs(ref[core] - ours[core])) < 5e-3


def _write_pcm(path, data: bytes, rate: int, channels: int, bits: int, fmt: int = 1) -> None:
    block = channels * bits // 8
    fmt_chunk = struct.pack("<HHIIHH", fmt, channels, rate, rate * block, block, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt_chunk + b"data" + struct.pack("<I", len(data)) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)


def test_wav_formats_read_as_float_mono(tmp_path):
    x = _tone(300, 16_000, 0.1)
    stereo16 = np.stack([x, x], 1).reshape(-1)
    _write_pcm(tmp_path / "s16.wav", (stereo16 * 32767).astype("<i2").tobytes(), 16_000, 2, 16)
    _write_pcm(tmp_path / "f32.wav", x.astype("<f4").tobytes(), 16_000, 1, 32, fmt=3)
    _write_pcm(tmp_path / "u8.wav", (x * 127 + 128).astype(np.uint8).tobytes(), 16_000, 1, 8)
    i24 = (x * (2 ** 23 - 1)).astype(np.int32)
    _write_pcm(tmp_path / "s24.wav", b"".join(int(v).to_bytes(3, "little", signed=True) for v in i24),
               16_000, 1, 24)
    for name, tol in [("s16", 1e-3), ("f32", 1e-6), ("u8", 1e-2), ("s24", 1e-5)]:
        y, rate = read_wav(tmp_path / f"{name}.wav")
        assert rate == 16_000 and y.dtype == np.float32
        assert np.max(np.abs(y - x)) < tol, name


def test_wrong_rate_wav_is_resampled_and_framed(tmp_path):
    write_wav(tmp_path / "cd.wav", _tone(440, 44_100, 0.5), 44_100)
    src = WavSource(tmp_path / "cd.wav", tail_silence_s=0.25)
    frames = list(src.frames())
    assert all(f.shape == (FRAME,) and f.dtype == np.float32 for f in frames)
    assert len(frames) == -(-(8_000 + 4_000) // FRAME)
    assert np.max(np.abs(np.concatenate(frames))) == pytest.approx(0.5, abs=0.02)


def test_bad_audio_files_raise_one_sentence(tmp_path):
    (tmp_path / "text.wav").write_text("hello")
    write_wav(tmp_path / "low.wav", _tone(100, 4_000, 0.2), 4_000)
    _write_pcm(tmp_path / "alaw.wav", b"\x00" * 100, 8_000, 1, 8, fmt=6)
    for path, words in [(tmp_path / "text.wav", "not a WAV"), (tmp_path / "low.wav", "at least 8000 Hz"),
                        (tmp_path / "alaw.wav", "only PCM and float"), (tmp_path / "missing.wav", "Cannot read")]:
        with pytest.raises(AudioError) as err:
            load_audio(path)
        msg = str(err.value)
        assert words in msg and msg.endswith(".") and "\n" not in msg and msg.count(". ") == 0, msg


def test_missing_portaudio_is_one_sentence(monkeypatch):
    """sounddevice raises OSError on import when libportaudio is absent."""
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # import -> ImportError
    with pytest.raises(AudioError, match="sounddevice package is not installed"):
        audio.list_devices()

    import builtins
    real_import = builtins.__import__

    def fake_import(name, *a, **kw):
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real_import(name, *a, **kw)

    monkeypatch.delitem(sys.modules, "sounddevice")
    monkeypatch.setattr(builtins, "__import__", fake_import)
    for make in (audio.list_devices, lambda: audio.MicSource(), lambda: audio.SpeakerSink(22_050)):
        with pytest.raises(AudioError) as err:
            make()
        msg = str(err.value)
        assert "PortAudio library is not installed" in msg and "\n" not in msg


def _fake_sounddevice(devices):
    """A stand-in for sounddevice on a machine whose every stream fails (no sound card)."""
    sd = types.ModuleType("sounddevice")

    class PortAudioError(Exception):
        pass

    def fail(*a, **kw):
        raise PortAudioError("Error querying device -1")

    sd.PortAudioError = PortAudioError
    sd.query_devices = lambda *a, **kw: devices if not a else fail()
    sd.default = types.SimpleNamespace(device=(-1, -1))
    sd.InputStream = sd.OutputStream = fail
    return sd


def test_no_sound_card_is_one_sentence(monkeypatch):
    monkeypatch.setitem(sys.modules, "sounddevice", _fake_sounddevice([]))
    assert audio.list_devices() == []
    for make, kind in [(lambda: audio.MicSource(), "input"), (lambda: audio.SpeakerSink(22_050), "output")]:
        with pytest.raises(AudioError) as err:
            make()
        msg = str(err.value)
        assert f"Cannot open the {kind} sound device" in msg and "Error querying device -1" in msg
        assert "\n" not in msg and msg.endswith(".")
    with pytest.raises(AudioError, match="No input device matches 'usb mic'; available: none."):
        audio.MicSource("usb mic")


def test_device_selection_by_name_and_index(monkeypatch):
    devs = [{"name": "HDA Intel: ALC", "max_input_channels": 2, "max_output_channels": 2, "default_samplerate": 48000.0},
            {"name": "USB Mic", "max_input_channels": 1, "max_output_channels": 0, "default_samplerate": 44100.0}]
    monkeypatch.setitem(sys.modules, "sounddevice", _fake_sounddevice(devs))
    assert [d.name for d in audio.list_devices()] == ["HDA Intel: ALC", "USB Mic"]
    assert audio.resolve_device("usb", "input") == 1
    assert audio.resolve_device("0", "output") == 0
    with pytest.raises(AudioError, match="no output device with index 1"):
        audio.resolve_device(1, "output")


def test_real_sounddevice_without_a_card_fails_cleanly():
    """Whatever this machine has (no PortAudio, or no card), the message is one sentence."""
    try:
        src = audio.MicSource()
    except AudioError as err:
        assert "\n" not in str(err) and str(err).endswith(".")
    else:  # a machine with a microphone
        src.close()


def test_buffered_sink_stop_drops_pending_audio():
    sink = BufferedSink(22_050)
    starts = []
    sink.on_start = starts.append
    sink.write(np.ones(22_050, np.float32))
    assert sink.is_playing() and sink.pending_s() == pytest.approx(1.0)
    assert np.all(sink.pull(100) == 1.0) and len(starts) == 1
    sink.stop()
    assert not sink.is_playing() and sink.pending_s() == 0
    assert np.all(sink.pull(100) == 0.0)
    ref = sink.reference(starts[0] - 0.001, starts[0] + 0.004)  # what went out, at 16 kHz
    assert np.max(ref) > 0.9


def test_wav_sink_writes_the_file(tmp_path):
    sink = WavSink(tmp_path / "out.wav", 22_050)
    sink.write(_tone(440, 22_050, 0.2))
    sink.close()
    with wave.open(str(tmp_path / "out.wav")) as w:
        assert w.getframerate() == 22_050 and w.getnframes() == 4410


def _echo_matches(mic: np.ndarray, tone: np.ndarray, rate: int, at_s: float, gain: float) -> bool:
    start = int(round(at_s * audio.SAMPLE_RATE))
    want = gain * resample(tone, rate, audio.SAMPLE_RATE)
    echo = mic[start:start + len(want)]
    return bool(np.max(np.abs(echo[200:-200] - want[:len(echo)][200:-200])) < 0.02)


def test_scripted_duplex_echo_stays_in_place_when_the_reader_stalls():
    """Mic and DAC advance together on the device clock: a stalled reader (a busy CI
    machine) delays the device, it never lets the mic run ahead of the echo."""
    rate, gain, delay = 22_050, 0.5, 0.03
    dev = ScriptedDuplex([], rate, echo_gain=gain, echo_delay_s=delay, tail_s=1.2)
    tone = _tone(300, rate, seconds=0.6, amp=0.4)
    dev.sink.write(tone)
    frames = []
    for i, f in enumerate(dev.source.frames()):
        frames.append(f)
        if i in (5, 12):
            time.sleep(0.15)
    dev.source.close()
    assert dev.playback_starts == [0.0] and dev.underruns == 0
    assert _echo_matches(np.concatenate(frames), tone, rate, delay, gain)  # all of it, in place
    assert dev.offset >= 0.2  # the stamps it hands out followed the wall clock across stalls


def test_scripted_duplex_waits_for_audio_the_player_still_owes():
    """While the writer says audio is on its way the device holds its clock: the reply
    starts at the same device time however long synthesis takes on the wall clock."""
    rate = 22_050
    dev = ScriptedDuplex([], rate, echo_gain=1.0, tail_s=0.5)
    tone = _tone(300, rate, seconds=0.3, amp=0.4)
    owed = threading.Event()
    owed.set()
    dev.sink.feeding = owed.is_set

    def synthesise_slowly():
        time.sleep(0.3)
        dev.sink.write(tone)
        owed.clear()

    threading.Thread(target=synthesise_slowly, daemon=True).start()
    mic = np.concatenate(list(dev.source.frames()))
    dev.source.close()
    assert dev.playback_starts == [0.0] and dev.underruns == 0
    assert dev.sound_ends_s() == pytest.approx(0.3, abs=1 / rate)
    assert _echo_matches(mic, tone, rate, dev.echo_delay_s, 1.0)
