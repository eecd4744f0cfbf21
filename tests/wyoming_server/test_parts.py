"""The server's pieces that need no model: audio conversion and the conversation store."""

from __future__ import annotations

import numpy as np
import pytest

from edgevox.voice.audio import SAMPLE_RATE
from edgevox.wyoming.audio import AudioFormatError, ToMono16k, check_format, encode16
from edgevox.wyoming.service import Conversations


def tone(rate: int, s: float = 0.5, hz: float = 440.0) -> np.ndarray:
    t = np.arange(int(rate * s)) / rate
    return (0.5 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def test_chunks_cut_inside_a_frame_give_the_same_audio_as_one_chunk():
    x = tone(44100)
    stereo = np.repeat((x * 32767).astype("<i2")[:, None], 2, axis=1).tobytes()
    whole = ToMono16k()
    ref = np.concatenate([whole.feed(stereo, 44100, 2, 2), whole.flush()])
    parts = ToMono16k()
    out = [parts.feed(stereo[i:i + 999], 44100, 2, 2) for i in range(0, len(stereo), 999)]  # odd cuts
    got = np.concatenate([*out, parts.flush()])
    assert len(got) == len(ref) == int(np.ceil(len(x) * SAMPLE_RATE / 44100))
    np.testing.assert_allclose(got, ref, atol=1e-6)
    # the 440 Hz tone survives the rate change at its level
    assert 0.3 < float(np.sqrt(np.mean(got[800:-800] ** 2))) < 0.4


def test_width_1_3_4_and_a_format_change_midway():
    c = ToMono16k()
    a = c.feed((tone(16000) * 127).astype(np.int8).tobytes(), 16000, 1, 1)
    v = (tone(16000) * (2**23 - 1)).astype("<i4")
    b = c.feed(np.stack([v & 255, (v >> 8) & 255, (v >> 16) & 255], 1).astype(np.uint8).tobytes(), 16000, 3, 1)
    d = c.feed((tone(16000) * (2**31 - 1)).astype("<i4").tobytes(), 16000, 4, 1)
    for y in (a, b, d):
        assert len(y) == 8000 and abs(float(np.max(y)) - 0.5) < 0.01


@pytest.mark.parametrize("fmt,msg", [((16000, 5, 1), "width 5"), ((1000, 2, 1), "1000 Hz"),
                                     ((16000, 2, 0), "0 channels"), ((16000.0, 2, 1), "integer"),
                                     ((None, 2, 1), "rate must be")])
def test_unusable_formats_say_why(fmt, msg):
    with pytest.raises(AudioFormatError, match=msg):
        check_format(*fmt)


def test_encode16_clips():
    assert np.frombuffer(encode16(np.array([2.0, -2.0, 0.5], np.float32)), "<i2").tolist() == [32767, -32767, 16383]


def test_conversations_are_bounded_in_number_and_age():
    now = [0.0]
    convs = Conversations(limit=2, ttl_s=60, clock=lambda: now[0])
    a = convs.get("a")
    assert convs.get("a") is a and a.id == "a"
    fresh = convs.get(None)
    assert fresh.id and fresh.id != "a"
    b = convs.get("b")  # third one: the least recently used ("a") goes
    assert len(convs) == 2 and convs.get("a") is not a
    now[0] = 30.0
    assert convs.get("b") is b  # used again: its age restarts
    now[0] = 89.0
    assert len(convs) == 2 and convs.get("b") is b
    now[0] = 150.0
    assert convs.get("b") is not b and len(convs) == 1  # a minute unused: forgotten
