"""One Wyoming connection: events in, events out, on the `wyoming` package's own classes.

Each connection has its own audio buffer, converter and text stream, so two clients
never mix audio; the models behind them are shared (`Service`) and each serialises its
own calls. Blocking work (Whisper, Piper, the agent's turn, the wake detector) runs on
worker threads so the event loop keeps answering `describe` on other connections.

What a client can get wrong is answered, never fatal: an event type the server does not
know is dropped with a log line (the protocol asks servers to drop what they do not
know); audio in a format it cannot use gets an `error` event and, at `audio-stop`, an
empty transcript; an empty `synthesize` gets an empty audio stream; a client that goes
away mid-stream ends its own connection only. Any other failure inside one request is
logged, reported to that client as an `error` event, and the connection goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

import numpy as np
from wyoming.asr import Transcribe, Transcript, TranscriptChunk, TranscriptStart, TranscriptStop
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.handle import Handled, HandledChunk, HandledStart, HandledStop, NotHandled
from wyoming.info import Describe
from wyoming.ping import Ping, Pong
from wyoming.server import AsyncEventHandler
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
)
from wyoming.wake import Detect, Detection, NotDetected

from edgevox.agents.types import STOP_CONTEXT, STOP_ERROR, STOP_HOOK_FAILED, AgentResult
from edgevox.voice.audio import SAMPLE_RATE
from edgevox.voice.text import SentenceSplitter, split_sentences
from edgevox.wyoming.audio import AudioFormatError, ToMono16k, encode16
from edgevox.wyoming.service import Service, Unavailable

log = logging.getLogger("edgevox.wyoming")

CHUNK_SAMPLES = 1024          # samples per audio-chunk sent (46 ms at 22.05 kHz)
FIRST_CLAUSE_WORDS = 6        # a long first sentence is cut at a clause: earlier first audio
_FAILED_STOPS = (STOP_ERROR, STOP_CONTEXT, STOP_HOOK_FAILED)  # answered with not-handled


class _AudioIn:
    """One incoming audio stream (for `asr` or `wake`), converted to 16 kHz mono."""

    def __init__(self, purpose: str, max_s: float, detector: Any = None, language: str | None = None):
        self.purpose, self.detector, self.language = purpose, detector, language
        self.conv = ToMono16k()
        self.parts: list[np.ndarray] = []
        self.samples = 0
        self.max_samples = int(max_s * SAMPLE_RATE)
        self.bad: str | None = None         # why the stream became unusable
        self.cut = False
        self.detected = False
        self.context: dict | None = None    # the detect request's context, echoed back

    def add(self, x: np.ndarray) -> np.ndarray:
        room = self.max_samples - self.samples
        if len(x) > room:
            if not self.cut:
                log.warning("audio longer than %.0f s: the rest is dropped", self.max_samples / SAMPLE_RATE)
            self.cut = True
            x = x[:max(0, room)]
        self.samples += len(x)
        if self.purpose == "asr" and len(x):
            self.parts.append(x)
        return x

    def audio(self) -> np.ndarray:
        return np.concatenate(self.parts) if self.parts else np.zeros(0, np.float32)


class EdgeVoxHandler(AsyncEventHandler):
    """The per-connection handler `AsyncServer` creates for every client."""

    def __init__(self, service: Service, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        super().__init__(reader, writer)
        self.svc = service
        self.peer = writer.get_extra_info("peername") or "local socket"
        self._request: tuple[str, Any] | None = None   # ("asr", Transcribe) | ("wake", Detect)
        self._audio: _AudioIn | None = None
        self._text: SentenceSplitter | None = None     # open synthesize-start … stop stream
        self._tts_started = False

    # -- dispatch -----------------------------------------------------------------------
    async def handle_event(self, event: Event) -> bool:
        try:
            return await self._dispatch(event)
        except (ConnectionError, asyncio.IncompleteReadError) as err:
            log.info("client %s went away during %s: %s", self.peer, event.type, type(err).__name__)
            return False
        except Exception as err:  # one bad request must not end the server or the connection
            log.exception("request %s from %s failed", event.type, self.peer)
            self._close_audio()
            self._request, self._text = None, None
            await self._send(Error(text=f"{type(err).__name__}: {err}", code="internal").event())
            return True

    async def _dispatch(self, event: Event) -> bool:
        t = event.type
        if Describe.is_type(t):
            await self._send(self.svc.info.event())
        elif Ping.is_type(t):
            await self._send(Pong(text=Ping.from_event(event).text).event())
        elif Transcribe.is_type(t):
            self._request = ("asr", Transcribe.from_event(event))
        elif Detect.is_type(t):
            await self._detect(Detect.from_event(event))
        elif AudioStart.is_type(t):
            await self._audio_start(AudioStart.from_event(event))
        elif AudioChunk.is_type(t):
            await self._audio_chunk(event)
        elif AudioStop.is_type(t):
            await self._audio_stop()
        elif Synthesize.is_type(t):
            await self._synthesize(Synthesize.from_event(event))
        elif SynthesizeStart.is_type(t):
            self._text, self._tts_started = SentenceSplitter(min_clause_words=FIRST_CLAUSE_WORDS), False
        elif SynthesizeChunk.is_type(t):
            await self._synthesize_chunk(SynthesizeChunk.from_event(event).text)
        elif SynthesizeStop.is_type(t):
            await self._synthesize_stop()
        elif Transcript.is_type(t):
            await self._handle(Transcript.from_event(event))
        else:
            log.info("ignored event %r from %s (not served here)", t, self.peer)
        return True

    async def disconnect(self) -> None:
        if self._audio is not None or self._text is not None:
            log.info("client %s disconnected mid-stream; its partial request is dropped", self.peer)
        self._close_audio()
        self._request, self._text = None, None

    async def _send(self, event: Event) -> None:
        await self.write_event(event)

    async def _error(self, text: str, code: str) -> None:
        log.warning("%s: %s (client %s)", code, text, self.peer)
        await self._send(Error(text=text, code=code).event())

    # -- audio in: asr and wake -----------------------------------------------------------
    async def _detect(self, req: Detect) -> None:
        names = [n for n in (req.names or self.svc.wake_words) if n in self.svc.wake_words]
        if not names:
            await self._error(f"no wake word served here among {req.names or []}; served: "
                              f"{', '.join(self.svc.wake_words) or 'none'}", "wake-unavailable")
            self._request = None
            return
        self._request = ("wake", (req, names))

    async def _audio_start(self, start: AudioStart | None) -> None:
        purpose, req = self._request or ("asr", Transcribe())
        self._close_audio()
        if purpose == "wake":
            detect, names = req
            detector = await asyncio.to_thread(self.svc.wake_factory, names,
                                               refractory_s=self.svc.config.refractory_s)
            self._audio = _AudioIn("wake", 24 * 3600.0, detector=detector)  # nothing is stored
            self._audio.context = detect.context
        else:
            self._audio = _AudioIn("asr", self.svc.config.max_audio_s, language=req.language)
        if start is not None:
            await self._convert(self._audio, b"", start.rate, start.width, start.channels)

    async def _convert(self, a: _AudioIn, raw: bytes, rate: Any, width: Any, channels: Any) -> np.ndarray:
        """16 kHz mono of one chunk; an unusable format is reported once, and the rest of
        that stream is dropped (it ends in an empty transcript or `not-detected`)."""
        if a.bad is None:
            try:
                return a.conv.feed(raw, rate, width, channels)
            except AudioFormatError as err:
                a.bad = str(err)
                await self._error(str(err), "bad-audio")
        return np.zeros(0, np.float32)

    async def _audio_chunk(self, event: Event) -> None:
        if self._audio is None:  # audio without audio-start: take it as the start
            await self._audio_start(None)
        a = self._audio
        assert a is not None
        d = event.data
        x = a.add(await self._convert(a, event.payload or b"", d.get("rate"), d.get("width"),
                                      d.get("channels")))
        if a.purpose == "wake" and len(x):
            await self._wake_feed(a, x)

    async def _wake_feed(self, a: _AudioIn, x: np.ndarray) -> None:
        hits = await asyncio.to_thread(a.detector.feed, x)
        for hit in hits:
            a.detected = True
            log.info("wake word %s at %.2f s (score %.2f) from %s", hit.name, hit.t_s, hit.score, self.peer)
            await self._send(Detection(name=hit.name, timestamp=int(hit.t_s * 1000),
                                       context=a.context).event())

    def _close_audio(self) -> None:
        """Free the wake detector of the stream that ends (its tflite interpreters)."""
        a, self._audio = self._audio, None
        close = getattr(a.detector, "close", None) if a is not None else None
        if callable(close):
            close()

    async def _audio_stop(self) -> None:
        a, self._request = self._audio, None
        self._close_audio()
        if a is None:
            log.info("audio-stop without audio from %s", self.peer)
            a = _AudioIn("asr", 0.0)
        if a.purpose == "wake":
            if not a.detected:
                await self._send(NotDetected(context=a.context).event())
            return
        if a.bad is not None:
            await self._send(Transcript(text="").event())
            return
        a.add(a.conv.flush())
        await self._transcribe(a)

    async def _transcribe(self, a: _AudioIn) -> None:
        try:
            stt = await self.svc.need(self.svc.stt, "speech-to-text")
        except Unavailable as err:
            await self._error(str(err), "asr-unavailable")
            await self._send(Transcript(text="").event())
            return
        audio = a.audio()
        if not len(audio):
            log.info("empty audio from %s: empty transcript", self.peer)
            await self._send(Transcript(text="").event())
            return
        if a.language and a.language.split("-")[0] != getattr(stt, "language", a.language):
            log.info("client asked for language %r; %s transcribes %r", a.language,
                     self.svc.config.stt, getattr(stt, "language", None))
        tr = await asyncio.to_thread(stt.transcribe, audio)
        log.info("heard %r (%.1f s of audio, %.2f s) from %s", tr.text, tr.audio_s, tr.compute_s, self.peer)
        lang = getattr(stt, "language", None)
        # Streaming events first for clients that read them, then the one `transcript`
        # every client waits for; older clients skip what they do not know.
        await self._send(TranscriptStart(language=lang).event())
        if tr.text:
            await self._send(TranscriptChunk(text=tr.text).event())
        await self._send(TranscriptStop().event())
        await self._send(Transcript(text=tr.text, language=lang).event())

    # -- text in, audio out: tts ------------------------------------------------------------
    async def _synthesize(self, req: Synthesize) -> None:
        if self._text is not None:
            return  # sent alongside a synthesize-start stream for older servers: the stream wins
        sentences = split_sentences(req.text or "", min_clause_words=FIRST_CLAUSE_WORDS)
        if not sentences:
            log.warning("synthesize with nothing speakable (%r) from %s: empty audio", req.text, self.peer)
        self._tts_started = False
        await self._speak(sentences)
        await self._audio_out_end()

    async def _synthesize_chunk(self, text: str) -> None:
        if self._text is None:
            log.info("synthesize-chunk outside a stream from %s: taken as a stream", self.peer)
            self._text, self._tts_started = SentenceSplitter(min_clause_words=FIRST_CLAUSE_WORDS), False
        await self._speak(self._text.feed(text or ""))

    async def _synthesize_stop(self) -> None:
        if self._text is None:
            log.info("synthesize-stop without a stream from %s", self.peer)
            await self._send(SynthesizeStopped().event())
            return
        rest, self._text = self._text.flush(), None
        await self._speak(rest)
        await self._audio_out_end()
        await self._send(SynthesizeStopped().event())

    async def _speak(self, sentences: Iterable[str]) -> None:
        """Synthesise sentence by sentence and send each as soon as it exists."""
        sentences = list(sentences)
        if not sentences:
            return
        try:
            tts = await self.svc.need(self.svc.tts, "text-to-speech")
        except Unavailable as err:
            await self._error(str(err), "tts-unavailable")
            return
        rate = int(tts.sample_rate)
        for s in sentences:
            audio = await asyncio.to_thread(tts.synthesize_all, s)
            if not self._tts_started:
                await self._send(AudioStart(rate=rate, width=2, channels=1).event())
                self._tts_started = True
            pcm = encode16(audio)
            step = CHUNK_SAMPLES * 2
            for i in range(0, len(pcm), step):
                await self._send(AudioChunk(rate=rate, width=2, channels=1, audio=pcm[i:i + step]).event())

    async def _audio_out_end(self) -> None:
        if not self._tts_started:
            rate = 22050
            tts = self.svc.tts
            if tts is not None and tts.future.done() and tts.future.exception() is None:
                rate = int(tts.future.result().sample_rate)
            await self._send(AudioStart(rate=rate, width=2, channels=1).event())
        await self._send(AudioStop().event())
        self._tts_started = False

    # -- a transcript in: the agent's turn --------------------------------------------------
    async def _handle(self, tr: Transcript) -> None:
        ctx = dict(tr.context or {})
        text = (tr.text or "").strip()
        try:
            agent = await self.svc.need(self.svc.agent, "the conversation agent")
        except Unavailable as err:
            log.warning("not handled: %s", err)
            await self._send(NotHandled(text=str(err), context=ctx).event())
            return
        if not text:
            log.info("empty transcript from %s: not handled", self.peer)
            await self._send(NotHandled(text="Nothing was said.", context=ctx).event())
            return
        conv = self.svc.conversations.get(ctx.get("conversation_id"))
        ctx["conversation_id"] = conv.id
        splitter = SentenceSplitter(min_clause_words=0)
        started = False

        async def chunk(sentences: list[str]) -> None:
            nonlocal started
            for s in sentences:
                if not started:
                    await self._send(HandledStart(context=ctx).event())
                    started = True
                await self._send(HandledChunk(text=s + " ").event())

        def turn() -> Iterator[Any]:
            with conv.lock:  # one turn at a time per conversation
                stream = agent.run_stream(text, session=conv.session)
                yield from stream
                yield stream.result

        result = None
        async with contextlib.aclosing(_in_thread(turn)) as items:
            async for item in items:
                if isinstance(item, str):
                    await chunk(splitter.feed(item))
                elif isinstance(item, AgentResult):
                    result = item
                else:
                    log.info("%s: %s %s", type(item).__name__, getattr(item, "name", ""),
                             getattr(item, "arguments", getattr(item, "result", "")))
        await chunk(splitter.flush())
        if started:
            await self._send(HandledStop().event())
        reply = result.reply if result is not None else ""
        calls = [c.name for c in result.calls] if result is not None else []
        reason = result.stopped_reason if result is not None else "error"
        log.info("handled %r -> %r (calls %s, %s) conversation %s", text, reply, calls, reason, conv.id)
        if reason in _FAILED_STOPS:
            await self._send(NotHandled(text=reply or f"The agent failed ({reason}).", context=ctx).event())
        else:
            await self._send(Handled(text=reply, context=ctx).event())


async def _in_thread(make: Callable[[], Iterable[Any]]) -> AsyncIterator[Any]:
    """Yield what `make()` yields, run on a worker thread so the event loop stays free.
    The iterable is consumed to its end even if the client is gone (closing this
    generator waits for it), so an agent turn always finishes and leaves its session
    consistent."""
    loop = asyncio.get_running_loop()
    q: asyncio.Queue = asyncio.Queue()
    done = object()

    def work() -> None:
        try:
            for item in make():
                loop.call_soon_threadsafe(q.put_nowait, item)
            loop.call_soon_threadsafe(q.put_nowait, done)
        except BaseException as err:  # handed to the event loop, raised there
            loop.call_soon_threadsafe(q.put_nowait, _Raised(err))

    worker = loop.run_in_executor(None, work)
    try:
        while True:
            item = await q.get()
            if item is done:
                return
            if isinstance(item, _Raised):
                raise item.err
            yield item
    finally:
        await worker


class _Raised:
    def __init__(self, err: BaseException):
        self.err = err
