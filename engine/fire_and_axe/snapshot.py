"""Snapshots: the complete state as versioned JSON-able data, and back.

A snapshot holds everything — deck orders, hidden treasures, the dice generator, a Raid under
way — so a server can restore a game mid-turn. It names its data pack by digest: restoring
needs that very pack loaded (``data_pack.load``), and a snapshot whose pack differs from the
one expected (``expect_pack``) is refused. ``FORMAT`` changes whenever the layout does; an
unknown format is refused, never guessed. The recorded hash must match the rebuilt state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.errors import EngineError
from engine.core.rng import SplitMix64
from engine.fire_and_axe.board import board_for
from engine.fire_and_axe.state import NONE, EndReason, GameState, PlayerState, Step

FORMAT = 1
READABLE_FORMATS = (1,)

_TURN_FIELDS = (
    "prep",
    "sail",
    "skulls_covered",
    "pending_losses",
    "attack_bonus",
    "attack_port",
    "raid_rolls",
)
_TABLE_FIELDS = ("version", "turn", "turns", "age", "dial", "demand", "first_player")
_LISTS = (
    "supply",
    "rune_deck",
    "rune_discard",
    "saga_deck",
    "saga_spaces",
    "saga_removed",
    "saga_discard",
    "town",
    "treasure",
    "goods",
    "settler",
    "tasks_done",
    "chart",
    "window",
)


class SnapshotError(EngineError):
    """A snapshot that cannot be restored: unknown format, unknown pack or malformed data."""


def to_snapshot(state: GameState) -> dict[str, Any]:
    out: dict[str, Any] = {
        "format": FORMAT,
        "game": "fire_and_axe",
        "data_pack": state.board.digest,
        "players": state.players,
        "seed": state.seed,
        "settle_any": state.settle_any,
        "any_time": state.any_time,
        "no_conflict": state.no_conflict,
        "rng": state.rng.position,
        "step": int(state.step),
        "calm": state.calm,
        "end_reason": int(state.end_reason),
        "markers_holder": state.markers_holder,
        "markers_placed": state.markers_placed,
    }
    for name in _TABLE_FIELDS + _TURN_FIELDS:
        out[name] = getattr(state, name)
    for name in _LISTS:
        out[name] = list(getattr(state, name))
    out["seats"] = [
        {
            "loc": p.loc,
            "crew": p.crew,
            "cargo": list(p.cargo),
            "crew_supply": p.crew_supply,
            "hand": list(p.hand),
            "vp": p.vp,
            "towns": list(p.towns),
            "sagas": list(p.sagas),
            "settlements": p.settlements,
            "out": p.out,
        }
        for p in state.seats
    ]
    out["hash"] = state.state_hash()
    return out


def _ints(value: Any, name: str) -> list[int]:
    if not isinstance(value, list) or not all(
        isinstance(x, int) and not isinstance(x, bool) for x in value
    ):
        raise SnapshotError(f"malformed snapshot: {name} must be a list of integers")
    return list(value)


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SnapshotError(f"malformed snapshot: {name} must be an integer, not {value!r}")
    return value


def from_snapshot(data: Mapping[str, Any], expect_pack: str | None = None) -> GameState:
    """Restore a state; its pack must be loaded (and be ``expect_pack`` if given)."""
    if not isinstance(data, Mapping):
        raise SnapshotError("a snapshot is a JSON object")
    fmt = data.get("format")
    if fmt not in READABLE_FORMATS:
        raise SnapshotError(
            f"unknown snapshot format {fmt!r} (this engine reads {READABLE_FORMATS})"
        )
    digest = data.get("data_pack")
    if not isinstance(digest, str):
        raise SnapshotError("malformed snapshot: no data_pack digest")
    if expect_pack is not None and digest != board_for(expect_pack).digest:
        raise SnapshotError(
            f"the snapshot was made with data pack {digest}, not {board_for(expect_pack).digest}"
        )
    try:
        board = board_for(digest)
    except KeyError:
        raise SnapshotError(
            f"the snapshot was made with data pack {digest}, which is not loaded"
        ) from None
    try:
        s = GameState(board, _int(data["players"], "players"), _int(data["seed"], "seed"))
        s.settle_any = bool(data["settle_any"])
        s.any_time = bool(data["any_time"])
        s.no_conflict = bool(data["no_conflict"])
        s.calm = bool(data["calm"])
        s.rng = SplitMix64(_int(data["rng"], "rng"))
        s.step = Step(_int(data["step"], "step"))
        s.end_reason = EndReason(_int(data["end_reason"], "end_reason"))
        s.markers_holder = _int(data["markers_holder"], "markers_holder")
        s.markers_placed = _int(data["markers_placed"], "markers_placed")
        for name in _TABLE_FIELDS + _TURN_FIELDS:
            setattr(s, name, _int(data[name], name))
        for name in _LISTS:
            setattr(s, name, _ints(data[name], name))
        n_loc = len(board.ids)
        for name in ("town", "treasure", "goods", "settler"):
            if len(getattr(s, name)) != n_loc:
                raise SnapshotError(f"malformed snapshot: {name} must have {n_loc} entries")
        seats = data["seats"]
        if not isinstance(seats, list) or len(seats) != s.players:
            raise SnapshotError(f"malformed snapshot: seats must list {s.players} players")
        s.seats = []
        for i, d in enumerate(seats):
            p = PlayerState()
            p.loc = _int(d["loc"], f"seats[{i}].loc")
            p.crew = _int(d["crew"], f"seats[{i}].crew")
            p.cargo = _ints(d["cargo"], f"seats[{i}].cargo")
            p.crew_supply = _int(d["crew_supply"], f"seats[{i}].crew_supply")
            p.hand = _ints(d["hand"], f"seats[{i}].hand")
            p.vp = _int(d["vp"], f"seats[{i}].vp")
            p.towns = _ints(d["towns"], f"seats[{i}].towns")
            p.sagas = _ints(d["sagas"], f"seats[{i}].sagas")
            p.settlements = _int(d["settlements"], f"seats[{i}].settlements")
            p.out = bool(d["out"])
            s.seats.append(p)
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, SnapshotError):
            raise
        raise SnapshotError(f"malformed snapshot: {type(e).__name__}: {e}") from None
    expected = data.get("hash")
    if expected is not None and s.state_hash() != expected:
        raise SnapshotError(
            "snapshot hash mismatch: the data does not rebuild the state it recorded"
        )
    return s


def redacted_snapshot(state: GameState, viewer: int) -> dict[str, Any]:
    """A snapshot with everything ``viewer`` may not see blanked (-1): other hands, deck
    orders, removed Sagas, the treasures of standing towns; the seed and the generator are 0.
    For bots that rebuild a state to search; it carries no hash and cannot be restored as
    is."""
    snap = to_snapshot(state)
    del snap["hash"]
    snap["redacted"] = True
    snap["seed"] = 0  # the seed would give away every shuffle, treasure and die to come
    snap["rng"] = 0
    for name in ("rune_deck", "saga_deck", "saga_removed"):
        snap[name] = [NONE] * len(snap[name])
    snap["treasure"] = [NONE if state.town[i] else v for i, v in enumerate(snap["treasure"])]
    for i, seat in enumerate(snap["seats"]):
        if i != viewer:
            seat["hand"] = [NONE] * len(seat["hand"])
    return snap
