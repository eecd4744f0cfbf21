"""The audio basics every voice stage shares: the input rate and frame, the error type,
resampling and level.

Live streams are resampled by our own windowed-sinc polyphase filter in numpy (Kaiser
window, 32 taps per phase; linear interpolation aliases badly when a 44.1/48 kHz microphone
comes down to 16 kHz); whole files by soxr. See `Resampler` and `resample` for the numbers.
"""

from __future__ import annotations

import math

import numpy as np

SAMPLE_RATE = 16_000
"""Rate of every input frame (VAD and STT rate)."""
FRAME = 512
"""Samples per input frame: 32 ms, the window Silero VAD takes at 16 kHz."""
MIN_INPUT_RATE = 8_000


class AudioError(RuntimeError):
    """A sound device or audio file cannot be used; str() is one sentence for the user."""


class Resampler:
    """Streaming rational resampler (polyphase windowed sinc); state spans `process` calls.

    Why our own for streams, measured against soxr's streaming resampler side by side
    (`benchmarks/bench_libraries.py`, 48 -> 16 kHz in 20 ms blocks): soxr HQ holds back
    about 21 ms of output (340 samples at 16 kHz; 2-30 ms over its quality settings) where
    this filter holds back 1 ms, and that delay would sit in every turn's time to the end
    of speech and shift the echo guard's playback reference. Ours is good enough for speech
    (86 dB SNR on speech-band tones, aliases at -96 dB) and costs 2-3 % of a core at 48 kHz.
    Whole signals, where latency does not matter, go through soxr (`resample`).
    """

    def __init__(self, src_rate: int, dst_rate: int, taps_per_phase: int = 32, beta: float = 8.0):
        if src_rate <= 0 or dst_rate <= 0:
            raise AudioError(f"Sample rates must be positive, got {src_rate} Hz and {dst_rate} Hz.")
        g = math.gcd(int(src_rate), int(dst_rate))
        self.up, self.down = int(dst_rate) // g, int(src_rate) // g
        self.src_rate, self.dst_rate = int(src_rate), int(dst_rate)
        # the filter must span `taps_per_phase` periods of the lower rate, hence the scaling
        k = int(math.ceil(taps_per_phase * max(1.0, self.down / self.up)))
        k += k % 2  # even, so the filter delay is a whole number of upsampled samples
        n = k * self.up + 1
        cutoff = 0.5 / max(self.up, self.down) * 0.92  # cycles per upsampled sample
        t = np.arange(n) - (n - 1) / 2
        h = 2 * cutoff * np.sinc(2 * cutoff * t) * np.kaiser(n, beta) * self.up
        h = np.concatenate([h, np.zeros((k + 1) * self.up - n)])
        # poly[p, j] multiplies x[base - j] for outputs whose upsampled phase is p
        self._poly = h.reshape(k + 1, self.up).T.astype(np.float64)
        self._taps = k + 1
        self._delay = k * self.up // 2
        self._buf = np.zeros(0, np.float64)
        self._buf_start = 0  # absolute index of _buf[0]
        self._m = 0  # next output index
        self._n_in = 0

    def _outputs_until(self, m_end: int) -> np.ndarray:
        if m_end <= self._m:
            return np.zeros(0, np.float32)
        outs = []
        for m0 in range(self._m, m_end, 8192):
            m = np.arange(m0, min(m_end, m0 + 8192), dtype=np.int64)
            q = m * self.down + self._delay
            phase, base = q % self.up, q // self.up
            idx = base[:, None] - np.arange(self._taps)[None, :] - self._buf_start
            if len(self._buf):
                ok = (idx >= 0) & (idx < len(self._buf))
                x = np.where(ok, self._buf[np.clip(idx, 0, len(self._buf) - 1)], 0.0)
            else:
                x = np.zeros(idx.shape)
            outs.append(np.einsum("ij,ij->i", self._poly[phase], x))
        self._m = m_end
        keep_from = (self._m * self.down + self._delay) // self.up - self._taps
        drop = max(0, min(len(self._buf), keep_from - self._buf_start))
        self._buf, self._buf_start = self._buf[drop:], self._buf_start + drop
        return np.concatenate(outs).astype(np.float32)

    def process(self, chunk: np.ndarray) -> np.ndarray:
        """Feed input samples; return every output sample that is now fully determined."""
        if self.up == self.down:
            return np.asarray(chunk, np.float32)
        self._buf = np.concatenate([self._buf, np.asarray(chunk, np.float64)])
        self._n_in += len(chunk)
        total = self._buf_start + len(self._buf)
        m_end = (total * self.up - 1 - self._delay) // self.down + 1
        return self._outputs_until(max(m_end, 0))

    def flush(self) -> np.ndarray:
        """Return the remaining outputs (input treated as followed by silence)."""
        if self.up == self.down:
            return np.zeros(0, np.float32)
        want = -(-self._n_in * self.up // self.down)
        return self._outputs_until(want)


def resample(x: np.ndarray, src_rate: int, dst_rate: int) -> np.ndarray:
    """Resample a whole mono signal with soxr (HQ); output length is ceil(len * dst / src).

    For a whole signal latency does not matter, and soxr is better on every other count
    (`benchmarks/bench_libraries.py`: 137 vs 86 dB SNR on speech-band tones, a 7.5 kHz tone
    kept at -0.4 vs -8.4 dB when going to 16 kHz, 20-80x faster, 11 ms import, 0.5 MB).
    """
    x = np.ascontiguousarray(x, np.float32).reshape(-1)
    if src_rate <= 0 or dst_rate <= 0:
        raise AudioError(f"Sample rates must be positive, got {src_rate} Hz and {dst_rate} Hz.")
    if src_rate == dst_rate:
        return x.copy()
    import soxr

    want = -(-len(x) * int(dst_rate) // int(src_rate))
    y = np.asarray(soxr.resample(x, int(src_rate), int(dst_rate), quality="HQ"), np.float32)[:want]
    return y if len(y) == want else np.concatenate([y, np.zeros(want - len(y), np.float32)])


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0
