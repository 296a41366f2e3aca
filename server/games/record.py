"""What a game is before and outside its play: its fixed settings, its record, its life-cycle
status, and the JSON-able forms the stores keep of them (``server.stores.contract``).

A hosted game (``server.games.game.Game``), the registry that creates games
(``server.games.registry``), recovery (``server.games.recovery``) and the game list
(``server.api.game_list``) all read these; none of them needs the game's live state for it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import IntEnum
from typing import Any

from engine.blood_rage.ids import DraftMode
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.setup import new_game
from engine.blood_rage.state import GameState

__all__ = [
    "GameRecord",
    "GameSettings",
    "Status",
    "initial_state",
    "result_record",
    "settings_from_record",
    "settings_record",
]


class Status(IntEnum):
    """A game's life cycle (same numbers as the proto's GameStatus)."""

    OPEN = 1
    IN_PROGRESS = 2
    FINISHED = 3
    ABORTED = 4


@dataclass(frozen=True, slots=True)
class GameSettings:
    """Fixed options of a game (engine ints; no protobuf)."""

    players: int
    seed: int
    draft_mode: int = 0
    first_player: int | None = None
    decision_time_limit_ms: int = 0
    seat_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What a store needs to rebuild a game's start."""

    game_id: str
    settings: GameSettings
    scenario_json: str
    created_unix_ms: int
    creator: str = ""  # Identity.quota_key of the caller that created it ("" if unknown)


def settings_record(settings: GameSettings) -> dict[str, Any]:
    """The settings as the JSON-able dict stores keep."""
    out = asdict(settings)
    out["seat_names"] = list(settings.seat_names)
    return out


def initial_state(record: GameRecord) -> GameState:
    """A game's state before its first decision (from its scenario, or dealt from its seed)."""
    if record.scenario_json:
        return from_scenario(record.scenario_json)
    s = record.settings
    return new_game(s.players, s.seed, DraftMode(s.draft_mode), s.first_player)


def result_record(finished: Any) -> dict[str, Any]:
    """The result as stores keep it (JSON-able)."""
    return {
        "scores": list(finished.scores),
        "winners": list(finished.winners),
        "ranks": list(finished.ranks),
    }


def settings_from_record(data: dict[str, Any]) -> GameSettings:
    """GameSettings back from :func:`settings_record` (ValueError/TypeError if malformed)."""
    first = data.get("first_player")
    return GameSettings(
        players=int(data["players"]),
        seed=int(data["seed"]),
        draft_mode=int(data.get("draft_mode", 0)),
        first_player=None if first is None else int(first),
        decision_time_limit_ms=int(data.get("decision_time_limit_ms", 0)),
        seat_names=tuple(str(n) for n in data.get("seat_names", ())),
    )
