"""Transport faults against scripted local servers: retries, timeouts, bad bodies, cancel.

No model: every server here is a thread on 127.0.0.1 answering from a script, so each
failure mode is exact and fast.
"""

from __future__ import annotations

import logging
import threading
import time

import pytest

from edgevox.llm import BackendError, ContextOverflow
from edgevox.llm.remote import (
    RemoteBackend,
    RemoteProtocolError,
    RemoteRequestRejected,
    RemoteTimeout,
    RemoteUnavailable,
    StreamInterrupted,
)
from edgevox.llm.remote._http import CancelledRequest, HttpClient, split_base_url

from .conftest import chat_json, chunk, free_port

MSGS = [{"role": "user", "content": "hi"}]


def backend(url: str, **kw) -> RemoteBackend:
    kw.setdefault("backoff", 0.01)
    kw.setdefault("grammar_mode", "none")
    kw.setdefault("tools_mode", "prompt")
    kw.setdefault("preset", "hermes")
    return RemoteBackend(url, **kw)


def counting(responses):
    """A handler answering the n-th request with responses[min(n, last)]."""
    calls = {"n": 0}

    def handler(req):
        i = min(calls["n"], len(responses) - 1)
        calls["n"] += 1
        responses[i](req)

    return handler


# -- URLs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("url,api,root", [
    ("http://h:8080", "/v1", ""),
    ("http://h:8080/v1/", "/v1", ""),
    ("https://h/openai/v1", "/openai/v1", "/openai"),
])
def test_base_url_forms(url, api, root):
    _, _, _, got_api, got_root = split_base_url(url)
    assert (got_api, got_root) == (api, root)


@pytest.mark.parametrize("url", ["ftp://h/v1", "http:///v1", "http://h:8080/v1?x=1", "http://h:99999/v1"])
def test_bad_base_urls_are_refused(url):
    with pytest.raises(ValueError):
        RemoteBackend(url)


# -- retries -------------------------------------------------------------------------------


def test_5xx_is_retried_then_succeeds(fake):
    fake.routes[("POST", "/v1/chat/completions")] = counting([
        lambda r: r.json({"error": {"message": "overloaded"}}, 503),
        lambda r: r.json({"error": {"message": "bad gateway"}}, 502),
        lambda r: r.json(chat_json("fine")),
    ])
    c = backend(fake.url).complete(MSGS)
    assert c.text == "fine"
    assert c.info["retries"] == 2
    assert len(fake.posts()) == 3


def test_429_waits_for_retry_after(fake):
    fake.routes[("POST", "/v1/chat/completions")] = counting([
        lambda r: r.json({"error": {"message": "slow down"}}, 429, {"Retry-After": "0.4"}),
        lambda r: r.json(chat_json("ok")),
    ])
    c = backend(fake.url).complete(MSGS)
    assert c.text == "ok" and c.info["retries"] == 1
    delays: list[float] = []  # the wait itself, without waiting
    client = HttpClient(fake.url, backoff=0.01, sleep=delays.append)
    fake.routes[("POST", "/v1/chat/completions")] = counting([
        lambda r: r.json({"error": {"message": "slow down"}}, 429, {"Retry-After": "0.4"}),
        lambda r: r.json(chat_json("ok")),
    ])
    assert client.request_json("POST", "/v1/chat/completions", {"messages": MSGS})[1] == 1
    assert delays == [0.4]


def test_4xx_is_not_retried(fake):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(
        {"error": {"message": "max_tokens must be positive", "type": "invalid_request_error"}}, 400)
    with pytest.raises(RemoteRequestRejected, match="max_tokens must be positive") as err:
        backend(fake.url).complete(MSGS)
    assert err.value.status == 400
    assert len(fake.posts()) == 1


def test_validation_500_is_a_rejection_not_retried(fake):
    """llama-cpp-python reports request-validation errors as HTTP 500."""
    msg = ("1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
           "'msg': \"Input should be 'text' or 'json_object'\"}")
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(
        {"error": {"message": msg, "type": "internal_server_error"}}, 500)
    with pytest.raises(RemoteRequestRejected):
        backend(fake.url).complete(MSGS)
    assert len(fake.posts()) == 1


def test_5xx_forever_gives_up_after_max_retries(fake):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json({"error": {"message": "boom"}}, 500)
    with pytest.raises(RemoteUnavailable, match=r"failed 3 time\(s\).*HTTP 500"):
        backend(fake.url, max_retries=2).complete(MSGS)
    assert len(fake.posts()) == 3


