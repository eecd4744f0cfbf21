"""An example home-assistant tool set over a simulated home.

Eleven tools: lights by room and brightness, the thermostat, timers (start and cancel),
media (play/pause/skip, play something), volume, the shopping list (add, remove), the
weather and the time. The demo, the voice tests, the benchmarks and the home evaluation
(``edgevox eval home``) use it, so the tools change real state that a caller can inspect
(``home.lights["kitchen"]``, ``home.timers``, ``home.shopping``) instead of returning
canned strings: an evaluation checks what actually happened, not what the model said.

What is deliberately *not* here: tools that read a device's state or a timer's time left,
and anything for fans, blinds, garage doors, vacuums or mowers. A home assistant built on
this registry should leave such requests alone (answer in words), and the evaluation
counts a call for them as an unwanted action.
"""

from __future__ import annotations

import datetime as _dt
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from edgevox.tools import Tool, tool

Room = Literal["kitchen", "living room", "dining room", "bedroom", "bathroom", "office", "hallway",
               "garage", "all"]
#: the rooms with a light ("all" in ``Room`` means every one of them)
ROOMS: tuple[str, ...] = ("kitchen", "living room", "dining room", "bedroom", "bathroom", "office",
                          "hallway", "garage")
MediaAction = Literal["play", "pause", "stop", "next", "previous"]
Unit = Literal["celsius", "fahrenheit"]

THERMOSTAT_C = (10.0, 30.0)  # what the simulated thermostat accepts, in Celsius

#: the system instructions of `edgevox voice` (and `demo`, and the home evaluation)
HOME_INSTRUCTIONS = (
    "You are a voice assistant for a home. Use the tools to control the lights, the thermostat, "
    "timers, music and volume and the shopping list, or to tell the weather and the time. "
    "Answer in one short sentence without markup."
)


#: What each tool's demonstrations show the model (``@tool(examples=)``): short, spoken
#: phrasings written for this project -- none is taken from the evaluation sets. They teach
#: the argument habits a 0.5B model misses: a timer's label from the user's words, hours
#: and minutes apart, brightness only when asked. The first two of each are shown; all of
#: them tell the grounding hook what a tool is about (``edgevox.agents.slm.grounding``).
EXAMPLES: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "set_light": [("Lights off in the bedroom.", {"room": "bedroom", "on": False}),
                  ("Dim the living room light to 40 percent.", {"room": "living room", "on": True, "brightness": 40})],
    "set_thermostat": [("Heat the house to 22 degrees.", {"temperature": 22, "unit": "celsius"})],
    "start_timer": [("Rice timer, 1 hour 5 minutes.", {"hours": 1, "minutes": 5, "label": "rice"}),
                    ("Timer for 90 seconds.", {"seconds": 90})],
    "cancel_timer": [("Stop the rice timer.", {"label": "rice"})],
    "media_control": [("Skip this song.", {"action": "next"})],
    "play_music": [("Play something classical.", {"query": "classical"})],
    "set_volume": [("Louder, please.", {"change": "up"}), ("Volume to 30.", {"level": 30}),
                   ("Quieter.", {"change": "down"}), ("Turn the music down a little.", {"change": "down"})],
    "add_to_shopping_list": [("Eggs on the shopping list, please.", {"item": "eggs"})],
    "remove_from_shopping_list": [("Take bread off the shopping list.", {"item": "bread"})],
    "get_weather": [("Is rain expected today?", {}), ("Is it sunny out? Do I need a coat?", {}),
                    ("Forecast for tomorrow?", {})],
    "get_time": [("What's the time now?", {})],
}


