"""Sailing (F5.6, F2.6): one Day to an adjacent water space, port or Homeland.

A port holds at most one ship, so a ship cannot enter a port where another ship is (F2.6); any
number share a water space or a Homeland. Ports with a Settlement may be entered (p.12). Every
Sail raises the Sailing marker and is followed at once by the weather check (F5.6a, F6.3);
``calm_weather`` (a Rune effect) skips one check.
"""

from __future__ import annotations

from engine.fire_and_axe import weather
from engine.fire_and_axe.actions import SAIL, Action
from engine.fire_and_axe.ids import PORT
from engine.fire_and_axe.state import GameState


def legal(state: GameState, seat: int, out: list[Action]) -> None:
    """The Sail actions of a ship on the map (the caller checks the Days left)."""
    board = state.board
    kind = board.kind
    seats = state.seats
    ships = [p.loc for p in seats]
    for dest in board.adjacent[seats[seat].loc]:
        if kind[dest] == PORT and dest in ships:
            continue
        out.append(SAIL[dest])


def sail(state: GameState, seat: int, dest: int) -> None:
    p = state.seats[seat]
    origin = p.loc
    p.loc = dest
    state.sail += 1
    state.emit(
        -1,
        {
            "type": "sailed",
            "seat": seat,
            "from": origin,
            "to": dest,
            "sailing": state.sail,
            "days": state.prep + state.sail,
        },
    )
    if state.calm:
        state.calm = False
        state.emit(-1, {"type": "weather_skipped", "seat": seat})
        return
    weather.check(state, seat, dest)