def test_backoff_is_exponential():
    delays: list[float] = []
    client = HttpClient(f"http://127.0.0.1:{free_port()}/v1", max_retries=3, backoff=0.5,
                        sleep=delays.append)
    with pytest.raises(RemoteUnavailable, match="connection error"):
        client.request_json("GET", "/v1/models")
    assert delays == [0.5, 1.0, 2.0]


def test_connection_refused_is_retried_then_reported():
    b = backend(f"http://127.0.0.1:{free_port()}/v1", max_retries=2, backoff=0.05)
    with pytest.raises(RemoteUnavailable, match="failed 3 time"):
        b.complete(MSGS)


# -- timeouts ------------------------------------------------------------------------------


def test_stalled_server_times_out_within_the_timeout(stall):
    b = backend(stall.url, timeout=1.0, connect_timeout=1.0)
    t = time.monotonic()
    with pytest.raises(RemoteTimeout, match="no answer within 1s"):
        b.complete(MSGS)
    assert time.monotonic() - t >= 0.9  # not before its deadline (never early, whatever the load)


def test_stalled_generation_times_out_and_is_not_retried(fake):
    release = threading.Event()
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: release.wait(10)
    try:
        b = backend(fake.url, timeout=0.5)
        with pytest.raises(RemoteTimeout, match="no answer within 0.5s"):
            b.complete(MSGS)
        assert len(fake.posts()) == 1 and not release.is_set()
    finally:
        release.set()


def test_stream_that_stalls_mid_reply_times_out(fake):
    release = threading.Event()

    def handler(r):
        r.sse_start()
        r.sse(chunk("Hel"))
        release.wait(10)

    fake.routes[("POST", "/v1/chat/completions")] = handler
    try:
        got, done = [], []
        with pytest.raises(RemoteTimeout, match="after 3 characters"):
            for piece in backend(fake.url, timeout=0.5).stream(MSGS, on_done=done.append):
                got.append(piece)
        assert got == ["Hel"] and done == []
    finally:
        release.set()


# -- malformed answers ---------------------------------------------------------------------


def test_garbage_json_body_is_a_clear_error(fake):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.raw(b'{"choices": [{"message": ')
    with pytest.raises(RemoteProtocolError, match="not JSON"):
        backend(fake.url).complete(MSGS)
    assert len(fake.posts()) == 1  # a bad body is not a transient failure


@pytest.mark.parametrize("obj,match", [
    ({"foo": 1}, "without a choices list"),
    ({"choices": []}, "without a choices list"),
    ({"choices": [{"message": "hi"}]}, "without a message"),
    ({"choices": [{"message": {"content": 42}}]}, "not text"),
    ({"choices": [{"message": {"content": "", "tool_calls": [{"function": {}}]}}]}, "malformed tool call"),
    ([1, 2], "not an object"),
])
def test_wrong_shape_json_is_a_clear_error(fake, obj, match):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(obj)
    with pytest.raises(RemoteProtocolError, match=match):
        backend(fake.url).complete(MSGS)


def test_garbage_stream_event_stops_the_stream_without_a_completion(fake):
    def handler(r):
        r.sse_start()
        r.sse(chunk("Hel"))
        r.sse("{not json")
        r.sse(chunk("lo", finish="stop"))
        r.sse("[DONE]")

    fake.routes[("POST", "/v1/chat/completions")] = handler
    got, done = [], []
    with pytest.raises(RemoteProtocolError, match="not JSON"):
        for piece in backend(fake.url).stream(MSGS, on_done=done.append):
            got.append(piece)
    assert got == ["Hel"]
    assert done == []  # nothing half-applied: no Completion for a broken reply


def test_agent_turn_is_rolled_back_on_a_malformed_reply(fake):
    """The session (what a voice assistant remembers) holds nothing of a failed turn."""
    from edgevox.agents import LLMAgent

    def handler(r):
        r.sse_start()
        r.sse(chunk("Sure, "))
        r.sse("garbage")

    fake.routes[("POST", "/v1/chat/completions")] = handler
    agent = LLMAgent(model=backend(fake.url), max_tokens=16)
    result = agent.run("hello")
    assert result.stopped_reason == "error"
    assert agent.session.messages == []


