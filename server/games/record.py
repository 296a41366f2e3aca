"""What a game is before and outside its play: its fixed settings, its record, its life-cycle
status, and the JSON-able forms the stores keep of them (``server.stores.contract``).

A hosted game (``server.games.game.Game``), the registry that creates games
(``server.games.registry``), recovery (``server.games.recovery``) and the game list
(``server.api.game_list``) all read these; none of them needs the game's live state for it.

Which game a record plays is its ``game`` (a name of ``engine.registry``). Stored settings keep
the common options and the game's own side by side in one flat object; the game's name is
left out for the first game, so that the records written before there were two games read
back, and hash (``server.stores.chain.genesis``), exactly as they did.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from types import MappingProxyType
from typing import Any

from engine import registry
from engine.core.contract import Result, Rules, State
from server.stores.contract import NO_ACCESS, GameAccess

__all__ = [
    "COMMON_SETTINGS",
    "GameRecord",
    "GameSettings",
    "Status",
    "initial_state",
    "result_record",
    "settings_from_record",
    "settings_record",
]

_NO_OPTIONS: Mapping[str, Any] = MappingProxyType({})

COMMON_SETTINGS = (
    "game",
    "players",
    "seed",
    "seed_chosen_by",
    "decision_time_limit_ms",
    "seat_names",
)
"""The keys of a stored settings record that are not the game's own options."""


class Status(IntEnum):
    """A game's life cycle (same numbers as the proto's GameStatus)."""

    OPEN = 1
    IN_PROGRESS = 2
    FINISHED = 3
    ABORTED = 4


@dataclass(frozen=True, slots=True)
class GameSettings:
    """Fixed options of a game (engine values; no protobuf). ``options`` are the game's own,
    as its rules' ``options_record`` writes them (Blood Rage: draft mode, first player)."""

    players: int
    seed: int
    game: str = registry.DEFAULT
    options: Mapping[str, Any] = field(default_factory=lambda: _NO_OPTIONS)
    decision_time_limit_ms: int = 0
    seat_names: tuple[str, ...] = ()
    # The identity (an API key's name) that chose the seed; "" when the server drew it (or
    # mixed the creator's seed with its own randomness: ``server.api.seeds``).
    seed_chosen_by: str = ""

    @property
    def rules(self) -> Rules:
        return registry.rules(self.game)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What a store needs to rebuild a game's start."""

    game_id: str
    settings: GameSettings
    scenario_json: str
    created_unix_ms: int
    creator: str = ""  # Identity.quota_key of the caller that created it ("" if unknown)
    # The keyed hash of the creator token CreateGame gave (server.stores.token_hashes): what
    # proves an anonymous creator (whose address many clients may share). "" if none.
    creator_token_hash: str = ""
    access: GameAccess = NO_ACCESS  # unlisted? reserved seats? (server.games.access)


def settings_record(settings: GameSettings) -> dict[str, Any]:
    """The settings as the JSON-able dict stores keep (see the module doc)."""
    out: dict[str, Any] = {"players": settings.players, "seed": settings.seed}
    if settings.seed_chosen_by:  # (absent otherwise: older records read and hash as before)
        out["seed_chosen_by"] = settings.seed_chosen_by
    if settings.game != registry.DEFAULT:
        out["game"] = settings.game
    out.update(settings.options)
    out["decision_time_limit_ms"] = settings.decision_time_limit_ms
    out["seat_names"] = list(settings.seat_names)
    return out


def settings_from_record(data: Mapping[str, Any]) -> GameSettings:
    """GameSettings back from :func:`settings_record` (ValueError/TypeError/KeyError if
    malformed, or if it names a game this server does not know)."""
    game = str(data.get("game", registry.DEFAULT))
    registry.entry(game)
    return GameSettings(
        players=int(data["players"]),
        seed=int(data["seed"]),
        game=game,
        options=MappingProxyType({k: v for k, v in data.items() if k not in COMMON_SETTINGS}),
        decision_time_limit_ms=int(data.get("decision_time_limit_ms", 0)),
        seat_names=tuple(str(n) for n in data.get("seat_names", ())),
        seed_chosen_by=str(data.get("seed_chosen_by", "")),
    )


def initial_state(record: GameRecord) -> State:
    """A game's state before its first decision (from its scenario, or dealt from its seed)."""
    s = record.settings
    rules = s.rules
    if record.scenario_json:
        # The options are read first for what they may carry that the scenario names (a
        # Fire & Axe pack's text, by its digest); the scenario decides the game.
        with contextlib.suppress(Exception):
            rules.options(s.players, s.seed, s.options)
        return rules.from_scenario(record.scenario_json)
    return rules.new_game(rules.options(s.players, s.seed, s.options))


def result_record(finished: Result) -> dict[str, Any]:
    """The result as stores keep it (JSON-able)."""
    return {
        "scores": list(finished.scores),
        "winners": list(finished.winners),
        "ranks": list(finished.ranks),
    }
