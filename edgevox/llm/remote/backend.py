"""RemoteBackend: the embedded backend's interface over an OpenAI-compatible server.

Generation moves to llama.cpp's server, llama-cpp-python's server or vLLM; the agent,
tools, hooks and voice stay on the device. Whatever the server can do natively (tools,
grammars, JSON schemas) is used once a probe has shown it works; whatever it cannot is
done the embedded way (tools described in the prompt, schema in the prompt and the reply
validated). Every Completion says in `info` which path was taken.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import PurePosixPath
from typing import Any

from edgevox.llm.presets import Preset, detect_preset, get_preset
from edgevox.llm.remote import capabilities as capmod
from edgevox.llm.remote._http import HttpClient
from edgevox.llm.remote.capabilities import GRAMMAR_PATHS, Capabilities
from edgevox.llm.remote.errors import (
    CancelledRequest,
    RemoteContextOverflow,
    RemoteError,
    RemoteProtocolError,
    RemoteRequestRejected,
)
from edgevox.llm.remote.messages import (
    as_openai_tool,
    calls_text,
    has_tool_messages,
    native_messages,
    prompt_messages,
)
from edgevox.llm.remote.replies import (
    StreamReader,
    first_choice,
    first_text,
    parse_calls,
    prompt_tokens,
    text_field,
    usage_of,
)
from edgevox.llm.remote.structured import (
    FORMAT_STYLES,
    WRAP_KEY,
    is_bare_json,
    response_format,
    schema_name,
    strict_compatible,
    unwrap_reply,
    wrap_root,
)
from edgevox.llm.toolgrammar import response_format_grammar, structural_twin, tool_grammar_for
from edgevox.llm.types import Completion, TextStream

log = logging.getLogger(__name__)

_SAMPLING_KEYS = ("temperature", "top_p", "top_k", "min_p", "repeat_penalty")
_OPTION_KEYS = frozenset({"max_tokens", "seed", "stop", "grammar", "stop_event", "prompt", "tool_choice",
                          "validation", "response_format", *_SAMPLING_KEYS})
#: servers that take ``response_format={"type": "structural_tag", ...}`` themselves
STRUCTURAL_TAG_SERVERS = ("vllm", "sglang")
_FINISH = {"stop": "stop", "length": "length", "tool_calls": "stop", "function_call": "stop",
           "eos": "stop", "content_filter": "stop"}
_MODES_TOOLS = ("auto", "native", "prompt")
_MODES_GRAMMAR = ("auto", "none", *GRAMMAR_PATHS)


class RemoteBackend:
    """A model served over HTTP, with the same `complete` / `stream` as LlamaBackend.

    base_url: "http://host:port/v1" (or without /v1). model: the served model name
    (default: the first one /v1/models lists). timeout: seconds to wait for the next
    byte (for a non-streamed reply, for the whole reply); connect_timeout: for the TCP
    connect. max_retries / backoff: retries on connection refused, 429 and 5xx, after
    backoff * 2**n seconds (Retry-After honoured), never once part of a stream arrived.
    Keyword-only: tools_mode ("auto" | "native" | "prompt"), grammar_mode ("auto" |
    "grammar" | "structured_outputs" | "guided_grammar" | "none"), response_formats
    (styles tried for response_schema, in order; () goes straight to the prompt),
    calls_in_text (also write structured tool calls into the text in the preset's wire
    format, for callers that parse text), n_ctx (the window, if the server won't say).
    """

    def __init__(self, base_url: str, model: str | None = None, api_key: str | None = None,
                 preset: str | Preset | None = None, timeout: float = 60, connect_timeout: float = 5,
                 max_retries: int = 3, backoff: float = 0.5, *, tools_mode: str = "auto",
                 grammar_mode: str = "auto", response_formats: Sequence[str] = FORMAT_STYLES,
                 calls_in_text: bool = True, n_ctx: int | None = None,
                 headers: dict[str, str] | None = None):
        if tools_mode not in _MODES_TOOLS:
            raise ValueError(f"tools_mode must be one of {', '.join(_MODES_TOOLS)}, not {tools_mode!r}")
        if grammar_mode not in _MODES_GRAMMAR:
            raise ValueError(f"grammar_mode must be one of {', '.join(_MODES_GRAMMAR)}, not {grammar_mode!r}")
        bad = [s for s in response_formats if s not in FORMAT_STYLES]
        if bad:
            raise ValueError(f"unknown response_formats {bad}; known: {', '.join(FORMAT_STYLES)}")
        self.http = HttpClient(base_url, api_key=api_key, timeout=timeout, connect_timeout=connect_timeout,
                               max_retries=max_retries, backoff=backoff, headers=headers)
        self.base_url = self.http.base_url
        self._model = model
        self._preset: Preset | None = get_preset(preset) if preset else None
        self.preset_source = "explicit" if preset else None
        self.tools_mode = tools_mode
        self.grammar_mode = grammar_mode
        self.response_formats = tuple(response_formats)
        self.calls_in_text = calls_in_text
        self._n_ctx = n_ctx
        self._caps: Capabilities | None = None
        self._lock = threading.RLock()
        self._template: Any = None
        self._template_src: str | None = None

    def __repr__(self) -> str:
        return f"RemoteBackend({self.base_url!r}, model={self._model!r})"

    # -- capabilities ------------------------------------------------------------------

    def probe(self, refresh: bool = False) -> Capabilities:
        """Server kind, models, template and context size (GET /v1/models, GET /props), cached.

        Raises RemoteUnavailable / RemoteTimeout when the server cannot be reached; a
        failed probe is not cached, so the next call tries again.
        """
        with self._lock:
            if self._caps is not None and not refresh:
                return self._caps
            caps = Capabilities()
            models = self._get_optional(self.http.api_path("/models"))
            if models is not None:
                capmod.read_models(models, caps)
            props = self._get_optional(self.http.root_path("/props"))
            if props is not None:
                capmod.read_props(props, caps)
            caps.notes.append(f"server looks like {caps.server}")
            self._caps = caps
            return caps

    def capabilities(self) -> dict[str, Any]:
        """What has been learnt about the server so far (probing the basics if needed)."""
        return self.probe().as_dict()

    def _get_optional(self, path: str) -> Any:
        try:
            obj, _ = self.http.request_json("GET", path)
        except RemoteRequestRejected:
            return None  # not this kind of server
        except RemoteProtocolError as exc:
            log.warning("ignoring %s during the capability probe: %s", path, exc)
            return None
        return obj

    @property
    def preset(self) -> Preset:
        """The given preset; else detected from the server's chat template; else "hermes"."""
        if self._preset is None:
            with self._lock:
                if self._preset is None:
                    self._preset, self.preset_source = self._detect_preset()
        return self._preset

    def _detect_preset(self) -> tuple[Preset, str]:
        try:
            caps = self.probe()
        except RemoteError as exc:
            log.warning("server not reachable for preset detection (%s); using 'hermes'", exc)
            return get_preset("hermes"), "default"
        if caps.chat_template:
            return detect_preset("", caps.chat_template), "chat_template"
        by_name = _registry_preset(self._model or (caps.models[0] if caps.models else None))
        if by_name is not None:
            return by_name, "model_name"
        return get_preset("hermes"), "default"

    @property
    def model_name(self) -> str | None:
        if self._model:
            return self._model
        try:
            caps = self.probe()
        except RemoteError:
            return None
        return caps.models[0] if caps.models else None

    @property
    def n_ctx(self) -> int | None:
        """The server's context window when it says (llama.cpp, vLLM) or when given; else None."""
        if self._n_ctx is not None:
            return self._n_ctx
        caps = self._caps
        return caps.n_ctx if caps else None

    @property
    def supports_grammar(self) -> bool:
        """Whether grammars reach the sampler (probed with one tiny request on first use)."""
        return self._grammar_field() is not None

    @property
    def supports_native_tools(self) -> bool:
        """Whether `tools` go to the server natively (else they are described in the prompt)."""
        return self._native_tools()

    def _native_tools(self) -> bool:
        if self.tools_mode != "auto":
            return self.tools_mode == "native"
        caps = self.probe()
        with self._lock:
            if caps.native_tools is None:
                caps.native_tools = self._probe_tools()
            return caps.native_tools

    def _probe_tools(self) -> bool:
        base = self._body({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1, "temperature": 0})
        path = self.http.api_path("/chat/completions")
        plain, _ = self.http.request_json("POST", path, base)
        try:
            with_tools, _ = self.http.request_json(
                "POST", path, {**base, "tools": [capmod.PROBE_TOOL], "tool_choice": "auto"})
        except RemoteRequestRejected as exc:
            self._note(f"tools refused ({exc.status}); tools go into the prompt")
            return False
        a, b = prompt_tokens(plain), prompt_tokens(with_tools)
        if a is None or b is None:
            self._note("tools accepted (no token counts to check); sending them natively")
            return True
        if b > a:
            self._note(f"tools rendered by the server ({a} -> {b} prompt tokens); sending them natively")
            return True
        self._note(f"tools ignored by the server (prompt tokens {a} -> {b}); tools go into the prompt")
        return False

    def _grammar_field(self) -> str | None:
        if self.grammar_mode == "none":
            return None
        if self.grammar_mode != "auto":
            return self.grammar_mode
        caps = self.probe()
        with self._lock:
            if not caps.grammar_probed:
                caps.grammar_field = self._probe_grammar(caps)
                caps.grammar_probed = True
            return caps.grammar_field

    def _probe_grammar(self, caps: Capabilities) -> str | None:
        path = self.http.api_path("/chat/completions")
        for name in capmod.grammar_candidates(caps.server):
            body = self._body({"messages": [{"role": "user", "content": "Say hello."}],
                               "max_tokens": 8, "temperature": 0})
            capmod.put_grammar(body, name, capmod.PROBE_GRAMMAR)
            try:
                obj, _ = self.http.request_json("POST", path, body)
            except RemoteRequestRejected as exc:
                self._note(f"grammar field {name!r} refused ({exc.status})")
                continue
            text = first_text(obj)
            if text is not None and text.strip() == capmod.PROBE_WORD:
                self._note(f"grammar field {name!r} obeyed")
                return name
            self._note(f"grammar field {name!r} ignored (reply {text!r:.40})")
        log.warning("%s applies no grammar this backend knows; generating unconstrained", self.base_url)
        return None

    def _note(self, text: str) -> None:
        log.info("%s: %s", self.base_url, text)
        if self._caps is not None:
            self._caps.notes.append(text)

    # -- prompt ----------------------------------------------------------------------------

    def render(self, messages: Sequence[dict], tools: Sequence[Any] | None = None,
               add_generation_prompt: bool = True) -> str:
        """An approximation of the server's prompt, for logs and callers that want text.

        Uses the server's template when /props gave one, else the preset's, else ChatML;
        never touches the network (the server renders the real prompt itself).
        """
        from edgevox.llm.template import CHATML, ChatTemplate

        source = (self._caps.chat_template if self._caps else None) or self.preset.chat_template or CHATML
        if self._template is None or self._template_src != source:
            self._template = ChatTemplate(source, self.preset)
            self._template_src = source
        return self._template.render(messages, tools, add_generation_prompt)

    # -- generation ------------------------------------------------------------------------

    def complete(self, messages: Sequence[dict] | None = None, tools: Sequence[Any] | None = None,
                 **kwargs: Any) -> Completion:
        """Generate a whole reply (one non-streamed request). See `stream` for the arguments.

        response_schema (JSON schema dict or pydantic class) gives a validated `.parsed`
        (StructuredOutputInvalid otherwise); response_regex goes through the grammar.
        """
        if kwargs.get("response_regex") is not None:
            from edgevox.grammars.structured import complete_structured

            kwargs.pop("response_schema", None)
            return complete_structured(self, messages, tools=tools, **kwargs)
        if kwargs.get("response_schema") is not None:
            return self._complete_schema(messages, tools, **kwargs)
        kwargs.pop("response_schema", None)
        kwargs.pop("response_regex", None)
        return self._complete(messages, tools, kwargs)

    def stream(self, messages: Sequence[dict] | None = None, tools: Sequence[Any] | None = None, *,
               on_done: Callable[[Completion], None] | None = None, **kwargs: Any) -> TextStream:
        """The text pieces as the server streams them (SSE); the stream's ``completion`` (and
        `on_done`) gets the Completion.

        Keyword arguments: max_tokens, temperature, top_p, top_k, min_p, repeat_penalty,
        seed, stop, grammar (GBNF text or a Grammar), stop_event (closes the stream; the
        Completion then has finish_reason "cancelled"), tool_choice, prompt (used only
        without messages: a raw /v1/completions request). Errors: StreamInterrupted when
        the connection breaks mid-reply (on_done is not called), RemoteTimeout,
        RemoteProtocolError, RemoteRequestRejected, RemoteUnavailable.
        """
        for key in ("response_schema", "response_regex"):
            if kwargs.get(key) is not None:
                raise TypeError(f"{key} is supported by complete(), not stream()")
            kwargs.pop(key, None)
        return TextStream(lambda done: self._stream(messages, tools, done, kwargs), on_done)

    def close(self) -> None:
        """Nothing to free: every request opens and closes its own connection."""

    # -- request building -----------------------------------------------------------------

    def _body(self, body: dict) -> dict:
        model = self._model or (self._caps.models[0] if self._caps and self._caps.models else None)
        return {"model": model, **body} if model else dict(body)

    def _build(self, messages: Sequence[dict] | None, tools: Sequence[Any] | None, opts: dict[str, Any],
               *, prompt_tools: bool = False, extra: dict | None = None) -> tuple[str, dict, dict]:
        """(path, body, info) for one request."""
        unknown = set(opts) - _OPTION_KEYS
        if unknown:
            raise TypeError(f"unknown generation option(s): {', '.join(sorted(unknown))}")
        caps = self.probe()
        info: dict[str, Any] = {"backend": "remote", "server": caps.server, "url": self.base_url,
                                "preset": self.preset.name, "max_tokens": opts.get("max_tokens", 256),
                                "tools_path": None}
        prompt = opts.get("prompt")
        if messages is None and prompt is None:
            raise ValueError("pass messages (or a pre-rendered prompt)")
        if messages is not None:
            path = self.http.api_path("/chat/completions")
            tool_list = [as_openai_tool(t) for t in tools] if tools else []
            needs = bool(tool_list) or has_tool_messages(messages)
            native = needs and not prompt_tools and self._native_tools()
            if native:
                as_text = self.preset.wire_format if caps.server == "llama-cpp-python" else None
                body: dict[str, Any] = {"messages": native_messages(messages, as_text)}
                if tool_list:
                    body["tools"] = tool_list
                    body["tool_choice"] = opts.get("tool_choice") or "auto"
                info["tools_path"] = "native" if tool_list else None
            elif needs:
                body = {"messages": prompt_messages(messages, tool_list, self.preset)}
                info["tools_path"] = "prompt" if tool_list else None
            else:
                body = {"messages": native_messages(messages)}
            info["endpoint"] = "chat"
        else:
            path = self.http.api_path("/completions")
            body = {"prompt": prompt}
            info["endpoint"] = "completions"
        body["max_tokens"] = int(opts.get("max_tokens", 256))
        body.update(self._sampling(opts, caps.server))
        if opts.get("seed") is not None:
            body["seed"] = int(opts["seed"])
        stops = list(opts.get("stop") or ())
        if info["endpoint"] == "completions":
            stops = [*self.preset.stop, *stops]
        if stops:
            body["stop"] = stops
        info["grammar_path"] = "none"
        grammar, rf = opts.get("grammar"), opts.get("response_format")
        if isinstance(rf, dict) and rf.get("type") == "structural_tag" and caps.server in STRUCTURAL_TAG_SERVERS:
            body["response_format"] = rf  # the server runs the structural tag itself
            info["grammar_path"] = "response_format:structural_tag"
        elif rf is not None:  # llama-server & co: the same description as a GBNF grammar
            grammar = response_format_grammar(rf, grammar)
        if grammar is not None:
            gbnf = _grammar_text(grammar)
            field_name = self._grammar_field()
            if field_name is None:
                log.warning("%s: grammar dropped (the server applies none); output is unconstrained",
                            self.base_url)
            else:
                capmod.put_grammar(body, field_name, gbnf)
                info["grammar_path"] = GRAMMAR_PATHS[field_name]
                level = getattr(grammar, "validation", None)
                if level is not None and getattr(grammar, "wire_format", None):
                    info["validation"] = level
        if extra:
            body.update(extra)
        return path, self._body(body), info

    def _sampling(self, opts: dict[str, Any], server: str) -> dict[str, Any]:
        merged = {**self.preset.sampling, **{k: opts[k] for k in _SAMPLING_KEYS if opts.get(k) is not None}}
        out: dict[str, Any] = {"temperature": float(merged.get("temperature", 0.2))}
        if "top_p" in merged:
            out["top_p"] = float(merged["top_p"])
        if server == "unknown":  # a strict OpenAI server refuses the extra sampling fields
            return out
        if "top_k" in merged:
            out["top_k"] = int(merged["top_k"])
        if "min_p" in merged:
            out["min_p"] = float(merged["min_p"])
        if "repeat_penalty" in merged:
            out["repetition_penalty" if server == "vllm" else "repeat_penalty"] = float(merged["repeat_penalty"])
        return out

    def _with_tools_fallback(self, messages: Any, tools: Any, opts: dict, extra: dict | None,
                             send: Callable[[str, dict, dict], Any]) -> Any:
        """Send; if the server refuses natively sent tools, resend them in the prompt.

        The tools are blamed (and the choice remembered) only when the resend is accepted:
        a request refused for another reason (a response_format, a bad option) is refused
        again, and then the first refusal is what the caller sees.
        """
        path, body, info = self._build(messages, tools, opts, extra=extra)
        try:
            return send(path, body, info)
        except RemoteContextOverflow:
            raise
        except RemoteRequestRejected as exc:
            if "tools" not in body or self.tools_mode != "auto":
                raise
            first = exc
        path, body, info2 = self._build(messages, tools, opts, prompt_tools=True, extra=extra)
        info2["tools_fallback"] = True
        try:
            result = send(path, body, info2)
        except RemoteRequestRejected:
            raise first from None
        caps = self.probe()
        with self._lock:
            if info["grammar_path"] != "none":
                caps.tools_with_grammar = False
            else:
                caps.native_tools = False
        self._note(f"request with native tools refused ({first.status}: {first.server_message[:120]}); "
                   "tools now go into the prompt" + (" when a grammar is used" if info["grammar_path"] != "none"
                                                      else ""))
        return result

    # -- non-streamed ---------------------------------------------------------------------

    def _tool_level(self, tools: Any, opts: dict) -> dict:
        """Resolve ``validation`` into a grammar (the preset's tool grammar at that level);
        once this server refused a schema grammar, send its structural twin straight away."""
        opts = dict(opts)
        if opts.get("response_format") is not None:  # the format describes the whole reply
            opts.pop("validation", None)
            return opts
        opts["grammar"] = tool_grammar_for(self.preset, opts.get("grammar"), tools,
                                           opts.get("tool_choice"), opts.pop("validation", None))
        if self._caps is not None and self._caps.schema_grammar_refused:
            twin = structural_twin(opts["grammar"], tools)
            if twin is not None:
                opts["grammar"] = twin
        return opts

    def _relaxing(self, tools: Any, opts: dict, attempt: Callable[[dict], Any]) -> Any:
        """Send; if the server refuses a schema-aware tool grammar (too big, a feature its
        engine lacks), send the structural grammar for the same tools instead and remember."""
        try:
            return attempt(opts)
        except RemoteRequestRejected as exc:
            twin = structural_twin(opts.get("grammar"), tools)
            if twin is None:
                raise
            first = exc
        try:
            result = attempt({**opts, "grammar": twin})
        except RemoteRequestRejected:
            raise first from None
        caps = self.probe()
        with self._lock:
            caps.schema_grammar_refused = True
        self._note(f"schema grammar refused ({first.status}: {first.server_message[:120]}); "
                   "tool grammars are now sent at the structural level")
        return result

    def _complete(self, messages: Any, tools: Any, opts: dict, extra: dict | None = None) -> Completion:
        opts = self._tool_level(tools, opts)
        return self._relaxing(tools, opts, lambda o: self._complete_once(messages, tools, o, extra))

    def _complete_once(self, messages: Any, tools: Any, opts: dict, extra: dict | None = None) -> Completion:
        stop_event = opts.get("stop_event")
        t0 = time.perf_counter()

        def send(path: str, body: dict, info: dict) -> Completion:
            try:
                obj, retries = self.http.request_json("POST", path, body, stop_event=stop_event)
            except CancelledRequest:
                info["retries"] = 0
                return _cancelled(info, t0)
            info["retries"] = retries
            return self._from_json(obj, info, t0, self.http.url(path))

        if opts.get("prompt") is not None and messages is None:
            path, body, info = self._build(None, None, opts, extra=extra)
            return send(path, body, info)
        if self._caps is not None and self._caps.tools_with_grammar is False and opts.get("grammar") is not None:
            path, body, info = self._build(messages, tools, opts, prompt_tools=True, extra=extra)
            return send(path, body, info)
        return self._with_tools_fallback(messages, tools, opts, extra, send)

    def _from_json(self, obj: Any, info: dict, t0: float, url: str) -> Completion:
        t_end = time.perf_counter()
        choice = first_choice(obj, url)
        if info["endpoint"] == "chat":
            msg = choice.get("message")
            if not isinstance(msg, dict):
                raise RemoteProtocolError(f"{url} answered without a message in choices[0]", url=url)
            text = text_field(msg.get("content"), url)
            calls = parse_calls(msg.get("tool_calls"), url)
            reasoning = msg.get("reasoning_content")
            if isinstance(reasoning, str) and reasoning:
                info["reasoning_content"] = reasoning
        else:
            text = text_field(choice.get("text"), url)
            calls = None
        usage = usage_of(obj.get("usage"))
        timings = {"total_s": t_end - t0, "prompt_s": 0.0, "decode_s": t_end - t0}
        server_t = obj.get("timings")
        if isinstance(server_t, dict) and isinstance(server_t.get("predicted_ms"), (int, float)):
            timings["prompt_s"] = float(server_t.get("prompt_ms") or 0.0) / 1000
            timings["decode_s"] = float(server_t["predicted_ms"]) / 1000
        return self._finish(text, calls, choice.get("finish_reason"), usage, timings, info)

    def _finish(self, text: str, calls: list[dict] | None, raw_finish: Any, usage: dict, timings: dict,
                info: dict) -> Completion:
        info["server_finish_reason"] = raw_finish
        finish = _FINISH.get(raw_finish, "stop") if isinstance(raw_finish, str) else "stop"
        if calls and self.calls_in_text:
            rendered = calls_text(calls, self.preset.wire_format)
            if rendered:
                text = f"{text}\n{rendered}" if text.strip() else rendered
                info["tool_calls_in_text"] = True
        info["model"] = self.model_name
        return Completion(text=text, finish_reason=finish, usage=usage, timings=timings,
                          prompt=None, tool_calls=calls or None, info=info)

    # -- streamed -------------------------------------------------------------------------

    def _stream(self, messages: Any, tools: Any, on_done: Callable[[Completion], None] | None,
                opts: dict) -> Iterator[str]:
        stop_event: threading.Event | None = opts.get("stop_event")
        t0 = time.perf_counter()
        stream_extra = {"stream": True, "stream_options": {"include_usage": True}}
        box: list[Any] = []

        def send(path: str, body: dict, info: dict) -> None:
            body.update(stream_extra)
            try:
                box[:] = [self.http.open_stream(path, body, stop_event=stop_event), info, path]
            except CancelledRequest:
                box[:] = [None, info, path]

        def attempt(o: dict) -> None:
            if o.get("prompt") is not None and messages is None:
                send(*self._build(None, None, o))
            elif self._caps is not None and self._caps.tools_with_grammar is False and o.get("grammar") is not None:
                send(*self._build(messages, tools, o, prompt_tools=True))
            else:
                self._with_tools_fallback(messages, tools, o, None, send)

        opts = self._tool_level(tools, opts)
        self._relaxing(tools, opts, attempt)
        sresp, info, path = box
        if sresp is None:
            info["retries"] = 0
            if on_done:
                on_done(_cancelled(info, t0))
            return
        info["retries"] = sresp.attempts
        yield from self._consume(sresp, info, t0, stop_event, on_done)

    def _consume(self, sresp: Any, info: dict, t0: float, stop_event: threading.Event | None,
                 on_done: Callable[[Completion], None] | None) -> Iterator[str]:
        reader = StreamReader(sresp, chat=info["endpoint"] == "chat", stop_event=stop_event,
                              timeout=self.http.timeout)
        yield from reader.pieces()
        t_end = time.perf_counter()
        first = reader.t_first or t_end
        usage = reader.usage
        if not usage:
            usage = {"completion_tokens": len(reader.text)}
            info["usage_estimated"] = True
        timings = {"prompt_s": first - t0, "decode_s": max(t_end - first, 0.0), "total_s": t_end - t0}
        full = "".join(reader.text)
        if reader.cancelled:
            completion = self._finish(full, None, None, usage, timings, info)  # half a call is no call
            completion.finish_reason = "cancelled"
        else:
            completion = self._finish(full, reader.calls(), reader.raw_finish, usage, timings, info)
            if len(completion.text) > len(full):
                yield completion.text[len(full):]  # the calls in wire format, as the last piece
        if on_done:
            on_done(completion)

    # -- structured output ----------------------------------------------------------------

    def _complete_schema(self, messages: Any, tools: Any, *, response_schema: Any, retries: int = 0,
                         use_grammar: bool | None = None, **kwargs: Any) -> Completion:
        """response_format first (each style the server has not refused), then the prompt."""
        from edgevox.grammars.structured import (
            StructuredOutputInvalid,
            complete_structured,
            note_branch,
            schema_of,
            validate_document,
        )

        kwargs.pop("grammar", None)
        kwargs.pop("response_regex", None)
        schema, model = schema_of(response_schema)
        # OpenAI's response_format takes only an object at the root: a union or scalar
        # root goes out wrapped as {"value": ...} and comes back unwrapped
        sent, wrapped = wrap_root(schema)
        strict = strict_compatible(sent)
        name = schema_name(response_schema, schema)
        trail: list[dict[str, Any]] = []
        caps = self.probe()
        for style in self.response_formats:
            if style in caps.rejected_formats or style in caps.ignored_formats:
                continue
            fmt = response_format(style, sent, name, strict)
            try:
                c = self._complete(messages, tools, dict(kwargs), extra={"response_format": fmt})
            except RemoteContextOverflow:
                raise
            except RemoteRequestRejected as exc:
                with self._lock:
                    caps.rejected_formats.add(style)
                self._note(f"response_format {style!r} refused ({exc.status})")
                trail.append({"path": f"response_format:{style}", "outcome": "rejected",
                              "detail": exc.server_message[:200]})
                continue
            if c.finish_reason == "cancelled":
                c.info.update(structured_path=f"response_format:{style}", structured_log=trail)
                return c
            c.info.update(structured_path=f"response_format:{style}", structured_strict=strict)
            try:
                if wrapped:
                    c.info["structured_wrapped"] = {"key": WRAP_KEY, "raw_text": c.text, "why": (
                        "response_format takes only an object root: the schema was sent as "
                        f'{{"{WRAP_KEY}": <schema>}} and the reply unwrapped')}
                    c.text = unwrap_reply(c.text)
                c.parsed = validate_document(c.text, schema, model)
                note_branch(c, schema)
            except StructuredOutputInvalid as exc:
                if c.finish_reason == "length" or is_bare_json(c.text):
                    # The server applied the schema and the reply still fails: no second guess.
                    trail.append({"path": f"response_format:{style}", "outcome": "invalid", "detail": str(exc)})
                    exc.completion = c  # type: ignore[attr-defined]
                    raise
                with self._lock:
                    caps.ignored_formats.add(style)
                self._note(f"response_format {style!r} accepted but ignored (reply is not bare JSON)")
                trail.append({"path": f"response_format:{style}", "outcome": "ignored",
                              "detail": c.text[:120]})
                break
            trail.append({"path": f"response_format:{style}", "outcome": "ok"})
            c.info["structured_log"] = trail
            return c
        c = complete_structured(self, messages, tools=tools, response_schema=response_schema,
                                retries=retries, use_grammar=False, **kwargs)
        trail.append({"path": "prompt", "outcome": "ok"})
        c.info.update(structured_path="prompt", structured_log=trail)
        return c


# -- helpers -------------------------------------------------------------------------------


def _registry_preset(model_id: str | None) -> Preset | None:
    """The preset of a registered model whose name or file name the server reports."""
    if not model_id:
        return None
    try:
        from edgevox.models import MODELS
    except ImportError:  # pragma: no cover - part of the package
        return None
    base = PurePosixPath(model_id.replace("\\", "/")).name.lower()
    for spec in MODELS.values():
        names = {spec.name.lower(), *(a.lower() for a in spec.aliases),
                 *(f.name.lower() for f in spec.files)}
        if spec.preset and (base in names or model_id.lower() in names):
            try:
                return get_preset(spec.preset)
            except ValueError:
                return None
    return None


def _grammar_text(grammar: Any) -> str:
    """GBNF text, checked with EdgeVox's parser (llama-cpp-python's server dies on a bad one)."""
    from edgevox.grammars import GrammarError, validate_gbnf

    if isinstance(grammar, str):
        validate_gbnf(grammar)
        return grammar
    gbnf = getattr(grammar, "gbnf", None)
    if not isinstance(gbnf, str):
        raise TypeError("grammar must be GBNF text or an edgevox Grammar")
    root = getattr(grammar, "root", "root")
    if hasattr(grammar, "parsed"):
        grammar.parsed()
    else:
        validate_gbnf(gbnf, root)
    if root != "root":
        parsed = validate_gbnf(gbnf, root)
        if "root" in parsed.symbols:
            raise GrammarError(f"grammar starts at {root!r} but also defines 'root'; servers always start at 'root'")
        gbnf = f"{gbnf.rstrip()}\nroot ::= {root}\n"
    return gbnf


def _cancelled(info: dict, t0: float) -> Completion:
    t = time.perf_counter() - t0
    return Completion(text="", finish_reason="cancelled", usage={"completion_tokens": 0},
                      timings={"prompt_s": t, "decode_s": 0.0, "total_s": t}, info=info)