def test_stream_broken_mid_reply_is_interrupted_and_not_retried(fake):
    def handler(r):
        r.sse_start()
        r.sse(chunk("a"))
        r.sse(chunk("b"))
        r.drop()

    fake.routes[("POST", "/v1/chat/completions")] = handler
    got, done = [], []
    with pytest.raises(StreamInterrupted) as err:
        for piece in backend(fake.url, max_retries=3).stream(MSGS, on_done=done.append):
            got.append(piece)
    assert err.value.partial == "ab" == "".join(got)
    assert done == []
    assert len(fake.posts()) == 1


def test_server_error_event_mid_stream(fake):
    def handler(r):
        r.sse_start()
        r.sse(chunk("a"))
        r.sse({"error": {"message": "slot crashed"}})

    fake.routes[("POST", "/v1/chat/completions")] = handler
    with pytest.raises(StreamInterrupted, match="slot crashed"):
        list(backend(fake.url).stream(MSGS))


def test_stream_request_answered_with_plain_json(fake):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(chat_json("x"))
    with pytest.raises(RemoteProtocolError, match="instead of an event stream"):
        list(backend(fake.url).stream(MSGS))


# -- cancellation --------------------------------------------------------------------------


def test_stop_event_closes_a_running_stream(fake):
    gone = threading.Event()

    def handler(r):
        r.sse_start()
        try:
            for i in range(400):
                r.sse(chunk(f"{i} "))
                time.sleep(0.02)
        except OSError:
            gone.set()  # the client hung up

    fake.routes[("POST", "/v1/chat/completions")] = handler
    stop = threading.Event()
    got, done = [], []
    for piece in backend(fake.url).stream(MSGS, stop_event=stop, on_done=done.append):
        got.append(piece)
        if len(got) == 3:
            stop.set()
    assert len(got) <= 5  # within two pieces of the stop
    assert done[0].finish_reason == "cancelled"
    assert done[0].text == "".join(got)
    assert gone.wait(3), "the server never saw the connection close"


def test_stop_event_interrupts_a_silent_wait(fake):
    release, handled = threading.Event(), threading.Event()
    stops = [threading.Event(), threading.Event()]
    asked = iter(stops)

    def handler(r):
        next(asked).set()  # the client is now waiting for an answer that does not come
        release.wait(30)
        handled.set()

    fake.routes[("POST", "/v1/chat/completions")] = handler
    try:
        c = backend(fake.url, timeout=30).complete(MSGS, stop_event=stops[0])
        assert c.finish_reason == "cancelled" and c.text == ""
        done: list = []
        assert list(backend(fake.url, timeout=30).stream(MSGS, stop_event=stops[1], on_done=done.append)) == []
        assert done[0].finish_reason == "cancelled"
        assert not handled.is_set()  # both returned on the stop, not on the server's end
    finally:
        release.set()


def test_closing_the_iterator_closes_the_connection(fake):
    gone = threading.Event()

    def handler(r):
        r.sse_start()
        try:
            for i in range(400):
                r.sse(chunk(f"{i} "))
                time.sleep(0.02)
        except OSError:
            gone.set()

    fake.routes[("POST", "/v1/chat/completions")] = handler
    it = backend(fake.url).stream(MSGS)
    assert next(it) == "0 "
    it.close()
    assert gone.wait(3)


# -- other errors --------------------------------------------------------------------------


def test_context_overflow_is_recognised(fake):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json({"error": {
        "message": "This model's maximum context length is 2048 tokens. However, you requested 3035 tokens",
        "type": "invalid_request_error", "code": "context_length_exceeded"}}, 400)
    with pytest.raises(ContextOverflow, match="context window"):
        backend(fake.url).complete(MSGS)


def test_api_key_is_sent_and_401_explained(fake):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json({"error": {"message": "Invalid API key"}}, 401)
    with pytest.raises(RemoteRequestRejected, match="API key") as err:
        backend(fake.url, api_key="sekrit").complete(MSGS)
    assert isinstance(err.value, BackendError)
    assert fake.posts()[0].h.headers["Authorization"] == "Bearer sekrit"


