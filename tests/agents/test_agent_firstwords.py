"""First words fast: one-hop tool turns (``@tool(say=)``), calls that start while the model
still decodes, decoding that ends at the call, the warm prompt prefix.

The loop logic runs on the scripted backend; the same behaviours run on the real
Qwen2.5-Coder-0.5B at the end of this file.
"""

from __future__ import annotations

import threading

from agent_fakes import ScriptedBackend, call

from edgevox.agents import LLMAgent, default_slm_hooks
from edgevox.llm import TextStream
from edgevox.tools import tool


def _tools(log: list | None = None, started: threading.Event | None = None):
    @tool(say="The {room} light is {state}.")
    def set_light(room: str, on: bool) -> dict:
        """Switch a light.

        Args:
            room: Which room.
            on: On or off.
        """
        if started is not None:
            started.set()
        if log is not None:
            log.append(room)
        return {"room": room, "state": "on" if on else "off"}

    @tool(say=lambda r: f"It is {r['time']}.")
    def get_time() -> dict:
        """The time."""
        return {"time": "14:05"}

    @tool(say="{missing} field")
    def broken_say() -> dict:
        """A tool whose sentence names a field its result lacks."""
        return {"x": 1}

    @tool(say="Set to {level}.")
    def set_volume(level: int) -> dict:
        """Volume.

        Args:
            level: Percent.
        """
        if level > 100:
            raise ValueError("at most 100")
        return {"level": level}

    @tool
    def plain() -> str:
        """No sentence of its own."""
        return "done"

    return [set_light, get_time, broken_say, set_volume, plain]


def _agent(script, **kw) -> tuple[LLMAgent, ScriptedBackend]:
    backend = ScriptedBackend(script, **kw.pop("backend_opts", {}))
    return LLMAgent("t", tools=kw.pop("tools", None) or _tools(), model=backend, **kw), backend


def test_say_speaks_without_a_second_hop_and_the_session_keeps_both():
    agent, backend = _agent([call("set_light", room="kitchen", on=True) + "\n"
                             + call("get_time")])
    r = agent.run("Kitchen light on, and what time is it?")
    assert r.reply == "The kitchen light is on. It is 14:05."
    assert r.hops == 1 and len(backend.requests) == 1
    assert agent.loop_stats.get("one_hop_replies") == 1
    roles = [m["role"] for m in agent.session.messages]
    assert roles == ["user", "assistant", "tool", "tool", "assistant"]
    assert agent.session.messages[1]["tool_calls"][0]["function"]["name"] == "set_light"
    assert agent.session.messages[-1]["content"] == r.reply


def test_the_model_words_it_when_a_call_fails_or_has_no_sentence():
    for first in (call("set_volume", level=150),  # the tool raises
                  call("plain"),  # no say=
                  call("broken_say"),  # say= names a field that is not there
                  call("get_time") + "\n" + call("plain")):  # one of two has none
        agent, backend = _agent([first, "Here is what happened."])
        r = agent.run("Do it.")
        assert r.reply == "Here is what happened.", first
        assert r.hops == 2 and len(backend.requests) == 2
        assert "one_hop_replies" not in agent.loop_stats


def test_a_hooks_stand_in_result_is_worded_by_the_model_not_by_say(caplog):
    """The loop guard answers a repeated call with a note, not a result of the tool's own
    shape: ``say=`` would fail on it (a KeyError logged), so the model words the turn."""
    from edgevox.agents.slm import LoopGuard

    agent, backend = _agent([call("get_time") + "\n" + call("get_time"), "It is five past two."],
                            hooks=[LoopGuard()])
    with caplog.at_level("WARNING", logger="edgevox.tools"):
        r = agent.run("What time is it?")
    assert r.reply == "It is five past two."
    assert [c.dispatched for c in r.calls] == [True, False]
    assert r.hops == 2 and "one_hop_replies" not in agent.loop_stats
    assert "could not word" not in caplog.text


def test_a_call_starts_while_the_model_still_decodes():
    started = threading.Event()
    seen: list[bool] = []

    agent, backend = _agent([call("set_light", room="hall", on=True)], tools=_tools(started=started), hooks=default_slm_hooks())
    inner = backend.stream

    def stream(*a, **kw):  # after the call is written, wait to see whether it already runs
        first = inner(*a, **kw)

        def pieces(done):
            yield from first
            seen.append(started.wait(5.0))
            yield "\n"
            done(first.completion)

        return TextStream(pieces)

    backend.stream = stream
    r = agent.run("Hall light on.")
    assert seen == [True]
    assert r.reply == "The hall light is on."
    assert agent.loop_stats.get("early_dispatches") == 1
    assert "early_calls_unused" not in agent.loop_stats
    assert [c.name for c in r.calls] == ["set_light"] and r.calls[0].dispatched


