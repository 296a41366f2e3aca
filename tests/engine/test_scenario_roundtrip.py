"""``to_scenario`` writes a position as a scenario that ``from_scenario`` reads back to the
same position (docs/engine.md, "Scenarios"); positions it cannot write are refused."""

from __future__ import annotations

import json
import random

import pytest

from engine.blood_rage import awaiting, legal_actions, new_game
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Phase, Step
from engine.blood_rage.scenario import from_scenario, to_scenario
from engine.blood_rage.state import GameState
from engine.core.errors import ScenarioError


def _writable_positions(players: int, seed: int) -> list[GameState]:
    """Action-phase positions between decisions (no battle, march or offer) of a random
    game, every Age."""
    rng = random.Random(seed)
    state = new_game(players, seed)
    out = []
    while state.step != Step.GAME_OVER:
        if (
            state.step == Step.ACTION
            and state.battle is None
            and state.march is None
            and not state.prompts
            and rng.random() < 0.15
        ):
            out.append(state.copy())
        seat = rng.choice(awaiting(state))
        apply_unchecked(state, seat, rng.choice(legal_actions(state, seat)))
    return out


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (4, 8), (5, 1)])
def test_action_phase_positions_survive_the_round_trip(players, seed):
    positions = _writable_positions(players, seed)
    assert {p.age for p in positions} == {1, 2, 3}
    for state in positions:
        written = to_scenario(state)
        back = from_scenario(json.loads(json.dumps(written)))
        assert to_scenario(back) == written
        for attr in ("players", "age", "phase", "turn", "first_player", "ragnarok", "seed"):
            assert getattr(back, attr) == getattr(state, attr), attr
        assert back.destroyed == state.destroyed and back.pillaged == state.pillaged
        for mine, theirs in zip(back.clans, state.clans, strict=True):
            assert (mine.steps, mine.rage, mine.glory) == (theirs.steps, theirs.rage, theirs.glory)
            assert sorted(mine.loc) == sorted(theirs.loc)
            assert len(mine.hand) == len(theirs.hand) and len(mine.quests) == len(theirs.quests)
        seat = awaiting(state)[0]
        assert len(legal_actions(back, seat)) == len(legal_actions(state, seat))


def test_a_written_scenario_names_everything():
    state = from_scenario(
        {
            "players": 3,
            "seed": 9,
            "draft": "no_draft",
            "age": 2,
            "first_player": 2,
            "turn": 1,
            "ragnarok": ["Muspelheim", "Gimle", "Myrkulor"],
            "destroyed": ["Utgard"],
            "pillaged": ["Elvagar"],
            "clans": [
                {
                    "stats": {"rage": 2, "axes": 3, "horns": 1},
                    "rage": 4,
                    "glory": 11,
                    "hand": ["tyrs_rage"],
                    "quests": ["alfheim_2"],
                    "upgrades": ["troll", "lokis_domain"],
                    "figures": {
                        "Elvagar": ["leader", "warrior"],
                        "North fjord": ["ship"],
                        "Valhalla": ["warrior", "troll"],
                    },
                },
                {},
                {"figures": {"Yggdrasil": ["warrior"]}},
            ],
        }
    )
    written = to_scenario(state)
    assert written["players"] == 3 and written["seed"] == 9 and written["draft"] == "no_draft"
    assert (written["age"], written["phase"], written["turn"]) == (2, "action", 1)
    assert written["first_player"] == 2
    assert written["ragnarok"] == ["Muspelheim", "Gimle", "Myrkulor"]
    assert written["destroyed"] == ["Utgard"], "Muspelheim fell to Age 1's Ragnarök"
    assert written["pillaged"] == ["Elvagar"]
    clan = written["clans"][0]
    assert clan["stats"] == {"rage": 2, "axes": 3, "horns": 1}
    assert (clan["rage"], clan["glory"]) == (4, 11)
    assert clan["hand"] == ["tyrs_rage_2"] and clan["quests"] == ["alfheim_2"]
    assert clan["upgrades"] == ["troll_1", "lokis_domain_1"]
    assert clan["figures"] == {
        "Elvagar": ["leader", "warrior"],
        "North fjord": ["ship"],
        "Valhalla": ["warrior", "troll"],
    }
    assert written["clans"][1]["figures"] == {}
    assert written["clans"][2]["figures"] == {"Yggdrasil": ["warrior"]}


def test_a_normal_draft_and_the_last_province_are_written():
    """The draft mode by name, and Gimle (the last province by number) pillaged."""
    state = from_scenario(
        {
            "players": 2,
            "pillaged": ["Gimle"],
            "ragnarok": ["Muspelheim", "Horgr", "Myrkulor"],
            "clans": [{"figures": {"Elvagar": ["leader"]}}, {}],
        }
    )
    written = to_scenario(state)
    assert written["draft"] == "normal" and written["pillaged"] == ["Gimle"]


def test_a_finished_game_is_refused():
    state = from_scenario({"players": 2, "age": 3, "phase": "release", "clans": [{}, {}]})
    assert state.step == Step.GAME_OVER
    with pytest.raises(ScenarioError, match="only Action-phase positions and phase starts"):
        to_scenario(state)


def test_a_draft_in_progress_is_refused():
    state = from_scenario({"players": 2, "age": 3, "phase": "draft", "clans": [{}, {}]})
    assert state.phase == Phase.DRAFT and state.step != Step.DRAFT_DEAL
    with pytest.raises(ScenarioError, match="only Action-phase positions and phase starts"):
        to_scenario(state)


@pytest.mark.parametrize("what", ["battle", "march", "prompt"])
def test_a_position_inside_a_decision_is_refused(what):
    base = {
        "players": 3,
        "clans": [
            {"figures": {"Elvagar": ["leader", "warrior", "warrior"]}, "hand": ["thors_oath"]},
            {"figures": {"Elvagar": ["warrior"]}, "hand": ["tyrs_bash_1"]},
            {},
        ],
    }
    state = from_scenario(base)
    if what == "battle":
        apply_unchecked(state, 0, next(a for a in legal_actions(state, 0) if a.kind == 8))
    elif what == "march":
        march = next(a for a in legal_actions(state, 0) if a.kind == 3 and a.c == 1)
        apply_unchecked(state, 0, march)
        assert state.march is not None and not state.prompts
    else:
        state = from_scenario({**base, "clans": [{"upgrades": ["friggas_succor"]}, {}, {}]})
        apply_unchecked(state, 0, next(a for a in legal_actions(state, 0) if a.kind == 2))
        assert state.prompts and state.battle is None
    with pytest.raises(ScenarioError, match="cannot be written as a scenario"):
        to_scenario(state)
