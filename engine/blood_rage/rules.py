"""Blood Rage behind the game contract (``engine.core.contract.Rules``).

The rules themselves live in the modules beside this one (``flow`` is the phase machine,
``setup`` the deal, ``view`` what a seat may see …); this class only gathers them under the
names every game shares, so that the server, the bots and the environments reach Blood Rage
the same way they reach any other game. The hot paths of search call ``flow`` directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.blood_rage import flow
from engine.blood_rage.actions import Action, ActionKind, describe
from engine.blood_rage.ids import CLAN_NAMES, DraftMode
from engine.blood_rage.results import result
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.setup import GameOptions, initial_state
from engine.blood_rage.snapshot import from_snapshot, to_snapshot
from engine.blood_rage.state import GameState
from engine.blood_rage.view import view
from engine.core.contract import SPECTATOR, Result
from engine.core.errors import OptionsError

__all__ = ["DEFAULT_PREFERENCE", "RULES", "BloodRageRules", "default_of"]

# When an awaited seat's time runs out, the server decides for it: the first of these kinds
# that is legal (pass / decline / end the march / keep no card), else the first legal action.
# Each gives up what it can rather than spending anything on the seat's behalf.
DEFAULT_PREFERENCE: tuple[int, ...] = (
    ActionKind.PASS,
    ActionKind.DECLINE,
    ActionKind.MARCH_DONE,
    ActionKind.KEEP_NONE,
)


def default_of(legal: Sequence[Action]) -> Action:
    """The decision taken for a seat whose time ran out, among its legal ones (not empty)."""
    if not legal:
        raise ValueError("no legal action to default to")
    for kind in DEFAULT_PREFERENCE:
        for action in legal:
            if action[0] == kind:
                return action
    return legal[0]


def _draft_mode(value: object) -> DraftMode:
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionsError(f"draft_mode must be an integer, not {value!r}")
    if value not in DraftMode._value2member_map_:
        raise OptionsError(f"unknown draft mode {value}")
    return DraftMode(value)


class BloodRageRules:
    """Blood Rage, 2-5 players (blood-rage.md)."""

    name = "blood_rage"
    title = "Blood Rage"
    min_players = 2
    max_players = 5
    score_name = "Glory"

    def options(self, players: int, seed: int, game_options: Mapping[str, Any]) -> GameOptions:
        unknown = set(game_options) - {"draft_mode", "first_player"}
        if unknown:
            raise OptionsError(f"unknown Blood Rage option(s): {sorted(unknown)}")
        first = game_options.get("first_player")
        if first is not None and (isinstance(first, bool) or not isinstance(first, int)):
            raise OptionsError(f"first_player must be a seat number, not {first!r}")
        options = GameOptions(players, seed, _draft_mode(game_options.get("draft_mode", 0)), first)
        options.validate()
        return options

    def options_record(self, options: Any) -> dict[str, Any]:
        assert isinstance(options, GameOptions)
        return {"draft_mode": int(options.draft_mode), "first_player": options.first_player}

    def options_of(self, state: Any) -> GameOptions:
        assert isinstance(state, GameState)
        return GameOptions(
            state.players, state.seed, DraftMode(state.draft_mode), state.first_player
        )

    def new_game(self, options: Any) -> GameState:
        assert isinstance(options, GameOptions)
        state = initial_state(options)
        flow.advance(state)
        return state

    def from_scenario(self, text: str) -> GameState:
        return from_scenario(text, hosted=True)

    def awaiting(self, state: Any) -> list[int]:
        return flow.awaiting(state)

    def is_simultaneous(self, state: Any) -> bool:
        return flow.is_simultaneous(state)

    def legal_actions(self, state: Any, seat: int) -> Sequence[Action]:
        return flow.legal_actions(state, seat)

    def apply(self, state: Any, seat: int, action: Any) -> None:
        flow.apply(state, seat, action)

    def apply_unchecked(self, state: Any, seat: int, action: Any) -> None:
        flow.apply_unchecked(state, seat, action)

    def default_action(self, state: Any, seat: int) -> Action:
        return default_of(flow.legal_actions(state, seat))

    def result(self, state: Any) -> Result | None:
        return result(state)

    def phase(self, state: Any) -> int:
        return int(state.phase)

    def view(self, state: Any, viewer: int = SPECTATOR, include_state: bool = False) -> Any:
        return view(state, viewer, include_state)

    def seat_label(self, seat: int) -> str:
        return CLAN_NAMES[seat]

    def action_from_code(self, code: int) -> Action:
        if code < 0 or code >= 1 << 29:
            raise ValueError(f"{code} is not a Blood Rage action code")
        action = Action.from_code(code)
        if action.kind not in ActionKind._value2member_map_:
            raise ValueError(f"{code} is not a Blood Rage action code")
        return action

    def describe(self, action: Any) -> str:
        return describe(action)

    def to_snapshot(self, state: Any) -> dict[str, Any]:
        return to_snapshot(state)

    def from_snapshot(self, data: Mapping[str, Any]) -> GameState:
        return from_snapshot(dict(data))


RULES = BloodRageRules()
