"""Snapshots: the complete engine state as versioned JSON-able data, and back.

Unlike a scenario (a human-written position), a snapshot captures *everything* — decks in
order, packs, a battle half-resolved, pending prompts — so a server can restore a game
mid-decision after a crash and replay only the log tail. ``FORMAT`` changes whenever the
layout does; an unknown format is refused, never guessed.
"""

from __future__ import annotations

from typing import Any

from engine.blood_rage.state import BATTLE_FIELDS, EMPTY, Battle, ClanState, GameState, Prompt
from engine.core.errors import EngineError

FORMAT = 2
# Format 1 had no ``kept`` per clan, ``doom_card``, ``march_moved`` nor a battle's
# ``destroyed``: read as none (they only inform views and events; the hash is the same).
_NEW_IN_FORMAT_2 = frozenset({"destroyed"})  # Battle fields
READABLE_FORMATS = (1, 2)


class SnapshotError(EngineError):
    """A snapshot that cannot be restored: unknown format version or malformed data."""


def to_snapshot(state: GameState) -> dict[str, Any]:
    b = state.battle
    return {
        "format": FORMAT,
        "players": state.players,
        "draft_mode": state.draft_mode,
        "seed": state.seed,
        "age": state.age,
        "phase": state.phase,
        "step": state.step,
        "first_player": state.first_player,
        "turn": state.turn,
        "version": state.version,
        "decks": state.decks,
        "packs": state.packs,
        "picks": state.picks,
        "discard": state.discard,
        "unseen": state.unseen,
        "clans": [
            {
                "steps": c.steps,
                "rage": c.rage,
                "glory": c.glory,
                "hand": c.hand,
                "quests": c.quests,
                "loc": c.loc,
                "slots": c.slots,
                "kept": c.kept,
            }
            for c in state.clans
        ],
        "destroyed": state.destroyed,
        "token": state.token,
        "pillaged": state.pillaged,
        "ragnarok": state.ragnarok,
        "battle": None if b is None else {name: getattr(b, name) for name in BATTLE_FIELDS},
        "march": list(state.march) if state.march is not None else None,
        "march_moved": state.march_moved,
        "prompts": [list(p) for p in state.prompts],
        "keep": state.keep,
        "doomed": [list(d) for d in state.doomed],
        "doom_cause": state.doom_cause,
        "doom_card": state.doom_card,
        "hash": state.state_hash(),
    }


def from_snapshot(data: dict[str, Any]) -> GameState:
    """Restore a state; the recorded hash must match what is rebuilt."""
    if not isinstance(data, dict):
        raise SnapshotError("a snapshot is a JSON object")
    fmt = data.get("format")
    if fmt not in READABLE_FORMATS:
        raise SnapshotError(
            f"unknown snapshot format {fmt!r} (this engine reads {READABLE_FORMATS})"
        )
    try:
        s = GameState(int(data["players"]), int(data["draft_mode"]), int(data["seed"]))
        for name in ("age", "phase", "step", "first_player", "turn", "version", "doom_cause"):
            setattr(s, name, int(data[name]))
        s.decks = [list(map(int, d)) for d in data["decks"]]
        s.packs = [list(map(int, p)) for p in data["packs"]]
        s.picks = list(map(int, data["picks"]))
        s.discard = list(map(int, data["discard"]))
        s.unseen = list(map(int, data["unseen"]))
        s.clans = []
        for seat, c in enumerate(data["clans"]):
            clan = ClanState(seat)
            clan.steps = list(map(int, c["steps"]))
            clan.rage = int(c["rage"])
            clan.glory = int(c["glory"])
            clan.hand = list(map(int, c["hand"]))
            clan.quests = list(map(int, c["quests"]))
            clan.loc = list(map(int, c["loc"]))
            clan.slots = list(map(int, c["slots"]))
            clan.kept = int(c["kept"]) if fmt != 1 else EMPTY
            s.clans.append(clan)
        s.destroyed = [bool(x) for x in data["destroyed"]]
        s.token = list(map(int, data["token"]))
        s.pillaged = [bool(x) for x in data["pillaged"]]
        s.ragnarok = list(map(int, data["ragnarok"]))
        s.occupancy = [0] * len(s.occupancy)
        for clan in s.clans:
            for where in clan.loc:
                if where < len(s.occupancy):
                    s.occupancy[where] += 1
        bd = data["battle"]
        if bd is not None:
            b = Battle(int(bd["province"]), int(bd["pillager"]), s.players)
            for name in BATTLE_FIELDS:
                if fmt == 1 and name in _NEW_IN_FORMAT_2:
                    continue
                value = bd[name]
                if name in ("played", "destroyed"):
                    value = [list(map(int, p)) for p in value]
                elif isinstance(value, list):
                    value = list(value)
                setattr(b, name, value)
            s.battle = b
        s.march = (int(data["march"][0]), int(data["march"][1])) if data["march"] else None
        s.prompts = [Prompt(*map(int, p)) for p in data["prompts"]]
        s.keep = list(map(int, data["keep"]))
        s.doomed = [(int(a), int(b2)) for a, b2 in data["doomed"]]
        s.doom_card = int(data["doom_card"]) if fmt != 1 else EMPTY
        s.march_moved = list(map(int, data["march_moved"])) if fmt != 1 else []
    except (KeyError, TypeError, ValueError) as e:
        raise SnapshotError(f"malformed snapshot: {type(e).__name__}: {e}") from None
    expected = data.get("hash")
    if expected is not None and s.state_hash() != expected:
        raise SnapshotError(
            "snapshot hash mismatch: the data does not rebuild the state it recorded"
        )
    return s