#: Other ways people ask for each tool (``@tool(phrasings=)``): never shown to the model (no
#: prompt tokens); the relevance gate compares a request with them by meaning to tell which
#: tool it means, where two examples a tool are too few ("Unpause." sat nearer a timer than the
#: music). Terse, colloquial and indirect, written for this project; none is an evaluation
#: set's utterance (tests/evals/test_home_eval.py checks).
PHRASINGS: dict[str, list[str]] = {
    "set_light": [
        "Turn on the light.", "Switch the lamp off.", "Lights out in the kitchen.", "Kill the lights.",
        "Lights up in the office.", "Make the bedroom brighter.", "Dim the hallway.", "Bathroom light to 30 percent.",
        "Brightness 70 in the living room.", "Light on.", "Garage lights off, please.", "Can I get some light in here?",
        "Lamp on in the dining room.", "Turn every light off.", "Full brightness in the kitchen.",
    ],
    "set_thermostat": [
        "Set the heating to 21.", "Thermostat 19.", "Make it warmer, 23 degrees.", "Cool it down to 18 degrees.",
        "Turn the heat up to 22.", "Temperature to 20 please.", "Set the AC to 68 fahrenheit.", "Heating on 24.",
        "I'm cold, set the thermostat to 23.", "Drop the temperature to 17.", "Change the thermostat to 21 degrees.",
    ],
    "start_timer": [
        "Set a timer for twelve minutes.", "Timer 5 minutes.", "2 hour timer.", "Start a countdown for 30 seconds.",
        "Remind me in 20 minutes.", "Pasta timer, 11 minutes.", "Timer for an hour.", "Set an alarm for 15 minutes from now.",
        "Three minute timer for the tea.", "Count down 45 minutes.", "Timer, one and a half hours.",
        "Start a 90 second timer.", "Give me a 25 minute timer.",
    ],
    "cancel_timer": [
        "Cancel my timer, please.", "Stop that timer now.", "Delete the pasta timer.", "Kill that countdown.", "Switch the timer off.",
        "Get rid of the 10 minute timer.", "Clear my timer.", "Cancel the bread timer.", "Remove the timer.",
        "Scrap the kitchen timer.", "Abort the countdown.",
    ],
    "media_control": [
        "Pause for a sec.", "Pause the song.", "Resume.", "Unpause the song.", "Continue playing.", "Keep playing.", "Press play.",
        "Stop playing.", "Next.", "Skip it.", "Next one.", "Skip this song.", "Previous track.",
        "Go back one song.", "Back a track.", "Play the last song again.", "Hold the music.", "Carry on with the music.",
    ],
    "play_music": [
        "Play some blues.", "Put on the Beatles.", "Play music.", "Play something relaxing.", "I want to hear rock.",
        "Play my running playlist.", "Put some music on.", "Play Adele.", "Can you play hip hop?",
        "Play the album Abbey Road.", "Some classical, please.", "Play the radio.",
    ],
    "set_volume": [
        "Volume up a notch.", "Volume down.", "Turn it up.", "Turn it down.", "A bit louder.", "Make it quieter.", "That's too loud.",
        "I can't hear it.", "Set the volume to 35.", "Volume 70.", "Mute.", "Mute the sound.", "Volume all the way up.",
        "Lower the volume.", "Raise the volume a bit.", "Volume to zero.",
    ],
    "add_to_shopping_list": [
        "Add milk to the list.", "Put bread on the shopping list.", "We need eggs.", "We're out of coffee.",
        "Add bananas to my groceries.", "Shopping list, add butter.", "Remember to buy cheese.",
        "Put dish soap on the list.", "Add two apples to the shopping list.", "Note that we need rice.",
    ],
    "remove_from_shopping_list": [
        "Remove milk from the list.", "Take eggs off the shopping list.", "Cross off the bread.",
        "Delete cheese from my groceries.", "We don't need butter anymore.", "Scratch coffee off the list.",
        "Remove apples from the shopping list.", "Got the rice, take it off the list.",
    ],
    "get_weather": [
        "What's the weather?", "Weather report.", "How's the weather today?", "Is it raining?", "Will it snow tomorrow?",
        "How chilly is it out there?", "What's the temperature out there?", "Do I need an umbrella?", "Is it a nice day?",
        "What's the forecast for today?", "Is it cold out this morning?", "Should I wear a jacket?", "Weather in London.", "Is it windy outside?",
        "Is it going to be wet or dry later?", "Do I need a sweater today?",
    ],
    "get_time": [
        "The time?", "What's the time right now?", "Tell me the time.", "Do you have the time?",
        "What's the current time?", "Clock.", "What time is it now?", "What's the date today?", "What day is it?",
        "Quick time check, please.", "Is it noon yet?",
    ],
}


