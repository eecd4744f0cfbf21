"""Client-side helpers for the Wyoming tests and the soak benchmark."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable

import numpy as np
from wyoming.client import AsyncClient
from wyoming.event import Event


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def talk(uri: str, events: Iterable[Event], until: str | tuple[str, ...],
               timeout: float = 180.0) -> list[Event]:
    """Send `events` on a new connection; read replies until one of type `until`."""
    until = (until,) if isinstance(until, str) else until
    out: list[Event] = []
    async with AsyncClient.from_uri(uri) as client:
        for e in events:
            await client.write_event(e)
        while True:
            ev = await asyncio.wait_for(client.read_event(), timeout)
            assert ev is not None, f"connection closed after {[e.type for e in out]}"
            out.append(ev)
            if ev.type in until:
                return out


def pcm_events(audio: np.ndarray, rate: int, width: int = 2, channels: int = 1,
               chunk_s: float = 0.064) -> list[Event]:
    """AudioStart, AudioChunk…, AudioStop for float audio sent in `width`-byte PCM."""
    from wyoming.audio import AudioChunk, AudioStart, AudioStop

    x = np.clip(np.repeat(audio[:, None], channels, axis=1), -1, 1)
    full = {2: ("<i2", 32767), 4: ("<i4", 2**31 - 1)}
    if width == 3:
        v = (x * (2**23 - 1)).astype("<i4").reshape(-1)
        raw = np.stack([v & 255, (v >> 8) & 255, (v >> 16) & 255], axis=1).astype(np.uint8).tobytes()
    else:
        dt, scale = full[width]
        raw = (x * scale).astype(dt).tobytes()
    step = int(chunk_s * rate) * width * channels
    evs = [AudioStart(rate=rate, width=width, channels=channels).event()]
    evs += [AudioChunk(rate=rate, width=width, channels=channels, audio=raw[i:i + step]).event()
            for i in range(0, len(raw), step)]
    return evs + [AudioStop().event()]


def audio_of(events: list[Event]) -> tuple[np.ndarray, int]:
    """The float audio of every audio-chunk in `events`, and its rate."""
    from wyoming.audio import AudioChunk

    chunks = [AudioChunk.from_event(e) for e in events if AudioChunk.is_type(e.type)]
    if not chunks:
        return np.zeros(0, np.float32), 0
    assert {(c.width, c.channels) for c in chunks} == {(2, 1)}
    raw = b"".join(c.audio for c in chunks)
    return np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0, chunks[0].rate
