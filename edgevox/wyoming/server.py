"""The listening side: the `wyoming` package's `AsyncServer` (tcp:// or unix://) with one
`EdgeVoxHandler` per connection, all sharing one `Service`.

`serve(uri, service)` blocks (the `edgevox wyoming` command; SIGTERM stops it cleanly);
`ServerThread` runs the same server on its own event loop in a background thread, for
tests and benchmarks that talk to it from the same process.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from functools import partial

from wyoming.server import AsyncServer

from edgevox.wyoming.handler import EdgeVoxHandler
from edgevox.wyoming.service import Service

log = logging.getLogger("edgevox.wyoming")


def make_server(uri: str) -> AsyncServer:
    """An `AsyncServer` for a tcp:// or unix:// URI; ValueError names what is wrong."""
    if not uri.startswith(("tcp://", "unix://")):
        raise ValueError(f"--uri must be tcp://HOST:PORT or unix://PATH, got {uri!r}")
    return AsyncServer.from_uri(uri)


async def serve(uri: str, service: Service) -> None:
    """Listen on `uri` until stopped; models start loading as the socket opens, so
    `describe` is answered at once."""
    server = make_server(uri)
    service.start_loading()
    log.info("Wyoming server on %s", uri)
    await server.run(partial(EdgeVoxHandler, service))


class ServerThread:
    """The server on a private event loop in a daemon thread; `stop()` ends it."""

    def __init__(self, uri: str, service: Service):
        self.uri, self.service = uri, service
        self._server = make_server(uri)
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="wyoming-server", daemon=True)

    def start(self, timeout: float = 10.0) -> ServerThread:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the Wyoming server on {self.uri} did not start")
        if self._error is not None:
            raise self._error
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._server.start(partial(EdgeVoxHandler, self.service)))
            self.service.start_loading()
        except BaseException as err:  # reported by start()
            self._error = err
            self._ready.set()
            return
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(self._server.stop())
        self._loop.close()

    def stop(self, timeout: float = 10.0) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)