#: Whole rounds (``@tool(rounds=)``): a request, its call, the result and the short answer
#: spoken after it, shown once per tool in the prompt prefix. Why: when the model words a
#: result (a tool without ``say=``, or one whose sentence cannot be made), it answered by
#: saying the request back ("Turn on the kitchen light." -> "Turn on the kitchen light.");
#: one round that ends in a sentence about the result shows that hop what it is for.
#: Written for this project, none from an evaluation set.
ROUNDS: dict[str, list[tuple[str, dict[str, Any], Any, str]]] = {
    "set_light": [("Lights on in the dining room, please.", {"room": "dining room", "on": True},
                   {"room": "dining room", "on": True, "brightness": 100}, "The dining room light is on.")],
    "get_weather": [("Is it cold outside?", {},
                     {"location": "home", "temp_c": 9, "sky": "cloudy", "rain_chance": 70},
                     "It's 9 degrees and cloudy, with a 70 percent chance of rain.")],
}


@dataclass
class Home:
    """The state the tools change; thread-safe because tools may run concurrently."""

    lights: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(ROOMS, False))
    brightness: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ROOMS, 100))
    thermostat_c: float = 20.0
    timers: list[dict] = field(default_factory=list)
    media: dict = field(default_factory=lambda: {"state": "stopped", "playing": None, "volume": 40})
    shopping: list[str] = field(default_factory=list)
    weather: dict = field(default_factory=lambda: {"temp_c": 14, "sky": "partly cloudy", "rain_chance": 20})
    now: _dt.datetime | None = None  # fixed clock for reproducible runs
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def summary(self) -> str:
        on = [r for r, v in self.lights.items() if v] or ["none"]
        timers = ", ".join(f"{t['label']} {_duration(t['seconds'])}" for t in self.timers) or "none"
        return (f"lights on: {', '.join(on)} | thermostat: {self.thermostat_c:g} °C | timers: {timers} | "
                f"media: {self.media['state']} (volume {self.media['volume']}) | "
                f"shopping: {', '.join(self.shopping) or 'empty'}")

    def tools(self) -> list[Tool]:
        """The tools bound to this home."""
        home = self

        @tool(say=_say_light, examples=EXAMPLES["set_light"], phrasings=PHRASINGS["set_light"], rounds=ROUNDS["set_light"])
        def set_light(room: Room, on: bool, brightness: int | None = None) -> dict:
            """Switch the light of a room on or off, or set its brightness. Only lights:
            not fans, blinds, doors or other devices.

            Args:
                room: Which room's light; "all" for every light in the home.
                on: True to switch the light on, False to switch it off.
                brightness: Brightness in percent, 1 to 100 (only when dimming or brightening).
            """
            rooms = ROOMS if room == "all" else (room,)
            with home._lock:
                for r in rooms:
                    home.lights[r] = on
                    if brightness is not None:
                        home.brightness[r] = max(1, min(100, brightness))
                level = home.brightness[rooms[0]]
            return {"room": room, "on": on, "brightness": level}

        @tool(say=lambda r: f"The thermostat is set to {r['thermostat']:g} degrees {r['unit'].capitalize()}.",
              examples=EXAMPLES["set_thermostat"], phrasings=PHRASINGS["set_thermostat"])
        def set_thermostat(temperature: float, unit: Unit = "celsius") -> dict:
            """Set the heating/cooling thermostat of the home to a target temperature.

            Args:
                temperature: Target temperature.
                unit: "celsius" or "fahrenheit".
            """
            celsius = temperature if unit == "celsius" else round((temperature - 32) * 5 / 9, 1)
            lo, hi = THERMOSTAT_C
            if not lo <= celsius <= hi:
                raise ValueError(f"the thermostat accepts {lo:g} to {hi:g} degrees Celsius (50 to 86 Fahrenheit)")
            with home._lock:
                home.thermostat_c = celsius
            return {"thermostat": temperature, "unit": unit}

        @tool(say=lambda r: f"Timer set for {_spoken(r['length'])}.", examples=EXAMPLES["start_timer"], phrasings=PHRASINGS["start_timer"])
        def start_timer(minutes: int = 0, hours: int = 0, seconds: int = 0, label: str = "timer") -> dict:
            """Start a countdown timer of a given length (minutes, hours and/or seconds).

            Args:
                minutes: Whole minutes of the length.
                hours: Whole hours of the length.
                seconds: Whole seconds of the length.
                label: A name for the timer, only when the user gives one.
            """
            total = hours * 3600 + minutes * 60 + seconds
            if total <= 0:
                raise ValueError("say how long the timer should run")
            if total > 24 * 3600:
                raise ValueError("timers run for at most 24 hours")
            with home._lock:
                home.timers.append({"label": label, "hours": hours, "minutes": minutes, "seconds": total})
            return {"started": label, "length": _duration(total)}

        @tool(say=lambda r: f"The {_spoken(r['length'])} timer is cancelled.", examples=EXAMPLES["cancel_timer"], phrasings=PHRASINGS["cancel_timer"])
        def cancel_timer(label: str | None = None) -> dict:
            """Cancel (stop, delete) a running timer.

            Args:
                label: Which timer, by its label or its length (e.g. "pasta", "10 minutes");
                    leave out to cancel the most recent one.
            """
            with home._lock:
                if not home.timers:
                    raise ValueError("no timer is running")
                pick = _find_timer(home.timers, label)
                if pick is None:
                    raise ValueError(f"no timer matches {label!r}")
                home.timers.remove(pick)
            return {"cancelled": pick["label"], "length": _duration(pick["seconds"])}

        @tool(say=lambda r: _MEDIA_SAID[r["action"]], examples=EXAMPLES["media_control"], phrasings=PHRASINGS["media_control"])
        def media_control(action: MediaAction) -> dict:
            """Control what is playing on the speakers: play (resume), pause, stop, next or
            previous track.

            Args:
                action: One of play, pause, stop, next, previous.
            """
            with home._lock:
                m = home.media
                if action == "play":
                    m["state"] = "playing"
                    m["playing"] = m["playing"] or "your playlist"
                elif action in ("pause", "stop"):
                    m["state"] = "paused" if action == "pause" else "stopped"
                else:
                    m["state"] = "playing"
                return {"action": action, "state": m["state"], "playing": m["playing"]}

        @tool(say="Playing {playing}.", examples=EXAMPLES["play_music"], phrasings=PHRASINGS["play_music"])
        def play_music(query: str) -> dict:
            """Play music on the speakers: an artist, a genre, an album, a song or a playlist.

            Args:
                query: What to play, e.g. "jazz", "Taylor Swift", "relaxing music".
            """
            if not query.strip():
                raise ValueError("say what to play")
            with home._lock:
                home.media.update(state="playing", playing=query.strip())
            return {"playing": query.strip()}

        @tool(say="Volume set to {volume} percent.", examples=EXAMPLES["set_volume"], phrasings=PHRASINGS["set_volume"])
        def set_volume(level: int | None = None, change: Literal["up", "down"] | None = None) -> dict:
            """Set the speaker volume to a level, or turn it up or down a step.

            Args:
                level: Volume in percent, 0 to 100.
                change: "up" or "down" by one step of 10, when no level is given.
            """
            with home._lock:
                v = home.media["volume"]
                if level is not None:
                    v = level
                elif change is not None:
                    v += 10 if change == "up" else -10
                else:
                    raise ValueError("give a level or a change")
                home.media["volume"] = max(0, min(100, v))
                return {"volume": home.media["volume"]}

        @tool(say="Added {added} to the shopping list.", examples=EXAMPLES["add_to_shopping_list"], phrasings=PHRASINGS["add_to_shopping_list"])
        def add_to_shopping_list(item: str) -> dict:
            """Add an item to the shopping list.

            Args:
                item: The thing to buy, e.g. "milk".
            """
            item = item.strip()
            if not item:
                raise ValueError("say what to add")
            with home._lock:
                home.shopping.append(item)
            return {"added": item}

        @tool(say="Removed {removed} from the shopping list.", examples=EXAMPLES["remove_from_shopping_list"], phrasings=PHRASINGS["remove_from_shopping_list"])
        def remove_from_shopping_list(item: str) -> dict:
            """Remove an item from the shopping list.

            Args:
                item: The thing to take off the list.
            """
            with home._lock:
                hit = next((s for s in home.shopping if s.lower() == item.strip().lower()), None) \
                    or next((s for s in home.shopping if _same_item(item, s)), None)
                if hit is None:
                    raise ValueError(f"{item!r} is not on the shopping list")
                home.shopping.remove(hit)
            return {"removed": hit}

        @tool(say=_say_weather, examples=EXAMPLES["get_weather"], phrasings=PHRASINGS["get_weather"], rounds=ROUNDS["get_weather"])
        def get_weather(location: str | None = None) -> dict:
            """Tell the weather outside: temperature, sky and chance of rain.

            Args:
                location: A city; leave out for the weather at home.
            """
            return {"location": location or "home", **home.weather}

        @tool(say="It is {time} on {weekday}.", examples=EXAMPLES["get_time"], phrasings=PHRASINGS["get_time"])
        def get_time() -> dict:
            """Tell the current local time and date."""
            now = home.now or _dt.datetime.now()
            return {"time": now.strftime("%H:%M"), "weekday": now.strftime("%A"), "date": now.strftime("%d %B %Y")}

        return [set_light, set_thermostat, start_timer, cancel_timer, media_control, play_music, set_volume,
                add_to_shopping_list, remove_from_shopping_list, get_weather, get_time]


