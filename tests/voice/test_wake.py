"""The wake-word detector on real microWakeWord models and real Piper speech."""

from __future__ import annotations

import numpy as np
import pytest

from edgevox.voice.audio import SAMPLE_RATE, resample
from edgevox.voice.wake import WakeHit, WakeWordDetector, available_wake_words, wake_phrase

pytestmark = pytest.mark.voice


def _speak(tts, text: str) -> np.ndarray:
    """Piper's voice at 16 kHz with half a second of silence either side."""
    pad = np.zeros(SAMPLE_RATE // 2, np.float32)
    return np.concatenate([pad, resample(tts.synthesize_all(text), tts.sample_rate, SAMPLE_RATE), pad])


def _int16(x: np.ndarray) -> np.ndarray:
    return (np.clip(x, -1, 1) * 32767).astype(np.int16)


def _feed_in_blocks(det: WakeWordDetector, audio: np.ndarray, block: int = 512) -> list[WakeHit]:
    hits: list[WakeHit] = []
    for i in range(0, len(audio), block):
        hits += det.feed(_int16(audio[i:i + block]))
    return hits


@pytest.fixture(scope="module")
def phrases(tts) -> dict[str, np.ndarray]:
    return {"nabu": _speak(tts, "Okay Nabu."), "jarvis": _speak(tts, "Hey Jarvis."),
            "request": _speak(tts, "Turn on the kitchen light and set the heating to twenty degrees.")}


def test_the_wheel_ships_the_four_models():
    assert set(available_wake_words()) >= {"okay_nabu", "hey_jarvis", "alexa", "hey_mycroft"}
    assert wake_phrase("okay_nabu") == "Okay Nabu"


def test_fires_once_on_the_wake_phrase_and_never_on_a_request(phrases):
    det = WakeWordDetector(["okay_nabu"])
    hits = _feed_in_blocks(det, phrases["nabu"])
    assert [h.name for h in hits] == ["okay_nabu"]
    # the hit lands at the end of the phrase, inside the audio, with a score over the cutoff
    assert 0.5 < hits[0].t_s <= len(phrases["nabu"]) / SAMPLE_RATE
    assert hits[0].score > det.cutoff(0)
    det.reset()
    assert _feed_in_blocks(det, phrases["request"]) == []
    assert det.max_scores[0] < det.cutoff(0)


def test_refractory_period_one_utterance_one_hit(phrases):
    nabu = phrases["nabu"]
    # without a refractory period the smoothed score stays above the cutoff for several
    # 30 ms steps, so one utterance would wake the assistant several times
    eager = WakeWordDetector(["okay_nabu"], refractory_s=0.0)
    assert len(_feed_in_blocks(eager, nabu)) > 1
    det = WakeWordDetector(["okay_nabu"], refractory_s=2.0)
    assert len(_feed_in_blocks(det, nabu)) == 1
    # a second utterance after the refractory period wakes it again
    gap = np.zeros(SAMPLE_RATE * 2, np.float32)
    det.reset()
    hits = _feed_in_blocks(det, np.concatenate([nabu, gap, nabu]))
    assert len(hits) == 2 and hits[1].t_s - hits[0].t_s > 2.0


def test_several_wake_words_at_once(phrases):
    det = WakeWordDetector(["okay_nabu", "hey_jarvis"], refractory_s=1.0)
    audio = np.concatenate([phrases["jarvis"], phrases["request"], phrases["nabu"]])
    hits = _feed_in_blocks(det, audio, block=1000)  # block size need not match any frame size
    assert [h.name for h in hits] == ["hey_jarvis", "okay_nabu"]
    assert hits[0].t_s < len(phrases["jarvis"]) / SAMPLE_RATE < hits[1].t_s


def test_float_input_and_odd_blocks_give_the_same_hits(phrases):
    a, b = WakeWordDetector(["okay_nabu"]), WakeWordDetector(["okay_nabu"])
    as_int = _feed_in_blocks(a, phrases["nabu"], block=160)
    as_float = []
    for i in range(0, len(phrases["nabu"]), 777):
        as_float += b.feed(phrases["nabu"][i:i + 777])
    assert as_int == as_float and len(as_int) == 1


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="Unknown wake word 'okay_nobody'.*okay_nabu"):
        WakeWordDetector(["okay_nobody"])
    with pytest.raises(ValueError, match="at least one"):
        WakeWordDetector([])
    det = WakeWordDetector("okay_nabu")
    with pytest.raises(ValueError, match="mono"):
        det.feed(np.zeros((2, 100), np.int16))
    with pytest.raises(ValueError, match="int16 or float"):
        det.feed(np.zeros(100, np.int32))