class _BargeIn:
    """A backend whose streams end the turn once the streamed call has started, while the
    model still decodes (the person speaks again): the next piece, or the end of the
    generation, sees the turn's stop event set."""

    def __init__(self, backend, started: threading.Event, stop: threading.Event):
        self._backend, self._started, self._stop = backend, started, stop

    def __getattr__(self, name):
        return getattr(self._backend, name)

    def stream(self, *a, **kw):
        inner = self._backend.stream(*a, **kw)

        def pieces(done):
            for piece in inner:
                if self._started.is_set():
                    self._stop.set()
                yield piece
            if self._started.wait(10.0):
                self._stop.set()
            done(inner.completion)

        return TextStream(pieces)


def _blocking_unlock(started: threading.Event, release: threading.Event):
    @tool(timeout=30)
    def unlock_door(door: str) -> str:
        """Unlock a door of the house.

        Args:
            door: Which door, e.g. front.
        """
        started.set()
        release.wait(30)
        return "unlocked"

    return unlock_door


def test_a_call_started_early_then_cancelled_is_in_the_record():
    started, release, stop = threading.Event(), threading.Event(), threading.Event()
    backend = ScriptedBackend([call("unlock_door", door="front") + " and now a long tail of words " * 20],
                              delay=0.002)
    agent = LLMAgent("t", tools=[_blocking_unlock(started, release)], model=_BargeIn(backend, started, stop),
                     hooks=default_slm_hooks())
    try:
        r = agent.run("Unlock the front door.", stop_event=stop)
    finally:
        release.set()
    assert r.stopped_reason == "cancelled"
    assert [(c.name, c.arguments, c.error_type) for c in r.calls] == [("unlock_door", {"door": "front"}, "cancelled")]
    assert agent.loop_stats.get("early_dispatches") == 1 and agent.session.messages == []


def test_a_finished_early_call_of_a_cancelled_turn_keeps_its_result():
    ran: list[str] = []
    started, stop = threading.Event(), threading.Event()
    backend = ScriptedBackend([call("set_light", room="hall", on=True) + " and more words " * 20], delay=0.002)
    agent = LLMAgent("t", tools=_tools(log=ran, started=started), model=_BargeIn(backend, started, stop),
                     hooks=default_slm_hooks())
    r = agent.run("Hall light on.", stop_event=stop)
    assert r.stopped_reason == "cancelled" and ran == ["hall"]
    rec = r.calls[0]
    assert (rec.name, rec.ok, rec.result) == ("set_light", True, {"room": "hall", "state": "on"})


def test_no_early_start_when_an_after_llm_hook_could_drop_the_call():
    from edgevox.agents import FunctionHook

    ran: list[str] = []
    drop = FunctionHook("after_llm", lambda ctx, out: None, name="may_drop")
    agent, _ = _agent([call("set_light", room="hall", on=True)], tools=_tools(log=ran), hooks=[drop])
    r = agent.run("Hall light on.")
    assert r.reply == "The hall light is on." and ran == ["hall"]
    assert "early_dispatches" not in agent.loop_stats


def test_every_shipped_after_llm_hook_keeps_calls():
    # one after_llm hook that may drop or change a completed call turns early dispatch off for
    # every agent that carries it (session 18: a hook that dropped a copied number cost every
    # voice turn its early call, and only the timing tests above noticed); a shipped hook that
    # must change calls has to do it where no call has started yet, and say so here
    from edgevox.examples.home import home_hooks

    for hooks in (default_slm_hooks(), home_hooks()):
        for h in hooks:
            if "after_llm" in h.points():
                assert h.keeps_calls, f"{type(h).__name__}.after_llm: set keeps_calls or early dispatch is off"


def test_one_call_allowed_ends_decoding_at_the_call():
    text = call("set_light", room="hall", on=True) + "\n" + call("get_time")
    agent, _ = _agent([text], parallel_tool_calls=False)
    r = agent.run("Hall light on.")
    assert [c.name for c in r.calls] == ["set_light"]
    assert r.reply == "The hall light is on."


def test_prompt_prefix_heads_every_hop():
    agent, backend = _agent([call("plain"), "Done."], instructions="Be brief.")
    assert agent.prompt_prefix() == [{"role": "system", "content": "Be brief."}]
    agent.run("Go.")
    for req in backend.requests:
        assert req["messages"][0] == {"role": "system", "content": "Be brief."}
    assert agent.warm_job is None  # the scripted backend keeps no KV cache


# -- the same on the real model ----------------------------------------------------------


