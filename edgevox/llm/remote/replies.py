"""Reading OpenAI-shaped replies: whole JSON bodies and streamed (SSE) chunks.

Every shape check raises RemoteProtocolError with what was wrong, so a malformed
answer is an error the caller can name, never a KeyError from deep inside.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

from edgevox.llm.remote.errors import RemoteProtocolError, RemoteTimeout, StreamInterrupted
from edgevox.llm.remote.messages import normalize_call


def prompt_tokens(obj: Any) -> int | None:
    usage = obj.get("usage") if isinstance(obj, dict) else None
    n = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    return n if isinstance(n, int) else None


def first_text(obj: Any) -> str | None:
    try:
        choice = obj["choices"][0]
        return choice["message"].get("content") if "message" in choice else choice.get("text")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None


def first_choice(obj: Any, url: str) -> dict:
    if not isinstance(obj, dict):
        raise RemoteProtocolError(f"{url} answered with JSON that is not an object", url=url)
    if "error" in obj and "choices" not in obj:
        err = obj["error"]
        msg = err.get("message") if isinstance(err, dict) else err
        raise RemoteProtocolError(f"{url} answered 200 with an error: {str(msg)[:200]}", url=url)
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise RemoteProtocolError(f"{url} answered without a choices list", url=url)
    return choices[0]


def text_field(value: Any, url: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise RemoteProtocolError(f"{url} sent content of type {type(value).__name__}, not text", url=url)


def usage_of(raw: Any) -> dict[str, int]:
    if not isinstance(raw, dict):
        return {}
    return {k: int(raw[k]) for k in ("prompt_tokens", "completion_tokens", "total_tokens")
            if isinstance(raw.get(k), int)}


def parse_calls(raw: Any, url: str) -> list[dict] | None:
    if not raw:
        return None
    if not isinstance(raw, list):
        raise RemoteProtocolError(f"{url} sent tool_calls that are not a list", url=url)
    try:
        return [normalize_call(c) for c in raw]
    except (ValueError, AttributeError, TypeError):
        raise RemoteProtocolError(f"{url} sent a malformed tool call", url=url) from None


def accumulate_calls(acc: dict[int, dict], deltas: Any, url: str) -> None:
    """Merge streamed tool-call fragments: id and name once, arguments appended.

    (llama-cpp-python repeats id and name in every fragment; OpenAI and vLLM send them once.)
    """
    if not deltas:
        return
    if not isinstance(deltas, list):
        raise RemoteProtocolError(f"{url} streamed tool_calls that are not a list", url=url)
    for d in deltas:
        if not isinstance(d, dict):
            raise RemoteProtocolError(f"{url} streamed a malformed tool call fragment", url=url)
        idx = d.get("index", len(acc))
        slot = acc.setdefault(idx if isinstance(idx, int) else len(acc), {"id": None, "name": "", "arguments": ""})
        fn = d.get("function") or {}
        if d.get("id") and not slot["id"]:
            slot["id"] = d["id"]
        if isinstance(fn.get("name"), str) and fn["name"] and not slot["name"]:
            slot["name"] = fn["name"]
        if isinstance(fn.get("arguments"), str):
            slot["arguments"] += fn["arguments"]


def finish_calls(acc: dict[int, dict], url: str) -> list[dict] | None:
    if not acc:
        return None
    calls = []
    for _, slot in sorted(acc.items()):
        if not slot["name"]:
            raise RemoteProtocolError(f"{url} streamed a tool call without a name", url=url)
        calls.append(normalize_call({"id": slot["id"], "function": {"name": slot["name"],
                                                                    "arguments": slot["arguments"]}}))
    return calls


class StreamReader:
    """Turns the events of one SSE response into text pieces, collecting calls, usage and finish.

    Errors: RemoteProtocolError for an event that is not the OpenAI chunk shape,
    StreamInterrupted when the server reports an error or the connection ends before the
    reply did, RemoteTimeout when it goes silent. A stop_event (or the cancel watch that
    shut the socket) ends the reading quietly with `cancelled` set.
    """

    def __init__(self, sresp: Any, *, chat: bool, stop_event: threading.Event | None, timeout: float):
        self.sresp = sresp
        self.url = sresp.url
        self.chat = chat
        self.stop_event = stop_event
        self.timeout = timeout
        self.text: list[str] = []
        self.usage: dict[str, int] = {}
        self.raw_finish: Any = None
        self.done = False
        self.cancelled = False
        self.t_first: float | None = None
        self._acc: dict[int, dict] = {}

    def _chars(self) -> int:
        return len("".join(self.text))

    def pieces(self) -> Iterator[str]:
        url = self.url
        try:
            for event, data in self.sresp.events():
                if self.stop_event is not None and self.stop_event.is_set():
                    self.cancelled = True
                    break
                if data.strip() == "[DONE]":
                    self.done = True
                    break
                piece = self._event(event, data)
                if piece:
                    if self.t_first is None:
                        self.t_first = time.perf_counter()
                    self.text.append(piece)
                    yield piece
        except TimeoutError:
            if not self.sresp.watch.cancelled:
                raise RemoteTimeout(f"{url} stopped streaming for more than {self.timeout:g}s "
                                    f"after {self._chars()} characters", url=url) from None
            self.cancelled = True
        except (http.client.HTTPException, OSError) as exc:
            if not self.sresp.watch.cancelled:
                raise StreamInterrupted(
                    f"the connection to {url} broke mid-reply after {self._chars()} characters "
                    f"({type(exc).__name__}); the partial reply was not completed", url=url,
                    partial="".join(self.text)) from None
            self.cancelled = True
        finally:
            self.sresp.close()
        if self.sresp.watch.cancelled and not self.done:
            self.cancelled = True
        if not (self.done or self.cancelled or self.raw_finish):
            raise StreamInterrupted(f"the server at {url} closed the stream after {self._chars()} "
                                    "characters without finishing it", url=url, partial="".join(self.text))

    def _event(self, event: str, data: str) -> str:
        url = self.url
        if event == "error":
            raise StreamInterrupted(f"{url} reported an error mid-stream: {data[:200]}",
                                    url=url, partial="".join(self.text))
        try:
            obj = json.loads(data)
        except ValueError:
            raise RemoteProtocolError(f"{url} sent a stream event that is not JSON ({data[:60]!r})",
                                      url=url) from None
        if not isinstance(obj, dict):
            raise RemoteProtocolError(f"{url} sent a stream event that is not a JSON object", url=url)
        if "error" in obj:
            err = obj["error"]
            msg = err.get("message") if isinstance(err, dict) else err
            raise StreamInterrupted(f"{url} reported an error mid-stream: {str(msg)[:200]}",
                                    url=url, partial="".join(self.text))
        if isinstance(obj.get("usage"), dict):
            self.usage = usage_of(obj["usage"])
        choices = obj.get("choices")
        if choices is None or choices == []:
            return ""
        if not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise RemoteProtocolError(f"{url} sent a stream event with malformed choices", url=url)
        ch = choices[0]
        if ch.get("finish_reason"):
            self.raw_finish = ch["finish_reason"]
        if not self.chat:
            return text_field(ch.get("text"), url)
        delta = ch.get("delta") or {}
        if not isinstance(delta, dict):
            raise RemoteProtocolError(f"{url} sent a stream event with a malformed delta", url=url)
        accumulate_calls(self._acc, delta.get("tool_calls"), url)
        return text_field(delta.get("content"), url)

    def calls(self) -> list[dict] | None:
        return finish_calls(self._acc, self.url)
