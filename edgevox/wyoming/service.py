"""What the server offers and the models behind it, loaded once in the background.

Home Assistant waits about one second for `info` after `describe` and builds its STT,
TTS, wake-word and conversation entries from it, so `Info` is built from the
configuration alone and the models load on one background thread (one at a time, so a
two-core Pi is not swamped): a request that needs a model still loading waits for it;
one whose model failed to load is answered with the reason.

All connections share one `Service`: one Whisper, one Piper voice, one agent and its
tools (each model serialises its own calls with its lock), and the conversations.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import importlib.util
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from edgevox import __version__

log = logging.getLogger("edgevox.wyoming")
T = TypeVar("T")


class Unavailable(RuntimeError):
    """A service that is off, or whose model could not be loaded; str() says which and why."""


@dataclass
class ServiceConfig:
    """What to serve. `None`/False turns a service off (it is then left out of `Info`)."""

    stt: str | None = "whisper-tiny.en"
    language: str = "en"
    voice: str | None = "piper-joe-medium"
    handle: bool = True
    wake: list[str] | None = None       # None: every installed wake word; []: off
    max_conversations: int = 64
    conversation_ttl_s: float = 30 * 60
    max_audio_s: float = 60.0           # longer requests are cut (memory bound per client)
    load_timeout_s: float = 600.0       # how long a request waits for a model still loading
    refractory_s: float = 2.0           # wake word: one detection per utterance


class Loaded(Generic[T]):
    """One model, given as an object or as a loader run on the service's loading thread
    (models are not callable, so a callable is a loader)."""

    def __init__(self, name: str, source: T | Callable[[], T]):
        self.name = name
        self._source = source
        self.future: cf.Future = cf.Future()

    def load(self) -> None:
        if not self.future.set_running_or_notify_cancel():
            return
        t0 = time.perf_counter()
        try:
            value = self._source() if callable(self._source) else self._source
        except Exception as err:  # reported to every request that needs it
            log.error("loading %s failed: %s: %s", self.name, type(err).__name__, err)
            self.future.set_exception(Unavailable(f"the {self.name} could not be loaded: {err}"))
            return
        log.info("%s ready (%.1f s)", self.name, time.perf_counter() - t0)
        self.future.set_result(value)

    async def get(self, timeout: float) -> T:
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self.future)), timeout)
        except TimeoutError:
            raise Unavailable(f"the {self.name} is still loading") from None


@dataclass
class Conversation:
    id: str
    session: Any
    lock: threading.Lock
    seen: float


class Conversations:
    """Agent sessions by Home Assistant's `conversation_id`: at most `limit`, each
    forgotten `ttl_s` after its last turn (HA opens a new connection per request, so the
    conversation, not the connection, carries the history)."""

    def __init__(self, limit: int, ttl_s: float, clock: Callable[[], float] = time.monotonic):
        self.limit, self.ttl_s, self.clock = max(1, limit), ttl_s, clock
        self._items: OrderedDict[str, Conversation] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, conversation_id: str | None) -> Conversation:
        """The conversation; a new one when no id is given or it was forgotten."""
        from edgevox.agents import Session

        cid = str(conversation_id) if conversation_id else uuid.uuid4().hex
        now = self.clock()
        with self._lock:
            for old, c in list(self._items.items()):
                if now - c.seen > self.ttl_s:
                    del self._items[old]
            conv = self._items.pop(cid, None) or Conversation(cid, Session(), threading.Lock(), now)
            conv.seen = now
            self._items[cid] = conv
            while len(self._items) > self.limit:
                gone, _ = self._items.popitem(last=False)
                log.info("conversation %s forgotten (more than %d open)", gone, self.limit)
        return conv

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


def installed_wake_words() -> list[str]:
    """Wake words the offline detector can load here ([] when it is not installed)."""
    try:
        from edgevox.voice.wake import available_wake_words
    except ImportError:
        return []
    try:
        return list(available_wake_words())
    except Exception as err:  # a broken install: wake is off, the rest still serves
        log.warning("wake words unavailable: %s", err)
        return []


class Service:
    """The models and state every connection shares, and the `Info` that describes them.

    `stt`, `tts`, `agent`: loaded objects or zero-argument loaders (None: use the
    configured registry names). `wake_factory(names, refractory_s)` makes one detector per
    `detect` request (default: `edgevox.voice.wake.WakeWordDetector`).
    """

    def __init__(self, config: ServiceConfig | None = None, *, stt: Any = None, tts: Any = None,
                 agent: Any = None, wake_factory: Callable[..., Any] | None = None):
        self.config = cfg = config or ServiceConfig()
        self.stt: Loaded | None = None
        self.tts: Loaded | None = None
        self.agent: Loaded | None = None
        voice_ok = importlib.util.find_spec("faster_whisper") is not None
        if cfg.stt and (stt is not None or voice_ok):
            self.stt = Loaded("speech-to-text model", stt if stt is not None else self._load_stt)
        if cfg.voice and (tts is not None or importlib.util.find_spec("piper") is not None):
            self.tts = Loaded("text-to-speech voice", tts if tts is not None else self._load_tts)
        if cfg.handle and agent is not None:
            self.agent = Loaded("conversation agent", agent)
        self.wake_words = [] if cfg.wake == [] else installed_wake_words()
        if cfg.wake:
            missing = sorted(set(cfg.wake) - set(self.wake_words))
            if missing:
                raise Unavailable(f"wake word(s) not installed: {', '.join(missing)}; "
                                  f"installed: {', '.join(self.wake_words) or 'none'}")
            self.wake_words = list(cfg.wake)
        self.wake_factory = wake_factory
        if self.wake_words and wake_factory is None:
            from edgevox.voice.wake import WakeWordDetector

            self.wake_factory = WakeWordDetector
        self.conversations = Conversations(cfg.max_conversations, cfg.conversation_ttl_s)
        self._loader: threading.Thread | None = None
        self.info = self._build_info()

    # -- models -------------------------------------------------------------------------
    def _load_stt(self) -> Any:
        from edgevox.voice.stt import WhisperSTT

        stt = WhisperSTT(self.config.stt, language=self.config.language)
        stt.warmup()
        return stt

    def _load_tts(self) -> Any:
        from edgevox.voice.tts import PiperTTS

        tts = PiperTTS(self.config.voice)
        tts.warmup()
        return tts

    def start_loading(self) -> None:
        """Load every model on one background thread (idempotent; returns at once)."""
        if self._loader is not None:
            return
        items = [x for x in (self.stt, self.tts, self.agent) if x is not None]

        def run() -> None:
            for item in items:
                item.load()

        self._loader = threading.Thread(target=run, name="wyoming-load", daemon=True)
        self._loader.start()

    def wait_loaded(self, timeout: float | None = None) -> None:
        """Block until every model is loaded or failed (tests, benchmarks)."""
        self.start_loading()
        assert self._loader is not None
        self._loader.join(timeout)

    async def need(self, item: Loaded | None, what: str) -> Any:
        if item is None:
            raise Unavailable(f"{what} is not served here")
        return await item.get(self.config.load_timeout_s)

    # -- info ---------------------------------------------------------------------------
    def _build_info(self) -> Any:
        from wyoming.info import (
            AsrModel,
            AsrProgram,
            Attribution,
            HandleModel,
            HandleProgram,
            Info,
            TtsProgram,
            TtsVoice,
            WakeModel,
            WakeProgram,
        )

        cfg = self.config
        edgevox = Attribution(name="EdgeVox", url="https://pypi.org/project/edgevox/")

        def program(cls: Any, name: str, description: str, **kw: Any) -> Any:
            return cls(name=name, description=description, attribution=edgevox, installed=True,
                       version=__version__, **kw)

        def model(cls: Any, name: str, description: str, by: str, url: str, **kw: Any) -> Any:
            return cls(name=name, description=description, attribution=Attribution(name=by, url=url),
                       installed=True, version=None, **kw)

        lang = [cfg.language]
        info = Info()
        if self.stt is not None:
            info.asr.append(program(
                AsrProgram, "edgevox-stt", "EdgeVox speech-to-text (faster-whisper, on this device)",
                models=[model(AsrModel, str(cfg.stt), f"Whisper {cfg.stt}", "OpenAI Whisper",
                              "https://github.com/openai/whisper", languages=lang)],
                supports_transcript_streaming=True))
        if self.tts is not None:
            info.tts.append(program(
                TtsProgram, "edgevox-tts", "EdgeVox text-to-speech (Piper, on this device)",
                voices=[model(TtsVoice, str(cfg.voice), f"Piper {cfg.voice}", "Piper voices",
                              "https://github.com/rhasspy/piper",
                              languages=["en_US" if cfg.language == "en" else cfg.language])],
                supports_synthesize_streaming=True))
        if self.agent is not None:
            info.handle.append(program(
                HandleProgram, "edgevox-agent", "EdgeVox conversation agent (a local model calling local tools)",
                models=[model(HandleModel, "edgevox-agent", "tool-calling agent", "EdgeVox",
                              edgevox.url, languages=lang)],
                supports_handled_streaming=True, supports_home_control=True))
        if self.wake_words:
            from edgevox.voice.wake import wake_phrase

            info.wake.append(program(
                WakeProgram, "edgevox-wake", "EdgeVox offline wake word (microWakeWord)",
                models=[model(WakeModel, w, w, "microWakeWord", "https://github.com/kahrendt/microWakeWord",
                              languages=["en"], phrase=wake_phrase(w)) for w in self.wake_words]))
        return info