def test_real_model_one_hop_home_turn(qwen_backend):
    from edgevox.examples.home import home_agent

    agent, home = home_agent(qwen_backend, policy="required_first_hop", max_tokens=64)
    assert agent.warm_job is not None and agent.warm_job.wait() is not None
    r = agent.run("Turn on the kitchen light.")
    assert home.lights["kitchen"] is True
    assert r.hops == 1 and r.calls[0].name == "set_light"
    assert r.reply.startswith("The kitchen light is on")
    assert agent.loop_stats.get("early_dispatches") == 1
    assert [m["role"] for m in agent.session.messages] == ["user", "assistant", "tool", "assistant"]
    # the next turn sees the exchange: the prefix is still the cached one
    assert agent.warm(wait=True).info["source"] == "memory"


def test_real_model_warm_up_builds_what_the_first_turn_decodes_with(qwen_backend):
    """A fresh process's first turn used to build the model's mask engine (llguidance's
    tokenizer over the vocabulary, ~1 s) and compile its grammars; the warm-up does both
    before READY, so the turn compiles nothing."""
    from edgevox.examples.home import home_agent
    from edgevox.llm.constrained import engines

    backend = qwen_backend.with_preset(qwen_backend.preset)  # the same model, no mask engine yet
    setattr(backend, engines._ENGINE_ATTR, {})
    agent, home = home_agent(backend, policy="required_first_hop", max_tokens=64)
    info = agent.warm_job.wait()
    assert info is not None and info["grammars"] >= 1
    # and the relevance gate's own model is loaded before READY, not during the first turn
    assert agent.warm_job.hooks_prepared == ["relevance"]
    # the rehearsed decode was taken back: the cache holds the prefix and nothing more
    assert backend.llm.n_tokens == len(agent.warm_job.tokens) and backend.holds_prefix(agent.warm_job.tokens)
    engine = getattr(backend, engines._ENGINE_ATTR)[backend.mask_engine]  # built by the warm-up
    compiled, built = engine.compiled, agent.grammar_cache.stats()["misses"]
    r = agent.run("Turn on the kitchen light.")
    assert home.lights["kitchen"] is True and r.calls[0].name == "set_light"
    assert engine.compiled == compiled and agent.grammar_cache.stats()["misses"] == built
    assert getattr(backend, engines._ENGINE_ATTR)[backend.mask_engine] is engine


def test_real_model_a_turn_that_loses_the_prefix_restores_it(qwen_backend):
    """A hop with no tools renders no tool schemas, so the KV cache no longer starts with
    the warm prefix after it; the agent restores the prefix in the background at the end
    of the turn instead of leaving the next turn to evaluate it all again."""
    from edgevox.examples.home import home_agent

    agent, _home = home_agent(qwen_backend, policy="required_first_hop", max_tokens=24)
    first = agent.warm_job.wait()
    assert first is not None and qwen_backend.holds_prefix(agent.warm_job.tokens)
    agent.run("Say hello.", tool_choice="none")  # no tools offered: another prompt head
    assert agent.loop_stats.get("prefix_restores") == 1
    again = agent.warm_job.wait()
    assert again is not None and again["source"] in ("disk", "evaluated")
    assert qwen_backend.holds_prefix(agent.warm_job.tokens)
    agent.run("Turn on the kitchen light.")  # a turn that keeps the prefix: nothing to restore
    assert agent.loop_stats.get("prefix_restores") == 1


def test_real_model_prefill_puts_the_users_words_in_the_cache_before_the_turn(qwen_backend):
    """``edgevox voice`` prefills the speculative transcript while the endpointer waits; the
    turn then finds the user's words evaluated and makes the same call."""
    from edgevox.examples.home import home_agent

    agent, _home = home_agent(qwen_backend, policy="required_first_hop", max_tokens=64)
    agent.warm_job.wait()
    text = "Turn off the bedroom light."
    cold = agent.run(text)
    agent.reset()
    agent.warm(wait=True)  # the KV cache back to the prefix alone
    assert agent.prefill(text) > 0
    assert agent.prefill(text) == 0  # already there: nothing more to evaluate
    warm = agent.run(text)
    assert [(c.name, c.arguments) for c in warm.calls] == [(c.name, c.arguments) for c in cold.calls]
    assert warm.calls and warm.calls[0].name == "set_light"


def test_real_model_early_call_cancelled_mid_turn_is_recorded(qwen_backend):
    started, release, stop = threading.Event(), threading.Event(), threading.Event()
    agent = LLMAgent("t", tools=[_blocking_unlock(started, release)], model=_BargeIn(qwen_backend, started, stop),
                     tool_choice_policy="required_first_hop", hooks=default_slm_hooks(), max_tokens=64)
    try:
        r = agent.run("Please unlock the front door.", stop_event=stop)
    finally:
        release.set()
    assert started.is_set() and r.stopped_reason == "cancelled"
    assert [(c.name, c.error_type) for c in r.calls] == [("unlock_door", "cancelled")]
    assert agent.loop_stats.get("early_dispatches") == 1 and agent.session.messages == []
