"""The warm prompt prefix and the persisted prompt cache, on the real models.

Every restored or rebuilt state must give the reply a cold run gives at temperature 0. A
cold run is a fresh process without any prompt cache: an empty context, the prefix
evaluated, then the turn. (The reference evaluates the prefix on its own, as every agent
does now, rather than prefix and request in one batch: llama.cpp's CPU kernels round
differently for different batch sizes, so those two orders may pick another token at a
near tie, cache or no cache. Restoring must equal evaluating bit for bit.)
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from edgevox.agents import LLMAgent
from edgevox.examples.home import Home
from edgevox.llm.prompt_cache import MAGIC, PromptCache, state_key

INSTRUCTIONS = "You are a voice assistant for a home. Use the tools. Answer in one short sentence."
REQUEST = "Turn on the kitchen light."


def _empty(backend) -> None:
    """What a fresh process has: no tokens in the context."""
    with backend.lock:
        backend.llm.reset()
        backend.llm._ctx.kv_cache_clear()


def _tools() -> list:
    """Three of the home's tools: a prefix of a few hundred tokens keeps every cold
    evaluation in these tests cheap."""
    return Home().tools()[:3]


def _agent(backend, tools=None, **kw) -> LLMAgent:
    return LLMAgent("vox", "", INSTRUCTIONS, tools=tools if tools is not None else _tools(),
                    model=backend, temperature=0.0, max_tokens=40, warm=False, **kw)


def _reply(agent) -> str:
    """The first hop of a turn, greedy: what the restored state decides."""
    msgs = [*agent.prompt_prefix(), {"role": "user", "content": REQUEST}]
    return agent.backend.complete(msgs, agent.registry.schemas(), temperature=0.0, max_tokens=32).text


def _cold_reply(backend, tools=None) -> str:
    _empty(backend)
    agent = _agent(backend, tools)
    assert backend.warm_prefix(agent.prefix_tokens(), persist=False)["source"] == "evaluated"
    return _reply(agent)


def _warm_reply(backend, tools=None) -> tuple[str, dict]:
    _empty(backend)
    agent = _agent(backend, tools)
    info = agent.warm(wait=True).info
    return _reply(agent), info


@pytest.fixture()
def cached_qwen(qwen_backend, tmp_path):
    old = qwen_backend.prompt_cache
    qwen_backend.prompt_cache = PromptCache(tmp_path / "prompt-cache")
    yield qwen_backend
    qwen_backend.prompt_cache = old


def _entry(backend) -> Path:
    files = sorted(backend.prompt_cache.dir.glob("*.kv"))
    assert len(files) == 1, files
    return files[0]


def test_prefix_is_shared_by_every_turn(qwen_backend):
    agent = _agent(qwen_backend)
    prefix = agent.prefix_tokens()
    assert len(prefix) > 100  # system prompt and three tool schemas
    for text in ("Hi", "\nTurn on the light", "\n\n  What time is it?", " ok"):
        full = qwen_backend.tokenize(qwen_backend.render(
            [*agent.prompt_prefix(), {"role": "user", "content": text}], agent.registry.schemas()))
        assert full[: len(prefix)] == prefix


def test_restored_cache_gives_the_cold_reply(cached_qwen, caplog):
    cold = _cold_reply(cached_qwen)
    first, info = _warm_reply(cached_qwen)
    assert info["source"] == "evaluated" and first == cold
    again, info = _warm_reply(cached_qwen)
    assert info["source"] == "disk" and again == cold
    # still in memory: nothing to do
    agent = _agent(cached_qwen)
    assert agent.warm(wait=True).info["source"] == "memory"

    # corrupted: one byte of the state flipped -> ignored with a log line, rebuilt
    path = _entry(cached_qwen)
    raw = bytearray(path.read_bytes())
    raw[-100] ^= 0xFF
    path.write_bytes(bytes(raw))
    with caplog.at_level(logging.WARNING, logger="edgevox.llm.prompt_cache"):
        reply, info = _warm_reply(cached_qwen)
    assert info["source"] == "evaluated" and reply == cold
    assert "checksum" in caplog.text
    assert _warm_reply(cached_qwen)[1]["source"] == "disk"  # the rebuilt entry is good

    # truncated, and not a cache file at all: refused before llama.cpp sees a byte
    agent = _agent(cached_qwen)
    tokens, fields = agent.prefix_tokens(), cached_qwen.state_fields()
    key = state_key(fields, tokens)
    path = _entry(cached_qwen)
    good = path.read_bytes()
    for damage, why in ((lambda b: b[: len(b) // 2], "truncated"),
                        (lambda b: b"garbage" + b[len(MAGIC):], "not a prompt-cache file")):
        path.write_bytes(damage(good))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="edgevox.llm.prompt_cache"):
            assert not cached_qwen.prompt_cache.load(cached_qwen.llm, key, fields, tokens)
        assert why in caplog.text and not path.exists()
    _empty(cached_qwen)
    assert agent.warm(wait=True).info["source"] == "evaluated"


def test_another_tool_set_or_settings_never_reuse_an_entry(cached_qwen, caplog):
    tools = _tools()
    _warm_reply(cached_qwen, tools)
    original = _entry(cached_qwen)

    # one tool changed: another key, so a fresh entry; its reply is the cold one
    tools[0].description = "Switch a room's light on or off, optionally dimmed."
    cold = _cold_reply(cached_qwen, tools)
    reply, info = _warm_reply(cached_qwen, tools)
    assert info["source"] == "evaluated" and reply == cold
    changed = _agent(cached_qwen, tools)
    tokens = changed.prefix_tokens()
    key = state_key(cached_qwen.state_fields(), tokens)

    # a foreign file under this key (another prompt's state): refused, rebuilt
    cached_qwen.prompt_cache.path(key).write_bytes(original.read_bytes())
    with caplog.at_level(logging.WARNING, logger="edgevox.llm.prompt_cache"):
        reply, info = _warm_reply(cached_qwen, tools)
    assert info["source"] == "evaluated" and reply == cold
    assert "written for another" in caplog.text

    # other backend settings: refused by the header even under the same name
    fields = {**cached_qwen.state_fields(), "n_ctx": 1024}
    assert not cached_qwen.prompt_cache.load(cached_qwen.llm, key, fields, tokens)


def test_another_model_never_reuses_an_entry(cached_qwen, gemma_backend, caplog):
    _warm_reply(cached_qwen)
    cached_qwen_entry = _entry(cached_qwen)
    gemma_backend.prompt_cache, old = cached_qwen.prompt_cache, gemma_backend.prompt_cache
    try:
        tokens = _agent(gemma_backend).prefix_tokens()
        key = state_key(gemma_backend.state_fields(), tokens)
        assert gemma_backend.state_fields()["model_sha256"] != cached_qwen.state_fields()["model_sha256"]
        # Qwen's state under Gemma's key: refused (the header names another model)
        cached_qwen.prompt_cache.path(key).write_bytes(cached_qwen_entry.read_bytes())
        cold = _cold_reply(gemma_backend)
        with caplog.at_level(logging.WARNING, logger="edgevox.llm.prompt_cache"):
            reply, info = _warm_reply(gemma_backend)
        assert info["source"] == "evaluated" and reply == cold
        assert "ignoring" in caplog.text
        reply, info = _warm_reply(gemma_backend)
        assert info["source"] == "disk" and reply == cold
    finally:
        gemma_backend.prompt_cache = old


def test_cache_is_bounded_oldest_first(tmp_path):
    cache = PromptCache(tmp_path, limit_mb=2.5 / 1024)  # 2.5 KiB
    for i, name in enumerate(("a", "b", "c")):
        p = cache.path(name)
        p.write_bytes(b"x" * 1024)
        os.utime(p, ns=(i * 10**9, i * 10**9))
    gone = cache.evict()
    assert [p.stem for p in gone] == ["a"]
    assert sorted(p.stem for p in tmp_path.glob("*.kv")) == ["b", "c"]


def test_a_warm_up_that_outlives_its_model_ends_cleanly(gemma_path, tmp_path):
    """Closing the model while its prefix is being warmed: the warm-up either finished
    first or stops with an error; it never touches the freed context."""
    from edgevox.llm import load_model

    backend = load_model(str(gemma_path), preset="gemma3", n_ctx=1024, prompt_cache=tmp_path)
    job = LLMAgent("vox", "", INSTRUCTIONS, tools=_tools(), model=backend).warm_job
    backend.close()
    job.wait()
    assert job.done
    assert job.info is not None or "closed" in (job.error or "")


def test_a_side_generation_gives_the_prefix_back(qwen_backend):
    """``kept_state`` (the own-layout hop's second prompt): the warmed prefix is in the KV
    cache again afterwards, and the reply after it is the one without the side generation."""
    agent = _agent(qwen_backend)
    prefix = agent.prefix_tokens()
    qwen_backend.warm_prefix(prefix, persist=False)
    before = _reply(agent)
    qwen_backend.warm_prefix(prefix, persist=False)
    with qwen_backend.kept_state():
        qwen_backend.complete([{"role": "user", "content": "Say hello in French."}], max_tokens=8, temperature=0.0)
        assert not qwen_backend.holds_prefix(prefix)
    assert qwen_backend.holds_prefix(prefix)
    assert _reply(agent) == before
