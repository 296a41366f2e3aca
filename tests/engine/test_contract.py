"""The game contract (engine/core/contract.py), the registry of games (engine/registry.py) and
Blood Rage behind the contract (engine/blood_rage/rules.py): what the server, bots and
environments may rely on of any game, checked on the game we have."""

from __future__ import annotations

import dataclasses
import importlib.util
import json

import pytest

from engine import SPECTATOR, registry
from engine.blood_rage import flow
from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.ids import CLAN_NAMES, DraftMode, Step
from engine.blood_rage.playout import random_game
from engine.blood_rage.rules import RULES, default_of
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.setup import new_game
from engine.core.contract import VIEW_KEYS, Result, ranks_of
from engine.core.errors import OptionsError, ScenarioError
from engine.core.playout import random_playout
from yggdrasil.v1 import game_pb2 as gp


def test_the_spectator_is_no_seat_and_sees_no_hand() -> None:
    assert SPECTATOR == -1
    state = RULES.new_game(RULES.options(3, 4, {}))
    assert RULES.view(state, SPECTATOR)["private"] is None
    assert RULES.view(state, 0)["private"]["pack"]
    assert "engine_state" not in RULES.view(state, 0)  # only when asked for
    assert RULES.view(state, 0, include_state=True)["engine_state"]["players"] == 3


def test_every_view_has_the_keys_every_game_shares() -> None:
    assert VIEW_KEYS == ("viewer", "version", "awaiting", "committed", "legal_actions")
    state = RULES.new_game(RULES.options(2, 9, {}))
    for viewer in (SPECTATOR, 0, 1):
        view = RULES.view(state, viewer)
        assert set(VIEW_KEYS) <= set(view)
        assert view["viewer"] == viewer and view["version"] == state.version
        assert view["awaiting"] == RULES.awaiting(state)
    legal = RULES.view(state, 0)["legal_actions"]
    assert [e["code"] for e in legal] == [a.code() for a in RULES.legal_actions(state, 0)]
    assert all({"index", "code", "label"} <= set(e) for e in legal)
    assert RULES.view(state, SPECTATOR)["legal_actions"] == []


def test_competition_ranks_share_a_place_and_skip_the_next() -> None:
    assert ranks_of([30, 12, 30, 5]) == (1, 3, 1, 4)
    assert ranks_of([(3, 1), (3, 2), (2, 9)]) == (2, 1, 3)
    assert ranks_of([7]) == (1,)


def test_the_registry_names_each_layers_part_of_blood_rage() -> None:
    entry = registry.entry("blood_rage")
    assert registry.DEFAULT == "blood_rage" == entry.name == RULES.name
    assert entry.kind == gp.GAME_KIND_BLOOD_RAGE
    assert (entry.rules, entry.wire, entry.client) == (
        "engine.blood_rage.rules",
        "protocol.blood_rage",
        "clients.blood_rage",
    )
    for module in (entry.rules, entry.wire, entry.client):
        assert importlib.util.find_spec(module) is not None, module
    assert registry.entry_for_kind(gp.GAME_KIND_BLOOD_RAGE) is entry
    assert registry.rules() is registry.rules("blood_rage") is RULES


def test_the_registry_refuses_what_it_does_not_list() -> None:
    with pytest.raises(KeyError, match="no game 'chess'; known: blood_rage"):
        registry.entry("chess")
    with pytest.raises(KeyError, match="no game of kind 99"):
        registry.entry_for_kind(99)
    with pytest.raises(KeyError):
        registry.entry_for_kind(gp.GAME_KIND_UNSPECIFIED)


def test_a_registry_line_cannot_change_after_the_fact() -> None:
    entry = registry.entry("blood_rage")
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.kind = 7  # type: ignore[misc]
    assert not hasattr(entry, "__dict__")  # slotted: one line per game, nothing added


def test_blood_rage_facts() -> None:
    assert (RULES.name, RULES.title, RULES.score_name) == ("blood_rage", "Blood Rage", "Glory")
    assert (RULES.min_players, RULES.max_players) == (2, 5)
    assert [RULES.seat_label(s) for s in range(5)] == list(CLAN_NAMES[:5])


@pytest.mark.parametrize("players", [2, 5])
def test_options_at_the_edges_of_the_player_count(players: int) -> None:
    options = RULES.options(players, 3, {"draft_mode": 1, "first_player": players - 1})
    assert (options.players, options.seed) == (players, 3)
    assert options.draft_mode == DraftMode.NO_DRAFT and options.first_player == players - 1
    assert RULES.options_record(options) == {"draft_mode": 1, "first_player": players - 1}


@pytest.mark.parametrize(
    ("players", "own", "why"),
    [
        (1, {}, "2 to 5 players, not 1"),
        (6, {}, "2 to 5 players, not 6"),
        (4, {"draft": 1}, r"unknown Blood Rage option\(s\): \['draft'\]"),
        (4, {"draft_mode": 5}, "unknown draft mode 5"),
        (4, {"draft_mode": True}, "draft_mode must be an integer"),
        (4, {"draft_mode": "1"}, "draft_mode must be an integer"),
        (4, {"first_player": True}, "first_player must be a seat number"),
        (4, {"first_player": "2"}, "first_player must be a seat number"),
        (4, {"first_player": 4}, "first player 4 is not a seat"),
    ],
)
def test_options_refused_say_why(players: int, own: dict[str, object], why: str) -> None:
    with pytest.raises(OptionsError, match=why):
        RULES.options(players, 1, own)


