"""Errors of the remote backend: every one is a BackendError with a one-sentence message."""

from __future__ import annotations

from edgevox.llm.types import BackendError, ContextOverflow


class RemoteError(BackendError):
    """A request to an OpenAI-compatible server failed."""

    def __init__(self, message: str, *, url: str | None = None, status: int | None = None):
        super().__init__(message)
        self.url = url
        self.status = status


class RemoteUnavailable(RemoteError):
    """The server could not be reached, or kept failing (5xx, 429) after every retry."""


class RemoteTimeout(RemoteError):
    """The server accepted the request but sent nothing within the configured timeout."""


class RemoteProtocolError(RemoteError):
    """The server answered with something that is not the OpenAI wire format."""


class RemoteRequestRejected(RemoteError):
    """The server refused the request (4xx, or a request-validation error); not retried."""

    def __init__(self, message: str, *, url: str | None = None, status: int | None = None,
                 server_message: str = "", code: str | None = None):
        super().__init__(message, url=url, status=status)
        self.server_message = server_message
        self.code = code


class RemoteContextOverflow(RemoteRequestRejected, ContextOverflow):
    """The server says the prompt plus max_tokens does not fit its context window."""


class StreamInterrupted(RemoteUnavailable):
    """The connection broke after part of a reply arrived; that part is in `.partial`.

    Never retried: replaying a half-delivered stream would show the listener text twice.
    """

    def __init__(self, message: str, *, url: str | None = None, partial: str = ""):
        super().__init__(message, url=url)
        self.partial = partial


class CancelledRequest(BackendError):
    """Internal: the caller's stop_event fired while a request was in flight."""
