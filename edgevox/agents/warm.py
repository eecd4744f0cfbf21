"""The prompt-prefix warm-up: evaluate (or restore from the prompt cache) the static
prefix every turn starts with, and prepare the turn's grammars, in a background thread
while the process starts, so the first turn pays only for the user's words."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from edgevox.agents.agent import LLMAgent

log = logging.getLogger(__name__)


def shared_prefix_tokens(backend: Any, head: list[dict], tools: list[dict] | None) -> list[int]:
    """The tokens every prompt of ``head`` then one user turn starts with, rendered by
    ``backend``: up to where user turns of different shapes first differ."""
    probes = [backend.tokenize(backend.render([*head, {"role": "user", "content": text}], tools))
              for text in ("A", "z?", "\n\n1", " ")]
    n = min(len(p) for p in probes)
    for i in range(n):
        if any(p[i] != probes[0][i] for p in probes):
            n = i
            break
    return probes[0][:n]


class WarmJob:
    """A prompt-prefix warm-up running in its own thread (``LLMAgent.warm``)."""

    def __init__(self, agent: LLMAgent, persist: bool):
        self.info: dict | None = None
        self.error: str | None = None
        #: whether prefixes of this agent are written to the prompt cache
        self.persist = persist
        #: the prefix's tokens, once computed
        self.tokens: list[int] | None = None
        #: names of the hooks whose own models were loaded (``prepare``) during the warm-up
        self.hooks_prepared: list[str] = []
        self._done = threading.Event()
        # hooks with models of their own (the relevance gate) load them in parallel with the
        # prefix, and the warm-up is done only when both are: loaded during the first turn
        # instead, the gate's model took the CPU from it (demo: LLM first token 1.6 s, not 0.8)
        self._hooks = threading.Thread(target=self._prepare_hooks, args=(agent,),
                                       name=f"edgevox-warm-hooks-{agent.name}", daemon=True)
        self._thread = threading.Thread(target=self._run, args=(agent, persist),
                                        name=f"edgevox-warm-{agent.name}", daemon=True)
        self._hooks.start()
        self._thread.start()

    def _run(self, agent: LLMAgent, persist: bool) -> None:
        # the backend's lock around tokenizing too: a model closed meanwhile is refused
        # (an error), never read after it was freed
        lock = getattr(agent.backend, "lock", None) or contextlib.nullcontext()
        try:
            with lock:
                self.tokens = agent.prefix_tokens()
                self.info = info = agent.backend.warm_prefix(self.tokens, persist=persist)
                t0 = time.perf_counter()
                info["grammars"] = len(agent.prepare_decoding())
                if hasattr(agent.backend, "rehearse"):
                    agent.backend.rehearse()
                info["prepare_s"] = time.perf_counter() - t0
        except Exception as exc:  # a failed warm-up only costs time: the turn evaluates it
            self.error = f"{type(exc).__name__}: {exc}"
            log.warning("agent %r: warming the prompt prefix failed (%s)", agent.name, self.error)
        finally:
            self._hooks.join()
            self._done.set()

    def _prepare_hooks(self, agent: LLMAgent) -> None:
        for h in agent.hooks.hooks:
            prepare = getattr(h, "prepare", None)
            if callable(prepare):
                try:
                    prepare(agent)
                    self.hooks_prepared.append(h.name)
                except Exception as exc:  # noqa: BLE001 -- the hook loads it when it needs it
                    log.warning("agent %r: preparing hook %r failed (%s)", agent.name, h.name, exc)

    def wait(self, timeout: float | None = None) -> dict | None:
        """Block until the warm-up ended; its info (None if it failed or timed out)."""
        self._done.wait(timeout)
        return self.info

    @property
    def done(self) -> bool:
        return self._done.is_set()
