"""Live sound devices through sounddevice (PortAudio): list and pick them, the microphone
source and the speaker sink. Every failure (no PortAudio, no sound card, no usable rate) is
an `AudioError` whose message is one sentence."""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .signals import FRAME, SAMPLE_RATE, AudioError, Resampler
from .streams import BufferedSink


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    name: str
    max_input_channels: int
    max_output_channels: int
    default_samplerate: float
    is_default_input: bool = False
    is_default_output: bool = False


def _sounddevice():
    """Import sounddevice, turning a missing package or PortAudio into one sentence."""
    try:
        import sounddevice as sd
    except OSError:
        raise AudioError(
            "The PortAudio library is not installed (on Debian/Ubuntu: sudo apt install "
            "libportaudio2); use WAV files with --input/--output instead."
        ) from None
    except ImportError:
        raise AudioError(
            "The sounddevice package is not installed; install the voice extra: "
            "pip install 'edgevox[voice]'."
        ) from None
    return sd


def _device_error(kind: str, err: Exception) -> AudioError:
    text = str(err).strip().rstrip(".") or type(err).__name__
    return AudioError(
        f"Cannot open the {kind} sound device ({text}); check that a sound card is present, "
        "or use WAV files with --input/--output."
    )


def _open_first(kind: str, rates: list[int], make) -> tuple[object, int]:
    """The first of ``rates`` at which ``make(rate)`` gives a stream that starts, and that
    rate; an AudioError naming the last failure when none does."""
    errors: list[Exception] = []
    for rate in rates:
        try:
            stream = make(rate)
            stream.start()
        except Exception as err:  # PortAudioError: rate unsupported or no device
            errors.append(err)
            continue
        return stream, int(rate)
    raise _device_error(kind, errors[-1] if errors else RuntimeError("no usable rate"))


def list_devices() -> list[DeviceInfo]:
    """Every sound device PortAudio sees, with the default input and output flagged."""
    sd = _sounddevice()
    try:
        devs = sd.query_devices()
        d_in, d_out = sd.default.device
    except Exception as err:  # PortAudioError and friends: no audio subsystem
        raise _device_error("list of", err) from err
    return [
        DeviceInfo(i, d["name"], d["max_input_channels"], d["max_output_channels"],
                   float(d["default_samplerate"]), i == d_in, i == d_out)
        for i, d in enumerate(devs)
    ]


def resolve_device(spec: int | str | None, kind: str) -> int | None:
    """Pick a device by index or by (case-insensitive) part of its name; None = default."""
    if spec is None:
        return None
    if isinstance(spec, str) and spec.strip().isdigit():
        spec = int(spec)
    devices = list_devices()
    chans = (lambda d: d.max_input_channels) if kind == "input" else (lambda d: d.max_output_channels)
    usable = [d for d in devices if chans(d) > 0]
    if isinstance(spec, int):
        if any(d.index == spec for d in usable):
            return spec
        raise AudioError(f"There is no {kind} device with index {spec}; run `edgevox voice --list-devices`.")
    hits = [d for d in usable if spec.lower() in d.name.lower()]
    if not hits:
        names = ", ".join(repr(d.name) for d in usable) or "none"
        raise AudioError(f"No {kind} device matches {spec!r}; available: {names}.")
    return hits[0].index


class MicSource:
    """Live microphone frames at 16 kHz; opens at 16 kHz or resamples from the device rate."""

    sample_rate = SAMPLE_RATE
    realtime = True

    def __init__(self, device: int | str | None = None, block_s: float = 0.032):
        sd = _sounddevice()
        self._dev = resolve_device(device, "input")
        self._q: queue.Queue[tuple[float, np.ndarray]] = queue.Queue(maxsize=2000)
        self.last_frame_time = 0.0
        self._closed = threading.Event()
        self.overflows = 0

        def callback(indata, frames, t, status):
            if status:
                self.overflows += 1
            try:
                self._q.put_nowait((time.monotonic(), indata[:, 0].copy()))
            except queue.Full:
                self.overflows += 1

        self._stream, self.device_rate = _open_first(
            "input", self._candidate_rates(sd),
            lambda rate: sd.InputStream(device=self._dev, channels=1, samplerate=rate, dtype="float32",
                                        blocksize=int(rate * block_s), callback=callback, latency="low"))
        self._rs = Resampler(self.device_rate, SAMPLE_RATE)

    def _candidate_rates(self, sd) -> list[int]:
        try:
            default = int(sd.query_devices(self._dev, "input")["default_samplerate"])
        except Exception:
            default = 48_000
        return list(dict.fromkeys([SAMPLE_RATE, default, 48_000, 44_100]))

    def frames(self) -> Iterator[np.ndarray]:
        buf = np.zeros(0, np.float32)
        while not self._closed.is_set():
            try:
                t_block, block = self._q.get(timeout=0.2)
            except queue.Empty:
                continue
            buf = np.concatenate([buf, self._rs.process(block)])
            while len(buf) >= FRAME:
                # the frame ended this long before the end of the block that completed it
                self.last_frame_time = t_block - (len(buf) - FRAME) / SAMPLE_RATE
                yield buf[:FRAME]
                buf = buf[FRAME:]

    def close(self) -> None:
        self._closed.set()
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()


class SpeakerSink(BufferedSink):
    """Live playback through sounddevice; the device callback pulls from the buffer."""

    def __init__(self, sample_rate: int, device: int | str | None = None, block_s: float = 0.02):
        super().__init__(sample_rate)
        sd = _sounddevice()
        dev = resolve_device(device, "output")
        try:
            default = int(sd.query_devices(dev, "output")["default_samplerate"])
        except Exception:
            default = 48_000
        # low latency: what is already in the device buffer still plays after a barge-in
        self._stream, self.device_rate = _open_first(
            "output", list(dict.fromkeys([self.sample_rate, default, 48_000, 44_100])),
            lambda rate: sd.OutputStream(device=dev, channels=1, samplerate=rate, dtype="float32",
                                         blocksize=int(rate * block_s), callback=self._callback(rate),
                                         latency="low"))

    def _callback(self, rate: int):
        """The device callback for a device running at ``rate`` (resampled when it differs)."""
        rs = Resampler(self.sample_rate, rate) if rate != self.sample_rate else None
        spill = np.zeros(0, np.float32)

        def callback(outdata, frames, t, status):
            nonlocal spill
            if rs is None:
                outdata[:, 0] = self.pull(frames)
                return
            while len(spill) < frames:
                need = int(math.ceil((frames - len(spill)) * self.sample_rate / rs.dst_rate)) + 1
                spill = np.concatenate([spill, rs.process(self.pull(need))])
            outdata[:, 0], spill = spill[:frames], spill[frames:]

        return callback

    def close(self) -> None:
        super().close()
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()
