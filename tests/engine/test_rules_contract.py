"""Blood Rage behind the game contract (engine/blood_rage/rules.py), the registry of games
(engine/registry.py), the generic random playout (engine/core/playout.py) and the seeded
generator (engine/core/rng.py): what the server, the bots and the environments may ask of a
game, answered the way the rules beside them answer it."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import random
import runpy
import sys

import pytest

from engine import registry
from engine.blood_rage import flow
from engine.blood_rage.actions import Action, ActionKind, describe
from engine.blood_rage.ids import Area, DraftMode, Step
from engine.blood_rage.playout import random_game
from engine.blood_rage.rules import RULES
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.setup import GameOptions, new_game
from engine.blood_rage.snapshot import to_snapshot
from engine.blood_rage.view import view
from engine.core.contract import SPECTATOR
from engine.core.errors import IllegalActionError, OptionsError, ScenarioError
from engine.core.playout import random_playout
from engine.core.rng import SplitMix64

# -- options ----------------------------------------------------------------------------


def test_the_player_counts_the_rules_announce_are_the_ones_they_accept():
    assert (RULES.name, RULES.title, RULES.score_name) == ("blood_rage", "Blood Rage", "Glory")
    for players in range(RULES.min_players, RULES.max_players + 1):
        state = RULES.new_game(RULES.options(players, 3, {}))
        assert state.players == players
    for players in (RULES.min_players - 1, RULES.max_players + 1):
        with pytest.raises(OptionsError):
            RULES.options(players, 3, {})
    assert (RULES.min_players, RULES.max_players) == (2, 5), "blood-rage.md: 2 to 5 clans"


def test_options_take_a_draft_mode_and_a_first_player():
    options = RULES.options(3, 7, {"draft_mode": 1, "first_player": 2})
    assert options == GameOptions(3, 7, DraftMode.NO_DRAFT, 2)
    assert RULES.options(3, 7, {}) == GameOptions(3, 7, DraftMode.NORMAL, None)
    state = RULES.new_game(options)
    assert (state.first_player, state.draft_mode) == (2, DraftMode.NO_DRAFT)
    assert RULES.options_record(options) == {"draft_mode": 1, "first_player": 2}
    assert RULES.options_of(state) == options
    record = RULES.options_record(RULES.options(4, 1, {}))
    assert record == {"draft_mode": 0, "first_player": None}


@pytest.mark.parametrize(
    ("game_options", "message"),
    [
        ({"colour": "red"}, r"unknown Blood Rage option\(s\): \['colour'\]"),
        ({"draft_mode": True}, "draft_mode must be an integer"),
        ({"draft_mode": "1"}, "draft_mode must be an integer"),
        ({"draft_mode": 2}, "unknown draft mode 2"),
        ({"draft_mode": -1}, "unknown draft mode -1"),
        ({"first_player": True}, "first_player must be a seat number"),
        ({"first_player": "0"}, "first_player must be a seat number"),
        ({"first_player": 3}, "first player 3 is not a seat"),
    ],
)
def test_options_refuse_what_they_do_not_know(game_options, message):
    with pytest.raises(OptionsError, match=message):
        RULES.options(3, 1, game_options)


# -- playing through the contract --------------------------------------------------------


def test_the_contract_plays_as_the_rules_do():
    state = RULES.new_game(RULES.options(4, 9, {}))
    reference = new_game(4, 9)
    assert state.state_hash() == reference.state_hash()
    rng = random.Random(1)
    for _ in range(120):
        seat = RULES.awaiting(state)[0]
        assert RULES.awaiting(state) == flow.awaiting(reference)
        assert RULES.is_simultaneous(state) == flow.is_simultaneous(reference)
        legal = list(RULES.legal_actions(state, seat))
        assert legal == flow.legal_actions(reference, seat)
        action = rng.choice(legal)
        RULES.apply(state, seat, action)
        flow.apply_unchecked(reference, seat, action)
        assert state.state_hash() == reference.state_hash()
    seen_simultaneous = {RULES.is_simultaneous(new_game(3, 1)), RULES.is_simultaneous(state)}
    assert True in seen_simultaneous, "the draft is simultaneous"


def test_the_checked_apply_refuses_and_the_unchecked_one_trusts():
    state = RULES.new_game(RULES.options(3, 2, {}))
    before = state.state_hash()
    with pytest.raises(IllegalActionError):
        RULES.apply(state, 0, Action(ActionKind.PASS))
    assert state.state_hash() == before
    pick = RULES.legal_actions(state, 0)[0]
    RULES.apply_unchecked(state, 0, pick)
    assert state.version == 1 and pick.a in state.clans[0].hand


def test_the_default_action_gives_up_what_it_can():
    """Pass, decline, end the march, keep no card; else the first legal action (a draft
    pick)."""
    drafting = new_game(3, 4)
    assert RULES.default_action(drafting, 0) == flow.legal_actions(drafting, 0)[0]
    with pytest.raises(ValueError, match="no legal action"):
        RULES.default_action(from_scenario({"players": 3, "turn": 1, "clans": [{}, {}, {}]}), 0)
    acting = from_scenario(
        {"players": 3, "clans": [{"figures": {"Elvagar": ["leader", "warrior"]}}, {}, {}]}
    )
    assert RULES.default_action(acting, 0) == Action(ActionKind.PASS)
    flow.apply(acting, 0, Action(ActionKind.MARCH, Area.ELVAGAR, Area.ANGERBODA, 1))
    assert RULES.default_action(acting, 0) == Action(ActionKind.MARCH_DONE)
    calling = from_scenario(
        {
            "players": 3,
            "clans": [
                {"figures": {"Elvagar": ["leader"]}},
                {"figures": {"Angerboda": ["warrior"]}},
                {},
            ],
        }
    )
    flow.apply(calling, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    assert RULES.default_action(calling, 1) == Action(ActionKind.DECLINE)
    discarding = from_scenario(
        {"players": 3, "phase": "discard", "clans": [{"hand": ["tyrs_bash_1"]}, {}, {}]}
    )
    assert RULES.default_action(discarding, 0) == Action(ActionKind.KEEP_NONE)


def test_views_results_labels_and_snapshots_are_the_rules_own():
    state = RULES.new_game(RULES.options(3, 6, {}))
    assert RULES.view(state) == view(state, SPECTATOR)
    assert RULES.view(state)["viewer"] == SPECTATOR and RULES.view(state)["private"] is None
    assert "engine_state" not in RULES.view(state, 1)
    assert RULES.view(state, 1, True) == view(state, 1, include_state=True)
    assert [RULES.seat_label(s) for s in range(5)] == ["Wolf", "Raven", "Serpent", "Bear", "Ram"]
    assert RULES.result(state) is None
    finished = random_game(2, 3).state
    result = RULES.result(finished)
    assert result is not None and list(result.scores) == [c.glory for c in finished.clans]
    snapshot = RULES.to_snapshot(state)
    assert snapshot == to_snapshot(state)
    restored = RULES.from_snapshot(json.loads(json.dumps(snapshot)))
    assert restored.state_hash() == state.state_hash()


def test_action_codes_come_back_as_actions():
    state = new_game(4, 1)
    for action in flow.legal_actions(state, 0):
        assert RULES.action_from_code(action.code()) == action
        assert RULES.describe(action) == describe(action)
    largest = Action(24, 255, 255, 255).code()
    assert largest < 1 << 29 and RULES.action_from_code(largest).kind == 24
    for code in (-1, -32, 1 << 29, (1 << 29) + 5, Action(25, 0, 0, 0).code()):
        with pytest.raises(ValueError, match="is not a Blood Rage action code"):
            RULES.action_from_code(code)
    assert RULES.action_from_code(0) == Action(ActionKind.DRAFT_PICK, 0, 0, 0)


def test_a_hosted_scenario_must_leave_a_decision():
    over = {"players": 2, "age": 3, "phase": "release", "clans": [{}, {}]}
    assert from_scenario(over).step == Step.GAME_OVER
    with pytest.raises(ScenarioError):
        RULES.from_scenario(json.dumps(over))
    playable = {"players": 2, "clans": [{"figures": {"Elvagar": ["leader"]}}, {}]}
    assert RULES.from_scenario(json.dumps(playable)).step == Step.ACTION


# -- the registry ------------------------------------------------------------------------


def test_the_registry_finds_blood_rage_by_name_and_by_kind():
    entry = registry.entry("blood_rage")
    assert registry.entry_for_kind(1) is entry, "GameKind 1 of proto/yggdrasil/v1/game.proto"
    assert registry.rules("blood_rage") is RULES and registry.rules() is RULES
    assert registry.DEFAULT == "blood_rage", "records written before there were two games"
    assert entry.rules == "engine.blood_rage.rules"
    assert (entry.wire, entry.client) == ("protocol.blood_rage", "clients.blood_rage")
    assert entry.envs == "envs.blood_rage", "its learning environments' encoding"
    for module in (entry.rules, entry.wire, entry.client, entry.envs):
        assert importlib.util.find_spec(module) is not None, f"{module} is no module"
    with pytest.raises(KeyError, match="no game 'chess'; known: blood_rage"):
        registry.entry("chess")
    for kind in (0, 99):
        with pytest.raises(KeyError, match=f"no game of kind {kind}"):
            registry.entry_for_kind(kind)


def test_a_registry_entry_is_frozen():
    entry = registry.entry("blood_rage")
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.name = "other"  # type: ignore[misc]
    assert not hasattr(entry, "__dict__"), "slotted"


# -- playouts ----------------------------------------------------------------------------


def test_a_random_playout_through_the_contract_is_the_rules_random_game():
    options = RULES.options(3, 8, {})
    playout = random_playout(RULES, options)
    reference = random_game(3, 8)
    assert playout.log == reference.log
    assert playout.state.state_hash() == reference.state.state_hash()
    other = random_playout(RULES, options, chooser_seed=99)
    assert other.log == random_game(3, 8, chooser_seed=99).log
    assert other.log != playout.log, "the chooser's seed picks other actions"


def test_a_playout_stops_after_its_action_budget():
    length = len(random_game(2, 1).log)
    options = RULES.options(2, 1, {})
    assert len(random_playout(RULES, options, max_actions=length).log) == length
    with pytest.raises(RuntimeError, match=f"did not end after {length - 1} actions"):
        random_playout(RULES, options, max_actions=length - 1)
    assert len(random_game(2, 1, max_actions=length).log) == length
    with pytest.raises(RuntimeError, match=f"did not end after {length - 1} actions"):
        random_game(2, 1, max_actions=length - 1)


# -- the seeded generator ----------------------------------------------------------------


def test_the_generator_reads_its_seed_modulo_2_to_the_64():
    def draws(seed: int) -> list[int]:
        rng = SplitMix64(seed)
        return [rng.next_u64() for _ in range(3)]

    assert draws(5) == draws(5 + (1 << 64)) != draws(6)
    assert draws(-1) == draws((1 << 64) - 1)


# -- python -m engine ---------------------------------------------------------------------


def test_python_dash_m_engine_runs_the_demo(capsys, monkeypatch):
    """``python -m engine``, run in this process (runpy finds the module as ``-m`` does)."""
    monkeypatch.setattr(sys, "argv", ["engine", "demo", "--players", "2", "--seed", "4"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module("engine", run_name="__main__")
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("Blood Rage, 2 players, seed 4: ")
    monkeypatch.setattr(sys, "argv", ["engine"])
    with pytest.raises(SystemExit) as missing:
        runpy.run_module("engine", run_name="__main__")
    assert missing.value.code == 2
    assert "the following arguments are required: command" in capsys.readouterr().err