def home_hooks() -> list[Any]:
    """The voice assistant's hooks: follow-ups ("And the office too." after a light call),
    what a complaint or a bare "more" wants ("It's too dark in the hallway.", "Bit more."), the
    relevance gate (sentence embeddings of the tools' examples against generic no-tool
    lines), the undone half of a two-action request (by the gate's embeddings) and the
    default SLM hooks."""
    from edgevox.agents import default_slm_hooks
    from edgevox.agents.slm.follow_up import FollowUp
    from edgevox.agents.slm.listed import ListedItems
    from edgevox.agents.slm.relevance import RelevanceGate
    from edgevox.agents.slm.remainder import Remainder
    from edgevox.agents.slm.wants import Wants

    gate = RelevanceGate()
    slm = [ListedItems(leave=frozenset({"add_to_shopping_list"})) if h.name == ListedItems.name else h
           for h in default_slm_hooks(relevance=False)]  # the shopping list's items: Wants, one hop each
    return [FollowUp(), Wants(), gate, Remainder(gate=gate), *slm]


def home_agent(model: Any, *, home: Home | None = None, preset: Any = None, policy: str | None = None,
               max_tokens: int = 160, extra_tools: Sequence[Any] = (), **options: Any) -> tuple[Any, Home]:
    """The home-assistant agent exactly as `edgevox voice` builds it, and the home it controls.

    One place, so the home evaluation measures what the voice assistant ships: the same
    instructions, SLM hooks, token budget and greedy decoding; ``options`` go to ``LLMAgent``.
    ``policy`` None leaves the choice to ``LLMAgent`` (its default, or the preset's profile).
    ``extra_tools`` join the home's (a message reader, for ``edgevox.evals.injected``).
    """
    from edgevox.agents import LLMAgent

    home = home if home is not None else Home()
    options.setdefault("temperature", 0.0)
    options.setdefault("hooks", home_hooks())
    agent = LLMAgent("vox", "home voice assistant", HOME_INSTRUCTIONS, tools=[*home.tools(), *extra_tools], model=model,
                     preset=preset, max_tokens=max_tokens,
                     **({"tool_choice_policy": policy} if policy is not None else {}), **options)
    return agent, home


