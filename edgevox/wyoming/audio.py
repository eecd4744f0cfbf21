"""PCM as Wyoming carries it, to and from the float32 audio the voice stage uses.

A Wyoming client says in every `audio-start` / `audio-chunk` what it sends: rate (Hz),
width (bytes per sample) and channel count. Home Assistant sends 16 kHz, 16-bit mono,
but satellites and other clients do not have to, so anything sensible is accepted:
channels are averaged to mono and the rate is brought to 16 kHz with the voice stage's
own windowed-sinc `Resampler` (the protocol package's `audioop.ratecv` interpolates
linearly, which aliases when 44.1/48 kHz audio comes down to 16 kHz). A chunk may end
inside a sample frame; the partial frame waits for the next chunk.
"""

from __future__ import annotations

import numpy as np

from edgevox.voice.signals import SAMPLE_RATE, Resampler
from edgevox.voice.wav import decode_pcm

MIN_RATE, MAX_RATE = 8_000, 192_000
MAX_CHANNELS = 8


class AudioFormatError(ValueError):
    """Audio in a format the server cannot use; str() is one sentence for the client."""


def check_format(rate: object, width: object, channels: object) -> tuple[int, int, int]:
    """The format as ints, or AudioFormatError saying what is wrong with it."""
    for name, v in (("rate", rate), ("width", width), ("channels", channels)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise AudioFormatError(f"audio {name} must be an integer, got {v!r}")
    if not MIN_RATE <= rate <= MAX_RATE:  # type: ignore[operator]
        raise AudioFormatError(f"audio rate {rate} Hz is outside {MIN_RATE}-{MAX_RATE} Hz")
    if width not in (1, 2, 3, 4):
        raise AudioFormatError(f"audio width {width} bytes is not 1, 2, 3 or 4 (integer PCM)")
    if not 1 <= channels <= MAX_CHANNELS:  # type: ignore[operator]
        raise AudioFormatError(f"audio with {channels} channels is not supported (1-{MAX_CHANNELS})")
    return rate, width, channels  # type: ignore[return-value]


def decode(raw: bytes, width: int, channels: int) -> np.ndarray:
    """Little-endian signed PCM (Wyoming's 8-bit is signed too, as audioop reads it) to
    float32 mono in [-1, 1]."""
    if width == 1:
        x = np.frombuffer(raw, np.int8).astype(np.float32) / 128.0
    else:
        x = decode_pcm(raw, width, 1)
    if channels > 1:
        x = x.reshape(-1, channels).mean(axis=1, dtype=np.float32)
    return x


def encode16(audio: np.ndarray) -> bytes:
    """float32 in [-1, 1] to 16-bit little-endian PCM (what every Wyoming client plays)."""
    return (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()


class ToMono16k:
    """Streaming converter: client PCM chunks in, float32 16 kHz mono out.

    The format may change between chunks (each chunk carries its own); the resampler is
    then flushed and rebuilt, so no audio is lost or mixed across the change.
    """

    def __init__(self) -> None:
        self._fmt: tuple[int, int, int] | None = None
        self._rs: Resampler | None = None
        self._rest = b""

    def feed(self, raw: bytes, rate: object, width: object, channels: object) -> np.ndarray:
        fmt = check_format(rate, width, channels)
        out = []
        if fmt != self._fmt:
            out.append(self.flush())
            self._fmt, self._rs = fmt, Resampler(fmt[0], SAMPLE_RATE)
        frame = fmt[1] * fmt[2]
        data = self._rest + bytes(raw or b"")
        cut = len(data) - len(data) % frame
        self._rest = data[cut:]
        assert self._rs is not None
        out.append(self._rs.process(decode(data[:cut], fmt[1], fmt[2])))
        return np.concatenate(out)

    def flush(self) -> np.ndarray:
        """What is still inside the resampler (a trailing partial frame is dropped)."""
        out = self._rs.flush() if self._rs is not None else np.zeros(0, np.float32)
        self._rs, self._fmt, self._rest = None, None, b""
        return out