def test_sse_comments_usage_chunk_and_timings(fake):
    def handler(r):
        r.sse_start()
        r.h.wfile.write(b": ping\n\n")
        r.sse(chunk("Hi"))
        r.sse(chunk(" there", finish="stop"))
        r.sse({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}})
        r.sse("[DONE]")

    fake.routes[("POST", "/v1/chat/completions")] = handler
    done: list = []
    assert list(backend(fake.url).stream(MSGS, on_done=done.append)) == ["Hi", " there"]
    c = done[0]
    assert c.text == "Hi there" and c.finish_reason == "stop"
    assert c.usage == {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}
    assert "usage_estimated" not in c.info
    assert c.timings["total_s"] >= c.timings["decode_s"] >= 0
    body = fake.posts()[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_stream_that_ends_without_done_but_with_finish_is_complete(fake):
    def handler(r):
        r.sse_start()
        r.sse(chunk("ok", finish="length"))

    fake.routes[("POST", "/v1/chat/completions")] = handler
    done: list = []
    assert list(backend(fake.url).stream(MSGS, on_done=done.append)) == ["ok"]
    assert done[0].finish_reason == "length"


def test_unknown_option_is_a_type_error(fake):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(chat_json())
    with pytest.raises(TypeError, match="frequency"):
        backend(fake.url).complete(MSGS, frequency=3)
    with pytest.raises(TypeError, match="complete"):
        backend(fake.url).stream(MSGS, response_schema={"type": "object"})
    assert fake.posts() == []


def test_load_model_routes_urls_with_options(fake):
    from edgevox.llm import load_model

    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json(chat_json("routed"))
    b = load_model(fake.url, model="served", api_key="k", grammar_mode="none", tools_mode="prompt")
    assert isinstance(b, RemoteBackend)
    assert b.complete(MSGS).text == "routed"
    assert fake.posts()[0].body["model"] == "served"


class _StopOnRetry(logging.Handler):
    """Sets a stop event the moment the client logs that it will wait to retry."""

    def __init__(self, stop: threading.Event):
        super().__init__()
        self.stop = stop

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("retrying"):
            self.stop.set()


def test_stop_event_cuts_a_retry_backoff_short(fake):
    fake.routes[("POST", "/v1/chat/completions")] = lambda r: r.json({"error": {"message": "busy"}}, 503)
    stop = threading.Event()
    logger = logging.getLogger("edgevox.llm.remote._http")
    hook, level = _StopOnRetry(stop), logger.level
    logger.addHandler(hook)
    logger.setLevel(logging.INFO)
    try:
        # the backoff would be a minute: only the stop ends it
        c = backend(fake.url, backoff=60.0, max_retries=3).complete(MSGS, stop_event=stop)
        assert c.finish_reason == "cancelled" and len(fake.posts()) == 1
        stop.clear()
        with pytest.raises(CancelledRequest, match="while waiting to retry"):  # not after it
            HttpClient(fake.url, backoff=60.0).request_json("POST", "/v1/chat/completions", {}, stop_event=stop)
        assert len(fake.posts()) == 2
    finally:
        logger.removeHandler(hook)
        logger.setLevel(level)


def test_concurrent_streams_share_one_backend(fake):
    def handler(r):
        who = r.body["messages"][-1]["content"]
        r.sse_start()
        for i in range(5):
            r.sse(chunk(f"{who}{i} "))
            time.sleep(0.01)
        r.sse(chunk(finish="stop"))
        r.sse("[DONE]")

    fake.routes[("POST", "/v1/chat/completions")] = handler
    b = backend(fake.url)
    out: dict[str, str] = {}

    def run(who: str) -> None:
        out[who] = "".join(b.stream([{"role": "user", "content": who}]))

    threads = [threading.Thread(target=run, args=(w,)) for w in "abcd"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert out == {w: "".join(f"{w}{i} " for i in range(5)) for w in "abcd"}


def test_cancel_in_the_middle_of_a_streamed_tool_call(fake):
    def handler(r):
        r.sse_start()
        try:
            for piece in ['{"', 'city', '": "', 'Par'] * 50:
                r.sse(chunk(tool_calls=[{"index": 0, "id": "c", "function": {"name": "f", "arguments": piece}}]))
                sent.append(piece)
                if len(sent) == 6:
                    stop.set()  # half-way through the call's arguments
                time.sleep(0.02)
        except OSError:
            pass

    sent: list[str] = []
    stop = threading.Event()
    fake.routes[("POST", "/v1/chat/completions")] = handler
    done: list = []
    b = backend(fake.url, tools_mode="native")
    assert list(b.stream(MSGS, stop_event=stop, on_done=done.append)) == []
    assert done[0].finish_reason == "cancelled" and done[0].tool_calls is None and done[0].text == ""