# -- how results are spoken (@tool(say=...)): one hop, no second pass through the model --

_MEDIA_SAID = {"play": "Playing.", "pause": "Paused.", "stop": "Stopped.", "next": "Next track.",
               "previous": "Previous track."}
_UNIT_WORDS = {"h": "hour", "min": "minute", "s": "second"}


def _spoken(length: str) -> str:
    """ "1 h 30 min" -> "1 hour 30 minutes" (what a voice should say)."""
    words = length.split()
    out = []
    for n, unit in zip(words[::2], words[1::2], strict=False):
        word = _UNIT_WORDS.get(unit, unit)
        out.append(f"{n} {word}{'' if n == '1' else 's'}")
    return " ".join(out) or length


def _say_light(r: dict) -> str:
    state = "on" if r["on"] else "off"
    if r["room"] == "all":
        return f"All the lights are {state}."
    level = f" at {r['brightness']} percent" if r["on"] and r["brightness"] < 100 else ""
    return f"The {r['room']} light is {state}{level}."


def _say_weather(r: dict) -> str:
    where = "" if r["location"] == "home" else f" in {r['location']}"
    return (f"It is {r['temp_c']} degrees and {r['sky']}{where}, "
            f"with a {r['rain_chance']} percent chance of rain.")


def _duration(seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    parts = [f"{h} h" if h else "", f"{m} min" if m else "", f"{s} s" if s else ""]
    return " ".join(p for p in parts if p)


#: how much of a thing, said before it: "3 onions", "2 litres of milk", "a dozen eggs"
_QUANTITY = re.compile(r"^(?:(?:\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|some|the|dozen|couple)\s+"
                       r"|(?:of|kilos?|kg|grams?|g|litres?|liters?|pints?|packs?|packets?|bags?|boxes?|tins?|cans?|jars?"
                       r"|bottles?|tubs?|loaf|loaves|bunch(?:es)?|cartons?)\s+)+")


def _same_item(said: str, held: str) -> bool:
    """Is ``said`` the item ``held`` whatever quantity and number it was said with ("the 3
    onions" is "onion", "tomato" is "tomatoes")? A person takes off what they put on in other
    words."""
    def forms(item: str) -> list[set[str]]:
        return [{w, w[:-1] if w.endswith("s") else w, w[:-2] if w.endswith("es") else w}
                for w in _QUANTITY.sub("", item.strip().lower()).split()]
    a, b = forms(said), forms(held)
    return bool(a) and len(a) == len(b) and all(x & y for x, y in zip(a, b, strict=True))


def _find_timer(timers: list[dict], label: str | None) -> dict | None:
    """The timer a person means: by label, by length ("10 minutes"), or the latest."""
    if not label or label.strip().lower() in ("timer", "the timer", "my timer"):
        return timers[-1]
    want = label.strip().lower()
    for t in reversed(timers):
        if t["label"].lower() == want or want in t["label"].lower():
            return t
    m = re.match(r"(\d+)\s*(h|hour|hours|min|minute|minutes|s|sec|second|seconds)\b", want)
    if m:
        n, unit = int(m.group(1)), m.group(2)[0]
        secs = n * {"h": 3600, "m": 60, "s": 1}[unit]
        return next((t for t in reversed(timers) if t["seconds"] == secs), None)
    return None
