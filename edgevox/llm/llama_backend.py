"""The embedded backend: llama.cpp through llama-cpp-python, one lock per loaded model.

Generation runs our own token loop over `Llama.generate` so that EdgeVox controls
what matters for voice and tools: a stop event checked before every token, stop
strings that never leak half-way into a stream, honest token counts, and the KV cache
reused for the shared prompt prefix between turns (llama-cpp-python's prefix match).
"""

from __future__ import annotations

import codecs
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from edgevox.llm.gguf import GGUFInfo, ModelFileError, read_gguf
from edgevox.llm.presets import Preset, detect_preset, get_preset
from edgevox.llm.template import CHATML, ChatTemplate, Message
from edgevox.llm.threads import default_threads, pick_decode_threads, set_threads
from edgevox.llm.toolgrammar import response_format_grammar, tool_grammar_for
from edgevox.llm.types import BackendError, Completion, ContextOverflow, TextStream

log = logging.getLogger(__name__)

_SAMPLING_KEYS = ("temperature", "top_p", "top_k", "min_p", "repeat_penalty")


class LlamaBackend:
    """A loaded GGUF model with its preset and chat template."""

    supports_grammar = True
    #: ``stream(decisions=N)`` reports the margins of the first N sampled tokens
    reports_decisions = True
    supports_native_tools = False
    #: constrained decoding (edgevox.llm.constrained): which engine computes grammar masks
    #: ("llguidance" | "llama") and whether forced tokens are fast-forwarded
    mask_engine = "llguidance"
    fast_forward = True

    def __init__(self, path: str | Path, preset: str | Preset | None = None, *, n_ctx: int = 4096,
                 n_threads: int | None = None, n_batch: int = 256, seed: int = 0,
                 verbose: bool = False, prompt_cache: Any = True, **llama_kwargs: Any):
        self.path = Path(path)
        self.info: GGUFInfo = read_gguf(self.path)
        self.preset: Preset = get_preset(preset) if preset else detect_preset(
            self.info.architecture, self.info.chat_template)
        # OpenMP threads that spin while waiting make every batched decode 10-30x slower
        # when the CPU is shared (STT, TTS and other processes): yield instead.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise BackendError(
                f"local GGUF models need llama-cpp-python, which is not importable ({exc}): "
                'pip install "edgevox[llama]" (or run scripts/setup.sh); a server URL needs none'
            ) from None
        try:
            most = n_threads or default_threads()
            self.llm = Llama(model_path=str(self.path), n_ctx=n_ctx, n_batch=n_batch,
                             n_threads=most, n_threads_batch=most, seed=seed,
                             verbose=verbose, **llama_kwargs)
        except (ValueError, RuntimeError) as exc:
            raise ModelFileError(f"llama.cpp could not load {self.path}: the file is corrupt or "
                                 f"of an unsupported architecture ({exc})") from None
        if n_threads is None:  # see edgevox.llm.threads: 1 thread may decode a token faster
            set_threads(self.llm, pick_decode_threads(self.llm, most), most)
        self.n_ctx = self.llm.n_ctx()
        self.lock = threading.RLock()
        self.template = ChatTemplate(
            self.info.chat_template or self.preset.chat_template or CHATML, self.preset,
            bos_token=self._token_text(self.llm.token_bos()),
            eos_token=self._token_text(self.llm.token_eos()),
        )
        self._add_bos = bool(self.info.metadata.get("tokenizer.ggml.add_bos_token", False))
        self.model_name = self.info.name
        #: where prompt prefixes are persisted (see ``warm_prefix``): True = the default
        #: directory, a path or a PromptCache, False/None = never on disk
        self.prompt_cache: Any = _prompt_cache(prompt_cache)
        self._state_fields: dict[str, Any] | None = None
        self._closed = False

    def with_preset(self, preset: str | Preset) -> LlamaBackend:
        """This loaded model under another preset (e.g. ``"qwen25+envelope"``): a second
        backend object sharing the weights, the KV cache and the lock, not a second load."""
        import copy

        other = copy.copy(self)
        other.preset = get_preset(preset)
        other.template = ChatTemplate(self.template.source if self.info.chat_template else
                                      (other.preset.chat_template or self.template.source),
                                      other.preset, bos_token=self.template.bos_token,
                                      eos_token=self.template.eos_token)
        return other

    @contextlib.contextmanager
    def decoding_mode(self, mask_engine: str | None = None,
                      fast_forward: bool | None = None) -> Iterator[None]:
        """Use this mask engine and fast-forward setting inside the block, then the previous
        ones again (tests and benchmarks compare them on one loaded model)."""
        old = (self.mask_engine, self.fast_forward)
        if mask_engine is not None:
            self.mask_engine = mask_engine
        if fast_forward is not None:
            self.fast_forward = fast_forward
        try:
            yield
        finally:
            self.mask_engine, self.fast_forward = old

    # -- prompt -----------------------------------------------------------------

    def _token_text(self, tok: int) -> str:
        if tok < 0:
            return ""
        return self.llm.detokenize([tok], special=True).decode("utf-8", errors="replace")

    def render(self, messages: Sequence[Message], tools: Sequence[Any] | None = None,
               add_generation_prompt: bool = True) -> str:
        """The prompt text in the model's own template (tools in its own layout)."""
        return self.template.render(messages, tools, add_generation_prompt)

    def tokenize(self, text: str) -> list[int]:
        """Tokens of a rendered prompt: special tokens parsed, one BOS at most."""
        if self._closed:  # llama.cpp would read freed memory
            raise RuntimeError("the model is closed")
        toks = self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        bos = self.llm.token_bos()
        if self._add_bos and bos >= 0 and (not toks or toks[0] != bos):
            toks.insert(0, bos)
        return toks

    # -- warm prompt prefix --------------------------------------------------------

    def state_fields(self) -> dict[str, Any]:
        """Everything besides the tokens that shapes the KV state of a prompt (the prompt
        cache's key): model file, preset, context and batch sizes, KV types, llama.cpp."""
        if self._state_fields is None:
            import llama_cpp

            from edgevox.llm.prompt_cache import model_sha256

            cp = self.llm.context_params
            self._state_fields = {
                "model_sha256": model_sha256(self.path, getattr(self.prompt_cache, "dir", None)),
                "preset": self.preset.name, "n_ctx": self.n_ctx, "n_batch": int(cp.n_batch),
                "n_ubatch": int(cp.n_ubatch), "type_k": int(cp.type_k), "type_v": int(cp.type_v),
                "flash_attn": str(getattr(cp, "flash_attn_type", getattr(cp, "flash_attn", None))),
                "llama_cpp": llama_cpp.__version__,
            }
        return dict(self._state_fields)

    def warm_prefix(self, tokens: Sequence[int], *, persist: bool = True) -> dict[str, Any]:
        """Make the KV cache hold exactly ``tokens`` (a prompt prefix every turn shares), so
        that generation only evaluates what follows them.

        Returns ``{"source": "memory"|"disk"|"evaluated", "tokens": n, "seconds": s}``:
        already there, restored from the persisted prompt cache, or evaluated now (and
        saved there when ``persist``). A miss evaluates from an empty context, so the state
        and every reply after it are the same whatever this process did before.
        """
        toks = [int(t) for t in tokens]
        t0 = time.perf_counter()
        if not toks:
            return {"source": "memory", "tokens": 0, "seconds": 0.0}
        if len(toks) >= self.n_ctx - 1:
            raise ContextOverflow(f"the prompt prefix has {len(toks)} tokens but the context "
                                  f"window holds {self.n_ctx}")
        cache = self.prompt_cache if persist else None
        with self.lock:
            llm = self.llm
            if self._closed:  # a warm-up that outlived the model: nothing to warm
                raise RuntimeError("the model is closed")
            if self.holds_prefix(toks):
                if llm.n_tokens > len(toks):  # forget what followed: the next turn differs there
                    llm._ctx.kv_cache_seq_rm(-1, len(toks), -1)
                    llm.n_tokens = len(toks)
                source = "memory"
            else:
                source = "evaluated"
                fields = key = None
                if cache is not None:
                    from edgevox.llm.prompt_cache import state_key

                    fields = self.state_fields()
                    key = state_key(fields, toks)
                    if cache.load(llm, key, fields, toks):
                        source = "disk"
                if source == "evaluated":
                    llm.reset()
                    llm._ctx.kv_cache_clear()
                    llm.eval(toks)
                    if cache is not None:
                        cache.save(llm, key, fields, toks)
        info = {"source": source, "tokens": len(toks), "seconds": time.perf_counter() - t0}
        log.info("prompt prefix: %(tokens)d tokens, %(source)s in %(seconds).2fs", info)
        return info

    @contextlib.contextmanager
    def kept_state(self) -> Iterator[None]:
        """Run a side generation inside the block and give the KV cache back as it was.

        Why: a second prompt decoded in the middle of a turn (the own-layout calls,
        ``edgevox.agents.own_layout``) would leave its own tokens in the cache, and the
        turn's next hop would evaluate its whole prompt again (measured ~20 s for a
        2,000-token prefix on 2 busy cores). Copying the state out and back costs a copy of
        the used cache (~12 KB a token for the 0.5B model)."""
        from edgevox.llm.prompt_cache import read_seq_state, write_seq_state

        with self.lock:
            llm = self.llm
            tokens = list(llm.input_ids[: llm.n_tokens])
            state = read_seq_state(llm) if tokens else None
            try:
                yield
            finally:
                if state is not None and not self._closed and not write_seq_state(llm, state, tokens):
                    log.warning("could not restore the KV cache after a side generation")

    def holds_prefix(self, tokens: Sequence[int]) -> bool:
        """Does the KV cache start with exactly ``tokens`` (a warmed prompt prefix)?"""
        with self.lock:
            llm = self.llm
            n = len(tokens)
            return not self._closed and llm.n_tokens >= n and list(llm.input_ids[:n]) == list(tokens)

    def prefill(self, prompt: str) -> int:
        """Evaluate a rendered prompt's tokens, all but the last, into the KV cache ahead of
        its generation (reusing the cached prefix); returns how many were evaluated.

        Why: a voice turn's prompt is known from the speculative transcript while the
        endpointer still waits for silence; evaluating it then leaves the turn one token to
        evaluate instead of the whole user message. A different final prompt only reuses
        less (the cache keeps the common prefix), never changes a reply.
        """
        tokens = self.tokenize(prompt)
        if len(tokens) >= self.n_ctx - 1:
            return 0
        with self.lock:
            return 0 if self._closed else self._prefill(tokens)

    def rehearse(self) -> None:
        """Decode one token after what the KV cache holds, then take it back. Why: the
        first single-token decode at a long context in a fresh process (the prefix
        restored from disk, never evaluated) pays one-off costs -- compute buffers, pages of
        the KV cache and weights; measured 0.1-0.3 s of a first turn on 2 cores under load.
        The warm-up pays them instead; the cache holds exactly what it held before."""
        with self.lock:
            llm = self.llm
            n = llm.n_tokens
            if self._closed or n == 0 or n >= self.n_ctx - 1:
                return
            llm.eval([int(llm.input_ids[n - 1])])
            llm._ctx.kv_cache_seq_rm(-1, n, -1)
            llm.n_tokens = n

    def prepare_grammar(self, grammar: Any) -> None:
        """Validate and compile ``grammar`` now with this model's mask engine (built on
        first use: llguidance's tokenizer over the vocabulary takes about a second), so the
        first generation under it pays for neither (``LLMAgent.prepare_decoding``)."""
        from edgevox.llm.constrained import engine_for

        with self.lock:
            if self._closed:
                raise RuntimeError("the model is closed")
            engine_for(self, self.mask_engine).compile(_compile_grammar(grammar))

    # -- generation -------------------------------------------------------------

    def complete(self, messages: Sequence[Message] | None = None, tools: Sequence[Any] | None = None,
                 **kwargs: Any) -> Completion:
        """Generate a whole reply. See `stream` for the arguments."""
        if kwargs.get("response_schema") is not None or kwargs.get("response_regex") is not None:
            from edgevox.grammars.structured import complete_structured

            return complete_structured(self, messages, tools=tools, **kwargs)
        result: list[Completion] = []
        for _ in self._generate(messages, tools, on_done=result.append, **kwargs):
            pass
        return result[0]

    def stream(self, messages: Sequence[Message] | None = None, tools: Sequence[Any] | None = None,
               *, on_done: Callable[[Completion], None] | None = None, **kwargs: Any) -> TextStream:
        """The text pieces as they are generated; the stream's ``completion`` (and `on_done`)
        receives the Completion.

        Keyword arguments: max_tokens, temperature, top_p, top_k, min_p, repeat_penalty,
        seed, stop (extra stop strings), grammar (GBNF text or a Grammar object),
        stop_event (threading.Event: generation ends before the next token), prompt
        (a pre-rendered prompt instead of messages), tool_choice and validation
        ("none" | "structural" | "schema_aware": with tools and no grammar, the preset's
        tool grammar at that level; see :func:`tool_grammar_for`), response_format
        (``{"type": "structural_tag", "format": {...}}``, as vLLM and SGLang take it:
        compiled to a grammar). GBNF text given as ``grammar`` to a preset that thinks may
        be preceded by one think block. decisions: report the log-probability margins of
        the first N sampled tokens in ``Completion.info["decisions"]``.
        """
        return TextStream(lambda done: self._generate(messages, tools, on_done=done, **kwargs), on_done)

    def _generate(self, messages: Sequence[Message] | None, tools: Sequence[Any] | None, *,
                  max_tokens: int = 256, seed: int | None = None, stop: Sequence[str] | None = None,
                  grammar: Any = None, stop_event: threading.Event | None = None,
                  prompt: str | None = None, on_done: Callable[[Completion], None] | None = None,
                  tool_choice: Any = None, validation: str | None = None, response_format: Any = None,
                  decisions: int = 0, **sampling: Any) -> Iterator[str]:
        t0 = time.perf_counter()
        if response_format is not None:
            grammar = response_format_grammar(response_format, grammar)
        grammar = tool_grammar_for(self.preset, grammar, tools, tool_choice, validation)
        text_prompt = prompt if prompt is not None else self.render(messages or [], tools)
        tokens = self.tokenize(text_prompt)
        if len(tokens) >= self.n_ctx - 1:
            raise ContextOverflow(f"the prompt has {len(tokens)} tokens but the context window "
                                  f"holds {self.n_ctx}; shorten the conversation or raise n_ctx")
        budget = min(max_tokens, self.n_ctx - len(tokens) - 1)
        params = self._sampling(sampling)
        llama_grammar = _compile_grammar(grammar)
        stops = [s for s in (*self.preset.stop, *(stop or ())) if s]
        with self.lock:
            if seed is not None:
                self.llm.set_seed(seed)
            yield from self._loop(tokens, budget, params, llama_grammar, stops, stop_event,
                                  text_prompt, t0, on_done, max_tokens, decisions)

    def _loop(self, tokens: list[int], budget: int, params: dict, llama_grammar: Any,
              stops: list[str], stop_event: threading.Event | None, text_prompt: str, t0: float,
              on_done: Callable[[Completion], None] | None, max_tokens: int,
              decisions: int = 0) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        text, emitted, generated = "", 0, []
        starts: list[int] = []  # text offset where each generated token begins
        finish = "length"
        t_first: float | None = None
        hold = max((len(s) for s in stops), default=1) - 1
        if stop_event is not None and stop_event.is_set():
            finish, budget = "cancelled", 0
        # -- constrained decoding (edgevox.llm.constrained) -------------------------------
        # With a grammar, tokens come from our rejection-first loop over the same Llama
        # (same logits, same KV bookkeeping); it compiles the grammar before anything is
        # evaluated, with this backend's `mask_engine` and `fast_forward` (`decoding_mode`).
        # Asked for ``decisions`` (the log-probability margins of the first sampled tokens,
        # ``Completion.info["decisions"]``), free decoding goes through the same loop too.
        gen: Any = iter(())
        if budget > 0 and (llama_grammar is not None or decisions):
            from edgevox.llm.constrained import constrained_generate

            gen = constrained_generate(self, tokens, llama_grammar, params,
                                       prefer=self.mask_engine, fast_forward=self.fast_forward,
                                       decisions=decisions)
        elif budget > 0:  # the constrained loop prefills by itself
            self._prefill(tokens)
            gen = self.llm.generate(tokens, **params)
        # -- end constrained decoding -------------------------------------------------------
        try:
            for tok in gen:
                if t_first is None:
                    t_first = time.perf_counter()
                if self._is_eog(tok):
                    finish = "stop"
                    break
                generated.append(tok)
                starts.append(len(text))
                piece = self.llm.detokenize([tok], prev_tokens=tokens + generated[:-1], special=True)
                text += decoder.decode(piece)
                cut = _find_stop(text, stops, emitted)
                if cut is not None:
                    text, finish = text[:cut], "stop"
                    break
                safe = len(text) - _held_back(text, stops, hold)
                if safe > emitted:
                    yield text[emitted:safe]
                    emitted = safe
                if len(generated) >= budget:
                    finish = "length"
                    break
                if stop_event is not None and stop_event.is_set():
                    finish = "cancelled"
                    break
        finally:
            if hasattr(gen, "close"):
                gen.close()
        finish = getattr(gen, "finish_reason", None) or finish  # constrained: grammar_dead_end
        text += decoder.decode(b"", final=True) if finish != "stop" else ""
        if len(text) > emitted:
            yield text[emitted:]
        t_end = time.perf_counter()
        first = t_first or t_end
        completion = Completion(
            text=text, finish_reason=finish, prompt=text_prompt,
            usage={"prompt_tokens": len(tokens), "completion_tokens": len(generated),
                   "total_tokens": len(tokens) + len(generated)},
            timings={"prompt_s": first - t0, "decode_s": max(t_end - first, 0.0),
                     "total_s": t_end - t0},
            info={"preset": self.preset.name, "max_tokens": max_tokens,
                  **getattr(gen, "info", {})},  # constrained: engine/fast-forward counters
        )
        if "decisions" in completion.info:
            completion.info["decisions"] = self._decisions(completion.info["decisions"], starts)
        if on_done:
            on_done(completion)

    def _decisions(self, raw: list[tuple], starts: list[int]) -> list[dict[str, Any]]:
        """The loop's decisions with text offsets and token text instead of ids."""
        out = []
        for pos, tok, lp, alt, alt_lp in raw:
            if pos >= len(starts):
                break  # the end-of-generation token: not part of the text
            out.append({"at": starts[pos], "token": self._piece(tok), "logprob": round(lp, 4),
                        "alt": self._piece(alt), "alt_logprob": round(alt_lp, 4)})
        return out

    def _piece(self, tok: int) -> str:
        return self.llm.detokenize([tok], special=True).decode("utf-8", errors="replace")

    def _prefill(self, tokens: list[int]) -> int:
        """Evaluate all but the last prompt token, reusing the cached prefix; returns how
        many were evaluated.

        Why: llama.cpp's logits differ in the last bits between a token evaluated inside
        a batch and alone. `generate` evaluates the last token alone on a cache hit, so
        doing the same on a miss makes a seeded generation repeat exactly either way.
        """
        llm = self.llm
        cached = llm._input_ids
        n = 0
        for a, b in zip(cached, tokens[:-1], strict=False):
            if a != b:
                break
            n += 1
        if n >= len(tokens) - 1:
            return 0
        llm.n_tokens = n
        llm.eval(tokens[n:-1])
        return len(tokens) - 1 - n

    def _is_eog(self, tok: int) -> bool:
        model = self.llm._model
        fn = getattr(model, "token_is_eog", None)
        if fn is not None:
            return bool(fn(tok))
        return tok == self.llm.token_eos()

    def _sampling(self, overrides: dict[str, Any]) -> dict[str, Any]:
        unknown = set(overrides) - set(_SAMPLING_KEYS)
        if unknown:
            raise TypeError(f"unknown generation option(s): {', '.join(sorted(unknown))}")
        merged = {**self.preset.sampling, **{k: v for k, v in overrides.items() if v is not None}}
        params: dict[str, Any] = {"temp": float(merged.get("temperature", 0.2))}
        for key in ("top_p", "min_p", "repeat_penalty"):
            if key in merged:
                params[key] = float(merged[key])
        if "top_k" in merged:
            params["top_k"] = int(merged["top_k"])
        return params

    def close(self) -> None:
        """Free the model's memory now rather than at garbage collection."""
        with self.lock:
            self._closed = True
            llm = getattr(self, "llm", None)
            if llm is not None and hasattr(llm, "close"):
                llm.close()


