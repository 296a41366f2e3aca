"""Public fields of the view (engine/blood_rage/view.py) at the moments they change: a march
under way, a battle after its reveal, a turn that nobody plays in secret, the end-game bonus
before the end, the prompt of a question that excludes no stat (issue 30, gaps 1-7).

Each test reads what a seat receives (``view``), never the state behind it."""

from __future__ import annotations

from typing import Any

import pytest

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.cards import card_of
from engine.blood_rage.flow import apply
from engine.blood_rage.ids import Area, Unit
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.state import GameState
from engine.blood_rage.view import SPECTATOR, view
from tests.scenario_tokens import TOKENS

RAGNAROK = ["Muspelheim", "Gimle", "Myrkulor"]
E = "Elvagar"


def _state(players: int, clans: list[dict[str, Any]], **fields: Any) -> GameState:
    clans = clans + [{}] * (players - len(clans))
    return from_scenario(
        {
            "players": players,
            "ragnarok": RAGNAROK,
            "pillage_tokens": TOKENS,
            "clans": clans,
            **fields,
        }
    )


def _viewers(state: GameState) -> list[int]:
    return [SPECTATOR, *range(state.players)]


def _fig(unit: str, location: str) -> dict[str, str]:
    return {"unit": unit, "location": location}


def _in_hand(state: GameState, seat: int, key: str) -> int:
    return next(c for c in state.clans[seat].hand if card_of(c).key == key)


# -- 1. the march under way -------------------------------------------------------------


def test_a_march_under_way_names_its_origin_and_destination_to_everyone():
    state = _state(3, [{"figures": {"Elvagar": ["leader", "warrior", "warrior"]}}])
    for seat in _viewers(state):
        assert view(state, seat)["march"] is None
    apply(state, 0, Action(ActionKind.MARCH, Area.ELVAGAR, Area.ANGERBODA, Unit.WARRIOR))
    for seat in _viewers(state):
        seen = view(state, seat)
        assert seen["step"] == "march" and seen["awaiting"] == [0]
        assert seen["march"] == ["Elvagar", "Angerboda"]
        assert seen["march_moved"] == ["warrior"]
    apply(state, 0, Action(ActionKind.MARCH_MORE, Unit.LEADER))
    assert view(state, 2)["march"] == ["Elvagar", "Angerboda"]
    apply(state, 0, Action(ActionKind.MARCH_DONE))
    assert view(state, 2)["march"] is None


# -- 2, 5, 6, 7. a battle after its reveal, paused at a late-card offer ------------------


