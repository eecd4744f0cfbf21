"""Fixtures for the remote backend: scripted fake servers and a real llama-cpp-python server.

Everything binds 127.0.0.1 only. Fakes run in threads and are shut down by their
fixtures; the real server is a child process that the session fixture always kills.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

Handler = Callable[["Request"], None]


class Request:
    """One request the fake received, plus the means to answer it."""

    def __init__(self, h: BaseHTTPRequestHandler, body: Any):
        self.h = h
        self.method = h.command
        self.path = h.path
        self.body = body

    def json(self, obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.raw(json.dumps(obj).encode(), status, "application/json", headers)

    def raw(self, data: bytes, status: int = 200, ctype: str = "application/json",
            headers: dict[str, str] | None = None) -> None:
        self.h.send_response(status)
        self.h.send_header("Content-Type", ctype)
        self.h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.h.send_header(k, v)
        self.h.end_headers()
        self.h.wfile.write(data)
        self.h.wfile.flush()

    def sse_start(self) -> None:
        self.h.send_response(200)
        self.h.send_header("Content-Type", "text/event-stream")
        self.h.send_header("Connection", "close")
        self.h.end_headers()
        self.h.close_connection = True

    def sse(self, data: Any) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        self.h.wfile.write(f"data: {text}\n\n".encode())
        self.h.wfile.flush()

    def drop(self) -> None:
        """Close the connection abruptly (what a killed server looks like)."""
        with contextlib.suppress(OSError):
            self.h.connection.shutdown(socket.SHUT_RDWR)
        self.h.close_connection = True


def chat_json(content: str | None = "hello", *, tool_calls: list | None = None, finish: str = "stop",
              prompt_tokens: int = 5, completion_tokens: int = 2) -> dict:
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        msg["tool_calls"] = tool_calls
    return {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": msg,
                                                                   "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def chunk(content: str | None = None, *, finish: str | None = None, tool_calls: list | None = None) -> dict:
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


class FakeServer:
    """A scripted OpenAI-compatible server: `routes[(method, path)] = handler(request)`."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.routes: dict[tuple[str, str], Handler] = {
            ("GET", "/v1/models"): lambda r: r.json({"object": "list", "data": [{"id": "fake-model",
                                                                                  "owned_by": "someone"}]}),
        }
        fake = self

        class _H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                body = json.loads(raw) if raw else None
                req = Request(self, body)
                fake.requests.append(req)
                handler = fake.routes.get((self.command, self.path.split("?")[0]))
                if handler is None:
                    req.json({"error": {"message": "not found", "type": "not_found"}}, 404)
                    return
                handler(req)

            do_GET = _serve
            do_POST = _serve

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _H)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def posts(self, path: str = "/v1/chat/completions") -> list[Request]:
        return [r for r in self.requests if r.method == "POST" and r.path == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def fake() -> Iterator[FakeServer]:
    server = FakeServer()
    try:
        yield server
    finally:
        server.close()


class StallServer:
    """Accepts connections and never answers (nor reads): a hung server."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.conns.append(conn)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        self._stop.set()
        self.thread.join(2)
        for c in self.conns:
            c.close()
        self.sock.close()


@pytest.fixture()
def stall() -> Iterator[StallServer]:
    server = StallServer()
    try:
        yield server
    finally:
        server.close()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """`python -m llama_cpp.server` on 127.0.0.1 as a child process; restartable on the same port."""

    def __init__(self, model: Path, log_dir: Path, n_ctx: int = 2048):
        self.model = model
        self.port = free_port()
        self.n_ctx = n_ctx
        self.log_path = log_dir / "llama_server.log"
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, ready_timeout: float = 180.0) -> None:
        assert self.proc is None or self.proc.poll() is not None, "server already running"
        log = open(self.log_path, "ab")  # noqa: SIM115 - owned by the child process
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model),
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
               "--n_threads", str(min(2, os.cpu_count() or 1))]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        self.starts += 1
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}; "
                                   f"log tail: {self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"llama_cpp.server not ready after {ready_timeout:.0f}s; log tail: {self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL, as a crash or power cut would."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)

    def ensure_running(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.start()

    def log_tail(self, n: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return "(no log)"


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory) -> Iterator[LlamaServer]:
    """One real llama-cpp-python server with Qwen2.5-Coder-0.5B for the session, always killed."""
    import llama_cpp.server.app  # noqa: F401  (the server extra, installed by setup)

    from edgevox.models import ensure_model

    server = LlamaServer(ensure_model("qwen2.5-coder-0.5b"), tmp_path_factory.mktemp("llama_server"))
    try:
        server.start()
        yield server
    finally:
        server.stop()
        server.kill()