def test_the_options_of_a_game_and_of_its_record_agree() -> None:
    options = RULES.options(4, 77, {"first_player": 2})
    assert RULES.options_record(options) == {"draft_mode": 0, "first_player": None} | {
        "first_player": 2
    }
    state = RULES.new_game(options)
    assert RULES.options_of(state) == options
    again = RULES.options(4, 77, RULES.options_record(options))
    assert again == options


def test_a_new_game_is_the_one_blood_rage_deals() -> None:
    state = RULES.new_game(RULES.options(4, 12, {}))
    assert state.state_hash() == new_game(4, 12).state_hash()
    assert state.step == Step.DRAFT_PICK and RULES.awaiting(state) == [0, 1, 2, 3]
    assert RULES.is_simultaneous(state) and RULES.phase(state) == state.phase


def test_a_scenario_through_the_contract_must_leave_a_decision() -> None:
    text = json.dumps({"players": 2, "phase": "action", "clans": [{"rage": 3}, {}]})
    assert RULES.from_scenario(text).state_hash() == from_scenario(text).state_hash()
    ragnarok = ["Muspelheim", "Gimle", "Myrkulor"]
    over = {"players": 2, "ragnarok": ragnarok, "clans": [{}, {}], "age": 3, "phase": "ragnarok"}
    assert from_scenario(over).step == Step.GAME_OVER  # fine to look at ...
    with pytest.raises(ScenarioError, match="nobody has a decision left"):
        RULES.from_scenario(json.dumps(over))  # ... but not to host


def test_apply_through_the_contract_is_checked_and_the_fast_path_is_not() -> None:
    state = RULES.new_game(RULES.options(3, 5, {}))
    before = state.state_hash()
    with pytest.raises(ValueError):
        RULES.apply(state, 0, Action(ActionKind.PASS))
    assert state.state_hash() == before
    first = RULES.legal_actions(state, 0)[0]
    twin = state.copy()
    RULES.apply(state, 0, first)
    RULES.apply_unchecked(twin, 0, first)
    assert state.state_hash() == twin.state_hash() != before


def test_a_timed_out_seat_gives_up_what_it_can() -> None:
    assert default_of([Action(ActionKind.INVADE, 0, 3), Action(ActionKind.PASS)]) == Action(
        ActionKind.PASS
    )
    picks = [Action(ActionKind.DRAFT_PICK, 9), Action(ActionKind.DRAFT_PICK, 4)]
    assert default_of(picks) == picks[0]
    with pytest.raises(ValueError, match="no legal action"):
        default_of([])
    state = RULES.new_game(RULES.options(2, 8, {}))
    assert RULES.default_action(state, 1) == RULES.legal_actions(state, 1)[0]


@pytest.mark.parametrize("code", [-1, 1 << 29, 31])
def test_codes_that_are_no_action_are_refused(code: int) -> None:
    with pytest.raises(ValueError, match="not a Blood Rage action code"):
        RULES.action_from_code(code)


def test_codes_and_descriptions_round_trip() -> None:
    assert RULES.action_from_code(0) == Action(ActionKind.DRAFT_PICK, 0)
    action = Action(ActionKind.MARCH, 3, 7, 1)
    assert RULES.action_from_code(action.code()) == action
    assert RULES.action_from_code((1 << 29) - 1 - 31 + ActionKind.PASS).kind == ActionKind.PASS
    assert RULES.describe(Action(ActionKind.PASS)) == "pass"


def test_snapshots_through_the_contract_round_trip() -> None:
    state = random_game(3, 4, max_actions=20_000).state
    back = RULES.from_snapshot(RULES.to_snapshot(state))
    assert back.state_hash() == state.state_hash()
    assert RULES.result(back) == RULES.result(state) is not None


def test_the_result_of_a_finished_game_only() -> None:
    state = RULES.new_game(RULES.options(2, 3, {}))
    assert RULES.result(state) is None
    done = random_game(2, 3).state
    r = RULES.result(done)
    assert isinstance(r, Result) and len(r.scores) == 2
    assert set(r.winners) == {s for s in range(2) if r.ranks[s] == 1}


def test_a_random_playout_through_the_contract_is_blood_rages_own() -> None:
    generic = random_playout(RULES, RULES.options(3, 21, {}))
    own = random_game(3, 21)
    assert [(s, a) for s, a in generic.log] == own.log
    assert generic.state.state_hash() == own.state.state_hash()


def test_a_playout_may_take_exactly_its_limit_and_not_one_more() -> None:
    length = len(random_game(2, 6).log)
    assert len(random_playout(RULES, RULES.options(2, 6, {}), max_actions=length).log) == length
    with pytest.raises(RuntimeError, match=f"did not end after {length - 1} actions"):
        random_playout(RULES, RULES.options(2, 6, {}), max_actions=length - 1)


def test_the_contracts_fast_path_is_the_flow() -> None:
    state = RULES.new_game(RULES.options(4, 2, {}))
    assert RULES.legal_actions(state, 2) == flow.legal_actions(state, 2)
    assert RULES.awaiting(state) == flow.awaiting(state)
