"""A small home-assistant tool set: lights, thermostat, timers and the time.

The demo, the voice tests and the benchmarks use it, so it keeps real state that a
test can inspect (`home.lights["kitchen"]`) instead of returning canned strings.
"""

from __future__ import annotations

import datetime as _dt
import threading
from dataclasses import dataclass, field
from typing import Literal

from edgevox.tools import Tool, tool

Room = Literal["kitchen", "living room", "bedroom", "bathroom", "office", "hallway"]
ROOMS: tuple[str, ...] = ("kitchen", "living room", "bedroom", "bathroom", "office", "hallway")


@dataclass
class Home:
    """The state the tools change; thread-safe because tools may run concurrently."""

    lights: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(ROOMS, False))
    brightness: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ROOMS, 100))
    thermostat_c: float = 20.0
    timers: list[dict] = field(default_factory=list)
    now: _dt.datetime | None = None  # fixed clock for reproducible runs
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def summary(self) -> str:
        on = [r for r, v in self.lights.items() if v] or ["none"]
        timers = ", ".join(f"{t['label']} {t['minutes']} min" for t in self.timers) or "none"
        return f"lights on: {', '.join(on)} | thermostat: {self.thermostat_c:g} °C | timers: {timers}"

    def tools(self) -> list[Tool]:
        """The tools bound to this home."""
        home = self

        @tool
        def set_light(room: Room, on: bool, brightness: int | None = None) -> dict:
            """Turn the light in a room on or off.

            Args:
                room: Which room.
                on: True to switch the light on, False to switch it off.
                brightness: Optional brightness in percent, 1 to 100.
            """
            with home._lock:
                home.lights[room] = on
                if brightness is not None:
                    home.brightness[room] = max(1, min(100, brightness))
                return {"room": room, "on": on, "brightness": home.brightness[room]}

        @tool
        def set_thermostat(celsius: float) -> dict:
            """Set the thermostat to a temperature in degrees Celsius (10 to 30).

            Args:
                celsius: Target temperature in degrees Celsius.
            """
            if not 10 <= celsius <= 30:
                raise ValueError("the thermostat accepts 10 to 30 degrees Celsius")
            with home._lock:
                home.thermostat_c = celsius
            return {"thermostat_c": celsius}

        @tool
        def start_timer(minutes: int, label: str = "timer") -> dict:
            """Start a countdown timer.

            Args:
                minutes: Length of the timer in whole minutes.
                label: What the timer is for, e.g. "pasta".
            """
            with home._lock:
                home.timers.append({"label": label, "minutes": minutes})
            return {"started": label, "minutes": minutes}

        @tool
        def get_time() -> dict:
            """Tell the current local time."""
            now = home.now or _dt.datetime.now()
            return {"time": now.strftime("%H:%M"), "weekday": now.strftime("%A")}

        return [set_light, set_thermostat, start_timer, get_time]