def _revealed_battle() -> tuple[GameState, int, int]:
    """Seat 0 (pillager) reveals Tyr's Rage, seat 1 Tyr's Smite; seat 1 still holds
    Heimdall's Eye, which may be played after the reveal: the battle waits for it."""
    state = _state(
        3,
        [
            {"hand": ["tyrs_rage_2", "tyrs_crush_2"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_smite_2", "heimdalls_eye"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    rage, smite = _in_hand(state, 0, "tyrs_rage"), _in_hand(state, 1, "tyrs_smite")
    apply(state, 0, Action(ActionKind.BATTLE_CARD, rage))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, smite))
    return state, rage, smite


def test_revealed_battle_cards_are_shown_to_everyone():
    state, rage, smite = _revealed_battle()
    for seat in _viewers(state):
        battle = view(state, seat)["battle"]
        assert battle["revealed"] == {
            "0": [{"instance": rage, "card": "tyrs_rage_2", "name": "Tyr's Rage"}],
            "1": [{"instance": smite, "card": "tyrs_smite_2", "name": "Tyr's Smite"}],
        }
        assert battle["reveal_round"] == 1 and battle["cancelled"] == []
        assert battle["totals"] is None and battle["winner"] is None


def test_a_revealed_card_is_no_longer_the_seats_pending_battle_card():
    state, _, _ = _revealed_battle()
    assert view(state, 0)["private"]["battle_card"] is None
    assert view(state, 1)["private"]["battle_card"] is None
    # Before the reveal it was (the seat that chose first, while the other chooses).
    state = _state(
        3,
        [
            {"hand": ["tyrs_rage_2"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_smite_2"], "figures": {"Elvagar": ["warrior"]}},
        ],
        age=2,
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    apply(state, 0, Action(ActionKind.BATTLE_CARD, state.clans[0].hand[0]))
    assert view(state, 0)["private"]["battle_card"]["card"] == "tyrs_rage_2"


def test_nobody_is_committed_once_the_cards_are_revealed():
    state, _, _ = _revealed_battle()
    for seat in _viewers(state):
        seen = view(state, seat)
        assert seen["battle"]["committed"] == []
        assert seen["committed"] == [] and not seen["simultaneous"]


def test_a_question_that_is_no_stat_raise_excludes_no_stat():
    """The late-card offer's prompt: who, what, which card asks (none: a rule), and no
    ``excluded_stat`` (only a stat raise excludes one)."""
    state, _, _ = _revealed_battle()
    for seat in _viewers(state):
        assert view(state, seat)["prompt"] == {
            "kind": "late_card",
            "seat": 1,
            "source": "",
            "queued": 0,
        }


@pytest.mark.parametrize("where", ["battle", "ragnarok"])
def test_protect_and_witch_prompts_exclude_no_stat(where):
    """Frigga's Protection after a lost battle; the Volur Witch before Ragnarök."""
    if where == "battle":
        state = _state(
            3,
            [
                {"figures": {"Elvagar": ["leader"]}},
                {"upgrades": ["friggas_protection"], "figures": {"Elvagar": ["warrior"]}},
            ],
            age=2,
        )
        apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))  # nobody can answer a call
        kind, source, extra = "protect", "friggas_protection", {"doomed": [_fig("warrior", E)]}
    else:
        state = _state(
            3,
            [{"upgrades": ["volur_witch"], "figures": {"Myrkulor": ["volur_witch"]}}],
            age=3,
            phase="ragnarok",
        )
        kind, source, extra = "witch_retreat", "volur_witch", {}
    assert view(state)["prompt"] == {
        "kind": kind,
        "seat": 1 if where == "battle" else 0,
        "source": source,
        **extra,
        "queued": 0,
    }


# -- 3. nobody commits anything outside a secret choice ---------------------------------


def test_outside_a_secret_choice_nobody_is_committed():
    """An action turn, a Call to Battle, a question: one seat decides in the open."""
    state = _state(
        3,
        [
            {"figures": {"Elvagar": ["leader"]}},
            {"figures": {"Angerboda": ["warrior"]}},
            {"figures": {"Yggdrasil": ["warrior"]}},
        ],
    )
    steps = []
    for _ in range(2):
        for seat in _viewers(state):
            seen = view(state, seat)
            assert not seen["simultaneous"]
            assert seen["committed"] == [], seen["step"]
        steps.append(view(state)["step"])
        if len(steps) == 1:
            apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    assert steps == ["action", "call_to_battle"]


# -- 4. the end-game stat bonus waits for the end ---------------------------------------


def test_the_stat_bonus_is_zero_until_the_game_is_over():
    """Stats on their 4th, 5th and last steps are worth 10, 10 and 20 Glory at the end of
    the game, and nothing before: in Age 3's Action phase the view shows 0."""
    state = _state(
        2,
        [{"stats": {"rage": 4, "axes": 5, "horns": 6}, "figures": {"Elvagar": ["leader"]}}],
        age=3,
    )
    for seat in _viewers(state):
        assert [c["end_stat_bonus"] for c in view(state, seat)["clans"]] == [0, 0]
    apply(state, 0, Action(ActionKind.PASS))
    apply(state, 1, Action(ActionKind.PASS))
    seen = view(state)
    assert seen["phase"] == "game_over"
    assert [c["end_stat_bonus"] for c in seen["clans"]] == [40, 0]
