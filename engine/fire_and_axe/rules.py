"""Fire & Axe behind the game contract (``engine.core.contract.Rules``).

The rules live in the modules beside this one; this class gathers them under the names every
game shares. The hot paths of search call ``flow`` directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core.contract import SPECTATOR, Result, Rules
from engine.core.errors import OptionsError
from engine.fire_and_axe import flow
from engine.fire_and_axe.actions import Action, ActionKind, describe
from engine.fire_and_axe.board import board_for
from engine.fire_and_axe.ids import COLOUR_NAMES, MAX_PLAYERS, MIN_PLAYERS
from engine.fire_and_axe.scenario import from_scenario
from engine.fire_and_axe.scoring import result
from engine.fire_and_axe.setup import GameOptions, new_game
from engine.fire_and_axe.snapshot import from_snapshot, to_snapshot
from engine.fire_and_axe.state import GameState
from engine.fire_and_axe.view import view

__all__ = ["RULES", "FireAndAxeRules"]

_OPTION_KEYS = frozenset(
    {"settle_region_block", "rune_timing", "no_conflict", "first_player", "data_pack"}
)


class FireAndAxeRules:
    """Fire & Axe: A Viking Saga, 2-5 players (fire-and-axe.md, on a data pack)."""

    name = "fire_and_axe"
    title = "Fire & Axe: A Viking Saga"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    score_name = "VP"

    def options(self, players: int, seed: int, game_options: Mapping[str, Any]) -> GameOptions:
        unknown = set(game_options) - _OPTION_KEYS
        if unknown:
            raise OptionsError(
                f"unknown Fire & Axe option(s): {sorted(unknown)} (known: {sorted(_OPTION_KEYS)})"
            )
        first = game_options.get("first_player")
        if first is not None and (isinstance(first, bool) or not isinstance(first, int)):
            raise OptionsError(f"first_player must be a seat number, not {first!r}")
        no_conflict = game_options.get("no_conflict", False)
        if not isinstance(no_conflict, bool):
            raise OptionsError(f"no_conflict must be true or false, not {no_conflict!r}")
        strings = {}
        for key, default in (
            ("settle_region_block", "all"),
            ("rune_timing", "own_turn"),
            ("data_pack", "demo"),
        ):
            value = game_options.get(key, default)
            if not isinstance(value, str):
                raise OptionsError(f"{key} must be a string, not {value!r}")
            strings[key] = value
        options = GameOptions(
            players,
            seed,
            strings["settle_region_block"],
            strings["rune_timing"],
            no_conflict,
            first,
            strings["data_pack"],
        )
        options.validate()
        return GameOptions(
            options.players,
            options.seed,
            options.settle_region_block,
            options.rune_timing,
            options.no_conflict,
            options.first_player,
            options.board().digest,  # the record names the pack by its digest
        )

    def options_record(self, options: Any) -> dict[str, Any]:
        assert isinstance(options, GameOptions)
        return {
            "settle_region_block": options.settle_region_block,
            "rune_timing": options.rune_timing,
            "no_conflict": options.no_conflict,
            "first_player": options.first_player,
            "data_pack": board_for(options.data_pack).digest,
        }

    def new_game(self, options: Any) -> GameState:
        assert isinstance(options, GameOptions)
        return new_game(options)

    def from_scenario(self, text: str) -> GameState:
        return from_scenario(text)

    def awaiting(self, state: Any) -> list[int]:
        return flow.awaiting(state)

    def is_simultaneous(self, state: Any) -> bool:
        return False

    def legal_actions(self, state: Any, seat: int) -> Sequence[Action]:
        return flow.legal_actions(state, seat)

    def apply(self, state: Any, seat: int, action: Any) -> None:
        flow.apply(state, seat, action)

    def apply_unchecked(self, state: Any, seat: int, action: Any) -> None:
        flow.apply_unchecked(state, seat, action)

    def default_action(self, state: Any, seat: int) -> Action:
        return flow.default_action(state, seat)

    def result(self, state: Any) -> Result | None:
        return result(state)

    def view(self, state: Any, viewer: int = SPECTATOR, include_state: bool = False) -> Any:
        return view(state, viewer, include_state)

    def seat_label(self, seat: int) -> str:
        return COLOUR_NAMES[seat]

    def action_from_code(self, code: int) -> Action:
        if code < 0 or code >= 1 << 29:
            raise ValueError(f"{code} is not a Fire & Axe action code")
        action = Action.from_code(code)
        if action.kind not in ActionKind._value2member_map_:
            raise ValueError(f"{code} is not a Fire & Axe action code")
        return action

    def describe(self, action: Any) -> str:
        return describe(Action(*action))

    def to_snapshot(self, state: Any) -> dict[str, Any]:
        return to_snapshot(state)

    def from_snapshot(self, data: Mapping[str, Any]) -> GameState:
        return from_snapshot(data)


RULES = FireAndAxeRules()
_CONTRACT: Rules = RULES  # mypy checks that the class implements the whole contract
