"""A small HTTP/1.1 JSON client for OpenAI-compatible servers, on the standard library.

Why not a third-party client: the backend needs exactly four things -- a connect
timeout apart from the read timeout, retries only on transient failures, server-sent
events, and a stop_event that closes a blocked socket at once -- and http.client does
all four with a few lines around it. One connection per request, so a restarted server
never meets a stale keep-alive socket.
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from edgevox.llm.remote.errors import (
    CancelledRequest,
    RemoteContextOverflow,
    RemoteError,
    RemoteProtocolError,
    RemoteRequestRejected,
    RemoteTimeout,
    RemoteUnavailable,
)

log = logging.getLogger(__name__)

MAX_BODY = 32 * 1024 * 1024  # a JSON answer larger than this is not a chat completion
MAX_LINE = 8 * 1024 * 1024  # one SSE line
_TRANSIENT_CONN = (ConnectionRefusedError, ConnectionResetError, ConnectionAbortedError,
                   BrokenPipeError, http.client.RemoteDisconnected, http.client.IncompleteRead)


class _Transient(Exception):
    """One attempt failed in a way worth retrying."""

    def __init__(self, reason: str, retry_after: float | None = None, status: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.status = status


@dataclass(frozen=True)
class ErrorInfo:
    """The useful parts of an error body (OpenAI, FastAPI or llama.cpp shape)."""

    message: str
    code: str | None = None
    type: str | None = None


def split_base_url(base_url: str) -> tuple[str, str, int, str, str]:
    """(scheme, host, port, api_prefix, root_prefix) of a server URL.

    "http://h:8080" and "http://h:8080/v1" both mean the OpenAI routes under /v1;
    llama.cpp's own routes (/props) live at the root, without the /v1.
    """
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{base_url!r} is not an http(s) URL with a host")
    if parts.query or parts.fragment:
        raise ValueError(f"{base_url!r}: a server URL takes no query or fragment")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ValueError(f"{base_url!r} has an invalid port") from None
    path = parts.path.rstrip("/")
    api = path if path else "/v1"
    root = path[: -len("/v1")] if path.endswith("/v1") else path
    return parts.scheme, parts.hostname, port, api, root


class _CancelWatch:
    """Shut a socket down from another thread when stop_event fires.

    A blocked recv() cannot look at an Event; shutting the socket down makes it return
    at once, which is how cancellation "closes the stream" even while the server is silent.
    """

    def __init__(self, sock: socket.socket | None, stop_event: threading.Event | None):
        self.fired = False
        self._sock = sock
        self._stop = stop_event
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        if stop_event is not None and sock is not None:
            self._thread = threading.Thread(target=self._run, name="edgevox-remote-cancel", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        assert self._stop is not None and self._sock is not None
        while not self._done.wait(0.02):
            if self._stop.is_set():
                self.fired = True
                try:
                    self._sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return

    def stop(self) -> None:
        self._done.set()

    @property
    def cancelled(self) -> bool:
        return self.fired or (self._stop is not None and self._stop.is_set())


class StreamResponse:
    """An open server-sent-events response: iterate `events()`, always `close()`."""

    def __init__(self, client: HttpClient, conn: http.client.HTTPConnection,
                 resp: http.client.HTTPResponse, watch: _CancelWatch, url: str, attempts: int):
        self._client = client
        self._conn = conn
        self._resp = resp
        self.watch = watch
        self.url = url
        self.attempts = attempts

    def events(self) -> Iterator[tuple[str, str]]:
        """(event name, data) pairs; ends at end of stream. Read errors propagate raw."""
        data: list[str] = []
        event = "message"
        while True:
            raw = self._resp.readline(MAX_LINE + 1)
            if not raw:
                break
            if len(raw) > MAX_LINE:
                raise RemoteProtocolError(f"{self.url} sent an event line longer than {MAX_LINE} bytes",
                                          url=self.url)
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise RemoteProtocolError(f"{self.url} sent an event stream that is not UTF-8",
                                          url=self.url) from None
            if not line:
                if data:
                    yield event, "\n".join(data)
                data, event = [], "message"
                continue
            if line.startswith(":"):
                continue  # comment / keep-alive ping
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
            elif name == "error":  # llama.cpp reports some failures as an `error:` line
                yield "error", value
        if data:
            yield event, "\n".join(data)

    def close(self) -> None:
        self.watch.stop()
        for closer in (self._resp.close, self._conn.close):
            try:
                closer()
            except OSError:
                pass


class HttpClient:
    """JSON over HTTP/1.1 with timeouts, bounded retries and cancellation."""

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout: float = 60.0,
                 connect_timeout: float = 5.0, max_retries: int = 3, backoff: float = 0.5,
                 max_backoff: float = 30.0, headers: dict[str, str] | None = None,
                 sleep: Callable[[float], None] | None = None):
        if timeout <= 0 or connect_timeout <= 0:
            raise ValueError("timeout and connect_timeout must be positive")
        if max_retries < 0 or backoff < 0:
            raise ValueError("max_retries and backoff must not be negative")
        self.scheme, self.host, self.port, self.api_prefix, self.root_prefix = split_base_url(base_url)
        self.base_url = f"{self.scheme}://{self.host}:{self.port}{self.api_prefix}"
        self.timeout = float(timeout)
        self.connect_timeout = float(connect_timeout)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self._headers = {"Content-Type": "application/json", "Accept": "application/json",
                         "User-Agent": "edgevox-remote/1", **(headers or {})}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._sleep = sleep

    # -- public -----------------------------------------------------------------

    def api_path(self, route: str) -> str:
        return f"{self.api_prefix}{route}"

    def root_path(self, route: str) -> str:
        return f"{self.root_prefix}{route}"

    def url(self, path: str) -> str:
        return f"{self.scheme}://{self.host}:{self.port}{path}"

    def request_json(self, method: str, path: str, body: Any = None, *,
                     stop_event: threading.Event | None = None, timeout: float | None = None,
                     retries: int | None = None) -> tuple[Any, int]:
        """The decoded JSON answer and how many retries it took."""
        url = self.url(path)
        payload = _encode(body)

        def attempt() -> Any:
            conn, resp, watch = self._open(method, path, payload, stop_event, timeout)
            try:
                raw = self._read_body(resp, url, watch)
            finally:
                watch.stop()
                conn.close()
            return _decode_json(raw, url)

        return self._with_retries(attempt, url, stop_event, retries)

    def open_stream(self, path: str, body: Any, *, stop_event: threading.Event | None = None) -> StreamResponse:
        """POST and return the open event stream once the server has said 200."""
        url = self.url(path)
        payload = _encode(body)
        box: list[Any] = []

        def attempt() -> None:
            box[:] = self._open("POST", path, payload, stop_event, None)

        _, attempts = self._with_retries(attempt, url, stop_event, None)
        conn, resp, watch = box
        ctype = resp.getheader("Content-Type", "") or ""
        if "text/event-stream" not in ctype:
            # Some servers answer a stream request with one JSON body (e.g. an error).
            try:
                raw = self._read_body(resp, url, watch)
            finally:
                watch.stop()
                conn.close()
            obj = _decode_json(raw, url)
            raise RemoteProtocolError(f"{url} answered a streaming request with {ctype or 'no content type'} "
                                      f"instead of an event stream ({_short(json.dumps(obj))})", url=url)
        return StreamResponse(self, conn, resp, watch, url, attempts)

    # -- internals --------------------------------------------------------------

    def _with_retries(self, attempt: Callable[[], Any], url: str, stop_event: threading.Event | None,
                      retries: int | None) -> tuple[Any, int]:
        limit = self.max_retries if retries is None else retries
        last: _Transient | None = None
        for n in range(limit + 1):
            if n:
                assert last is not None
                delay = min(self.backoff * (2 ** (n - 1)), self.max_backoff)
                if last.retry_after is not None:
                    delay = min(max(delay, last.retry_after), self.max_backoff)
                log.info("retrying %s in %.2fs (%s)", url, delay, last.reason)
                self._wait(delay, stop_event)
            if stop_event is not None and stop_event.is_set():
                raise CancelledRequest("the request was cancelled before it was sent")
            try:
                return attempt(), n
            except _Transient as exc:
                last = exc
        assert last is not None
        raise RemoteUnavailable(f"{url} failed {limit + 1} time(s), last with {last.reason}",
                                url=url, status=last.status)

    def _wait(self, delay: float, stop_event: threading.Event | None) -> None:
        if self._sleep is not None:
            self._sleep(delay)
        elif stop_event is not None:
            if stop_event.wait(delay):
                raise CancelledRequest("the request was cancelled while waiting to retry")
        else:
            time.sleep(delay)

    def _connection(self) -> http.client.HTTPConnection:
        if self.scheme == "https":
            return http.client.HTTPSConnection(self.host, self.port, timeout=self.connect_timeout,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(self.host, self.port, timeout=self.connect_timeout)

    def _open(self, method: str, path: str, payload: bytes | None, stop_event: threading.Event | None,
              timeout: float | None) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse, _CancelWatch]:
        """Connect, send, read the status line; raise _Transient for retryable outcomes."""
        url = self.url(path)
        conn = self._connection()
        watch = _CancelWatch(None, None)
        try:
            try:
                conn.connect()
            except TimeoutError:
                raise RemoteTimeout(f"could not connect to {self.host}:{self.port} within "
                                    f"{self.connect_timeout:g}s", url=url) from None
            except socket.gaierror as exc:
                raise RemoteUnavailable(f"cannot resolve host {self.host!r} ({exc.strerror})", url=url) from None
            except ssl.SSLError as exc:
                raise RemoteUnavailable(f"TLS handshake with {self.host}:{self.port} failed ({exc})",
                                        url=url) from None
            assert conn.sock is not None
            conn.sock.settimeout(timeout or self.timeout)
            watch = _CancelWatch(conn.sock, stop_event)
            conn.request(method, path, body=payload, headers=self._headers)
            resp = conn.getresponse()
        except _TRANSIENT_CONN as exc:
            watch.stop()
            conn.close()
            if watch.cancelled:
                raise CancelledRequest("the request was cancelled") from None
            raise _Transient(f"connection error ({type(exc).__name__})") from None
        except TimeoutError:
            watch.stop()
            conn.close()
            raise RemoteTimeout(f"{url} sent no answer within {timeout or self.timeout:g}s", url=url) from None
        except RemoteError:
            conn.close()
            raise
        except OSError as exc:
            watch.stop()
            conn.close()
            if watch.cancelled:
                raise CancelledRequest("the request was cancelled") from None
            raise RemoteUnavailable(f"network error talking to {url}: {exc.strerror or exc}", url=url) from None
        if 200 <= resp.status < 300:
            return conn, resp, watch
        try:
            raw = self._read_body(resp, url, watch, limit=64 * 1024)
        except RemoteError:
            raw = b""
        finally:
            watch.stop()
            conn.close()
        err = parse_error(raw, resp.status)
        if resp.status == 429 or (resp.status >= 500 and not is_validation_error(err)):
            raise _Transient(f"HTTP {resp.status} ({_short(err.message, 160)})",
                             _retry_after(resp.getheader("Retry-After")), resp.status)
        raise rejection(url, resp.status, err)

    def _read_body(self, resp: http.client.HTTPResponse, url: str, watch: _CancelWatch,
                   limit: int = MAX_BODY) -> bytes:
        try:
            raw = resp.read(limit + 1)
        except TimeoutError:
            raise RemoteTimeout(f"{url} stopped sending its answer for more than {self.timeout:g}s",
                                url=url) from None
        except (*_TRANSIENT_CONN, OSError) as exc:
            if watch.cancelled:
                raise CancelledRequest("the request was cancelled") from None
            raise _Transient(f"connection broken while reading the answer ({type(exc).__name__})") from None
        if watch.cancelled:
            raise CancelledRequest("the request was cancelled")
        if len(raw) > limit:
            raise RemoteProtocolError(f"{url} sent an answer larger than {limit} bytes", url=url)
        return raw


def _encode(body: Any) -> bytes | None:
    if body is None:
        return None
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def _decode_json(raw: bytes, url: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise RemoteProtocolError(f"{url} answered with a body that is not JSON "
                                  f"(starts with {_short(raw.decode('utf-8', 'replace'), 60)!r})",
                                  url=url) from None


def _short(text: str, n: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def parse_error(raw: bytes, status: int) -> ErrorInfo:
    """Pull message/code/type out of the error shapes servers use."""
    text = raw.decode("utf-8", "replace")
    try:
        obj = json.loads(text)
    except ValueError:
        return ErrorInfo(_short(text) or f"HTTP {status}")
    err = obj.get("error", obj) if isinstance(obj, dict) else obj
    if isinstance(err, dict):
        message = err.get("message") or err.get("detail") or err.get("msg") or json.dumps(err)
        code = err.get("code")
        return ErrorInfo(str(message) if not isinstance(message, str) else message,
                         str(code) if code is not None else None,
                         str(err.get("type")) if err.get("type") is not None else None)
    if isinstance(err, str):
        return ErrorInfo(err)
    return ErrorInfo(_short(text))


def is_validation_error(err: ErrorInfo) -> bool:
    """True when a 5xx is really the server refusing the request's shape.

    llama-cpp-python's server reports pydantic request-validation failures as HTTP 500;
    retrying those can never succeed, and the capability logic needs them as rejections.
    """
    msg = err.message
    return "validation error" in msg and "'body'" in msg


def rejection(url: str, status: int, err: ErrorInfo) -> RemoteRequestRejected:
    """The exception for a refused request, context overflow recognised by code or wording."""
    msg = err.message.lower()
    overflow = err.code in ("context_length_exceeded", "exceed_context_size_error") or (
        "context" in msg and any(w in msg for w in ("maximum context length", "exceed", "context size")))
    if overflow:
        return RemoteContextOverflow(f"the server's context window is too small for this request: "
                                     f"{_short(err.message, 240)}", url=url, status=status,
                                     server_message=err.message, code=err.code)
    if status in (401, 403):
        what = "needs an API key (pass api_key=...)" if status == 401 else "refused the API key"
        return RemoteRequestRejected(f"{url} {what}: {_short(err.message, 160)}", url=url, status=status,
                                     server_message=err.message, code=err.code)
    return RemoteRequestRejected(f"{url} rejected the request (HTTP {status}): {_short(err.message, 240)}",
                                 url=url, status=status, server_message=err.message, code=err.code)
