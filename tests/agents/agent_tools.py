"""Example tools shared by the agent tests."""

from __future__ import annotations

import time

from edgevox.tools import tool


@tool
def get_time() -> str:
    """Current local time, as HH:MM."""
    return "14:05"


@tool
def get_weather(city: str) -> dict:
    """Current weather for a city.

    Args:
        city: Name of the city, e.g. Paris.
    """
    return {"city": city, "temp_c": 21 if city.lower() == "paris" else 17, "sky": "sunny"}


@tool
def set_lights(room: str, on: bool) -> str:
    """Switch the lights of a room on or off.

    Args:
        room: Room name, e.g. kitchen.
        on: True to switch on, False to switch off.
    """
    return f"lights in the {room} are {'on' if on else 'off'}"


@tool(timeout=0.5)
def slow_search(query: str) -> str:
    """Search the web (slow).

    Args:
        query: What to search for.
    """
    time.sleep(3)
    return "never"


@tool
def get_stock(symbol: str) -> float:
    """Latest stock price.

    Args:
        symbol: Ticker symbol, e.g. ACME.
    """
    raise ConnectionError("stock service unreachable")
