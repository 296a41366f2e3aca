"""Fire & Axe behind the game contract: the registry line, options and their record, action
codes and texts, the default decision of a timed-out seat, and the demo command."""

from __future__ import annotations

import re

import pytest

from engine import registry
from engine.__main__ import main as engine_main
from engine.core.contract import Rules
from engine.core.errors import OptionsError
from engine.core.playout import random_playout
from engine.fire_and_axe.actions import Action, describe
from engine.fire_and_axe.data_pack import demo_pack
from engine.fire_and_axe.ids import CREW, FISH
from engine.fire_and_axe.rules import RULES
from tests.fire_and_axe.fae_support import K, act, legal, loc, rig, scenario, seats


def test_the_registry_names_fire_and_axe() -> None:
    entry = registry.entry("fire_and_axe")
    assert (entry.kind, entry.rules, entry.wire, entry.client) == (
        2,
        "engine.fire_and_axe.rules",
        "protocol.fire_and_axe",
        "clients.fire_and_axe",
    )
    assert registry.entry_for_kind(2) is entry and registry.rules("fire_and_axe") is RULES
    for name in ("options", "options_record", "new_game", "from_scenario", "awaiting"):
        assert callable(getattr(RULES, name)) and hasattr(Rules, name)
    assert (RULES.min_players, RULES.max_players, RULES.score_name) == (2, 5, "VP")


def test_options_and_their_record() -> None:
    options = RULES.options(
        3,
        9,
        {
            "settle_region_block": "any",
            "rune_timing": "any_time",
            "no_conflict": True,
            "first_player": 2,
        },
    )
    record = RULES.options_record(options)
    assert record == {
        "settle_region_block": "any",
        "rune_timing": "any_time",
        "no_conflict": True,
        "first_player": 2,
        "data_pack": demo_pack().digest,
    }
    again = RULES.options(3, 9, record)
    assert RULES.new_game(again).state_hash() == RULES.new_game(options).state_hash()
    assert RULES.options_record(RULES.options(2, 0, {}))["data_pack"] == demo_pack().digest


@pytest.mark.parametrize(
    ("game_options", "message"),
    [
        ({"colour": "red"}, "unknown Fire & Axe option"),
        ({"first_player": True}, "first_player must be a seat number"),
        ({"first_player": 3}, "first player 3 is not a seat"),
        ({"no_conflict": "yes"}, "no_conflict must be true or false"),
        ({"rune_timing": 1}, "rune_timing must be a string"),
        ({"rune_timing": "never"}, "rune_timing must be one of"),
        ({"settle_region_block": "most"}, "settle_region_block must be one of"),
    ],
)
def test_bad_options_are_refused(game_options: dict[str, object], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        RULES.options(3, 0, game_options)
    with pytest.raises(OptionsError, match="seed"):
        RULES.options(3, -1, {})


def test_action_codes_round_trip() -> None:
    s = scenario(seats=seats({"location": "Paris", "crew": 2, "hand": ["storm", "hidden-cargo"]}))
    for action in legal(s):
        assert RULES.action_from_code(action.code()) == action
    assert RULES.action_from_code(Action(K.PLAY_RUNE, 15, 2, 3).code()) == (K.PLAY_RUNE, 15, 2, 3)
    for bad in (-1, 1 << 29, 31):
        with pytest.raises(ValueError):
            RULES.action_from_code(bad)


def test_describe_with_and_without_names() -> None:
    s = scenario()
    names = s.board.names
    runes = tuple(r.name for r in s.board.runes)
    sail = Action(K.SAIL, loc(s, "kiev"))
    assert describe(sail, names, runes) == "sail -> Kiev"
    assert RULES.describe(sail) == f"sail -> location #{loc(s, 'kiev')}"
    play = Action(K.PLAY_RUNE, s.board.rune_index("storm"), 1, 1)
    assert describe(play, names, runes) == (
        "play Storm (demo), turning the dial clockwise (choice 1)"
    )
    assert describe(Action(K.LOSE, CREW)) == "lose crew"
    assert describe(Action(30, 1, 2, 3)) == "unknown action kind 30 (1, 2, 3)"
    assert describe(Action(K.LOAD_GOOD, 7)) == "load no goods type 7"


def test_the_default_decision_gives_up_what_it_can() -> None:
    s = scenario(seats=seats({"location": "Paris", "crew": 2}, {"crew": 1}))
    assert RULES.default_action(s, 0) == (K.END_TURN, 0, 0, 0)
    act(s, K.END_TURN)
    assert RULES.default_action(s, 1).kind == K.LEAVE_WINTERING
    s = scenario(seats=seats({}))
    assert RULES.default_action(s, 0).kind == K.LOAD_CREW
    # A card in hand is kept: the crewed ship leaves rather than discard it.
    for card in ("ambush", "plunder", "storm"):
        s = scenario(seats=seats({"crew": 1, "hand": [card]}))
        assert RULES.default_action(s, 0).kind == K.LEAVE_WINTERING
    s = scenario(
        days={"sailing": 2}, seats=seats({"location": "Norway", "crew": 2, "goods": {"fish": 1}})
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    assert RULES.default_action(s, 0) == (K.LOSE, FISH, 0, 0)
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Paris", "crew": 3}),
    )
    rig(s, 1)
    act(s, K.RAID)
    assert RULES.default_action(s, 0).kind == K.RAID_STOP
    with pytest.raises(ValueError):
        RULES.default_action(s, 1)


def test_every_default_decision_is_legal() -> None:
    s = RULES.new_game(RULES.options(3, 2, {"rune_timing": "any_time"}))
    for _ in range(3000):
        who = RULES.awaiting(s)[0]
        RULES.apply(s, who, RULES.default_action(s, who))  # checked: refuses the illegal
    # Timed-out seats only leave home and end their turns: nobody sails into losses.
    assert s.version == 3000 and all(p.loc in s.board.homelands for p in s.seats)


@pytest.mark.parametrize("players", [2, 5])
def test_the_demo_command_plays_a_game(capsys: pytest.CaptureFixture[str], players: int) -> None:
    assert engine_main(["demo", "--game", "fire_and_axe", "--players", str(players)]) == 0
    lines = capsys.readouterr().out.splitlines()
    playout = random_playout(RULES, RULES.options(players, 1, {}))
    r = RULES.result(playout.state)
    assert r is not None
    head = re.fullmatch(
        rf"Fire & Axe: A Viking Saga, {players} players, seed 1: (\d+) decisions in [0-9.]+ ms",
        lines[0],
    )
    assert head is not None and int(head.group(1)) == len(playout.log)
    assert len(lines) == players + 2 and lines[-1] == f"state hash {playout.state.state_hash()}"
    assert all(" VP" in line for line in lines[1:-1])
