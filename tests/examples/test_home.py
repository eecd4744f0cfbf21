"""The example home: every tool changes the simulated state, and bad requests fail clearly."""

from __future__ import annotations

import datetime as dt

from edgevox.examples.home import ROOMS, Home
from edgevox.tools import ToolRegistry


def _reg() -> tuple[Home, ToolRegistry]:
    home = Home(now=dt.datetime(2026, 3, 4, 18, 30))
    return home, ToolRegistry(home.tools())


def test_the_registry_has_no_state_reading_tool():
    _, reg = _reg()
    names = set(reg.names())
    assert len(names) >= 8
    # questions about a device's state or a timer's time left are to be answered in words
    assert not any(w in n for n in names for w in ("status", "list_timers", "get_light", "get_thermostat", "fan"))


def test_lights_by_room_all_and_brightness():
    home, reg = _reg()
    assert reg.dispatch("set_light", {"room": "office", "on": True, "brightness": 100}).ok
    assert home.lights["office"] and home.brightness["office"] == 100
    assert reg.dispatch("set_light", {"room": "all", "on": False}).ok
    assert not any(home.lights.values())
    bad = reg.dispatch("set_light", {"room": "attic", "on": True})
    assert not bad.ok and set(home.lights) == set(ROOMS)


def test_thermostat_units_and_range():
    home, reg = _reg()
    assert reg.dispatch("set_thermostat", {"temperature": 23}).ok and home.thermostat_c == 23
    assert reg.dispatch("set_thermostat", {"temperature": 68, "unit": "fahrenheit"}).ok
    assert home.thermostat_c == 20.0
    r = reg.dispatch("set_thermostat", {"temperature": 72})  # 72 °C: refused, state kept
    assert not r.ok and "10 to 30" in r.error and home.thermostat_c == 20.0


def test_timers_start_and_cancel_by_label_or_length():
    home, reg = _reg()
    assert reg.dispatch("start_timer", {"hours": 2}).ok
    assert reg.dispatch("start_timer", {"minutes": 12, "label": "pasta"}).ok
    assert [t["seconds"] for t in home.timers] == [7200, 720]
    assert not reg.dispatch("start_timer", {}).ok  # no length: an error, no timer
    assert reg.dispatch("cancel_timer", {"label": "pasta"}).value["cancelled"] == "pasta"
    assert reg.dispatch("cancel_timer", {"label": "2 hours"}).ok and home.timers == []
    assert not reg.dispatch("cancel_timer", {}).ok


def test_media_volume_shopping_weather_time():
    home, reg = _reg()
    assert reg.dispatch("play_music", {"query": "jazz"}).ok and home.media["playing"] == "jazz"
    assert reg.dispatch("media_control", {"action": "pause"}).ok and home.media["state"] == "paused"
    assert reg.dispatch("set_volume", {"change": "up"}).ok and home.media["volume"] == 50
    assert reg.dispatch("set_volume", {"level": 15}).ok and home.media["volume"] == 15
    assert reg.dispatch("add_to_shopping_list", {"item": "milk"}).ok and home.shopping == ["milk"]
    assert reg.dispatch("remove_from_shopping_list", {"item": "Milk"}).ok and home.shopping == []
    assert not reg.dispatch("remove_from_shopping_list", {"item": "eggs"}).ok
    # an item said with its quantity or in another number is the one on the list (dev42, session 30:
    # "Remove the 3 onions from the list." was refused)
    home.shopping += ["onions", "tomato", "oat milk"]
    assert reg.dispatch("remove_from_shopping_list", {"item": "3 onions"}).value == {"removed": "onions"}
    assert reg.dispatch("remove_from_shopping_list", {"item": "2 tomatoes"}).value == {"removed": "tomato"}
    assert not reg.dispatch("remove_from_shopping_list", {"item": "milk"}).ok and home.shopping == ["oat milk"]
    home.shopping.clear()
    assert reg.dispatch("get_weather", {}).value["location"] == "home"
    assert reg.dispatch("get_time", {}).value["time"] == "18:30"
    assert "volume 15" in home.summary()