def _prompt_cache(spec: Any) -> Any:
    if spec is None or spec is False:
        return None
    from edgevox.llm.prompt_cache import PromptCache

    if isinstance(spec, PromptCache):
        return spec
    return PromptCache(None if spec is True else spec)


def _compile_grammar(grammar: Any) -> Any:
    """The grammar, validated first: an invalid one would crash the process in llama.cpp.

    Returned as given (GBNF text, an edgevox Grammar, a TriggeredGrammar): the
    constrained loop's mask engine compiles it once per model and caches it.
    """
    if grammar is None:
        return None
    from edgevox.llm.constrained import prepare_grammar

    try:
        return prepare_grammar(grammar)
    except TypeError:
        raise TypeError("grammar must be GBNF text or an edgevox Grammar") from None


def _find_stop(text: str, stops: list[str], emitted: int) -> int | None:
    """Index where the earliest stop string starts (only in not-yet-emitted text)."""
    best = None
    for s in stops:
        i = text.find(s, max(0, emitted - len(s) + 1))
        if i != -1 and (best is None or i < best):
            best = i
    return best


def _held_back(text: str, stops: list[str], hold: int) -> int:
    """How many trailing characters could still grow into a stop string."""
    for n in range(min(hold, len(text)), 0, -1):
        tail = text[-n:]
        if any(s.startswith(tail) for s in stops):
            return n
    return 0
