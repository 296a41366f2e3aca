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
from engine.fire_and_axe.data_pack import DataPackError, parse_cached, register
from engine.fire_and_axe.ids import COLOUR_NAMES, MAX_PLAYERS, MIN_PLAYERS
from engine.fire_and_axe.scenario import from_scenario
from engine.fire_and_axe.scoring import result
from engine.fire_and_axe.setup import GameOptions, new_game
from engine.fire_and_axe.snapshot import from_snapshot, to_snapshot
from engine.fire_and_axe.state import NONE, GameState, Step
from engine.fire_and_axe.view import view

__all__ = ["PHASE_FINAL_ROUNDS", "PHASE_GAME_OVER", "RULES", "FireAndAxeRules"]

_OPTION_KEYS = frozenset(
    {
        "settle_region_block",
        "rune_timing",
        "no_conflict",
        "first_player",
        "data_pack",
        "data_pack_toml",
    }
)

PHASE_FINAL_ROUNDS = 4
"""``phase`` once the Final Round markers are out (F11.7, F12): Ages are phases 1-3."""
PHASE_GAME_OVER = 5


def _carried_pack(game_options: Mapping[str, Any]) -> str | None:
    """The digest of the pack whose text the options carry (parsed and registered), or None.

    A game on a pack other than the built-in one carries the pack's whole text in its options
    (``options_record`` writes it), so that the stored game, its replay or another server can
    set it up without the file; the digest it names must be that text's."""
    text = game_options.get("data_pack_toml")
    if text is None:
        return None
    if not isinstance(text, str):
        raise OptionsError("data_pack_toml must be the text of a data pack")
    try:
        pack = register(parse_cached(text, "data_pack_toml"))
    except DataPackError as exc:
        raise OptionsError(str(exc)) from None
    named = game_options.get("data_pack")
    if named is not None and named not in ("", pack.digest):
        raise OptionsError(
            f"data_pack names {named!r} but data_pack_toml is the pack {pack.digest}"
        )
    return pack.digest


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
        carried = _carried_pack(game_options)
        strings = {}
        for key, default in (
            ("settle_region_block", "all"),
            ("rune_timing", "own_turn"),
            ("data_pack", carried or "demo"),
        ):
            value = game_options.get(key, default)
            if not isinstance(value, str):
                raise OptionsError(f"{key} must be a string, not {value!r}")
            strings[key] = value
        if carried and not strings["data_pack"]:
            strings["data_pack"] = carried  # an empty name: the text carried names the pack
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

    def options_of(self, state: Any) -> GameOptions:
        assert isinstance(state, GameState)
        return GameOptions(
            state.players,
            state.seed,
            "any" if state.settle_any else "all",
            "any_time" if state.any_time else "own_turn",
            state.no_conflict,
            state.first_player,
            state.board.digest,
        )

    def options_record(self, options: Any) -> dict[str, Any]:
        """The options as stored; a pack other than the built-in one comes with its text
        (``data_pack_toml``), so the record alone sets the game up again anywhere."""
        assert isinstance(options, GameOptions)
        pack = board_for(options.data_pack).pack
        out: dict[str, Any] = {
            "settle_region_block": options.settle_region_block,
            "rune_timing": options.rune_timing,
            "no_conflict": options.no_conflict,
            "first_player": options.first_player,
            "data_pack": pack.digest,
        }
        if not pack.builtin:
            out["data_pack_toml"] = pack.text
        return out

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

    def phase(self, state: Any) -> int:
        """The Age (1-3), then 4 once the Final Round markers are out (F11.7), 5 when the
        game is over: the checkpoints of a game that has no phases inside its turns (a Fire &
        Axe turn is a run of free decisions, F4.2)."""
        if state.step == Step.GAME_OVER:
            return PHASE_GAME_OVER
        if state.markers_holder != NONE:
            return PHASE_FINAL_ROUNDS
        return int(state.age)

    def view(
        self, state: Any, viewer: int = SPECTATOR, include_state: bool = False
    ) -> dict[str, Any]:
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
