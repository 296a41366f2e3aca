"""Names and defaults a caller of the engine relies on: clan, unit and area names in views
and scenarios (written by people: any case, spaces, '_' or '-'), comments in scenarios, the
defaults of a new game, and the immutable values every game shares."""

from __future__ import annotations

import dataclasses

import pytest

from engine.blood_rage import new_game
from engine.blood_rage.cards import card_of
from engine.blood_rage.results import Result
from engine.blood_rage.rules import BloodRageRules
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.setup import GameOptions
from engine.blood_rage.view import view


def test_five_clans_their_names_and_a_scenario_written_by_hand():
    """Seat 0 of five holds a Soldier of Hel named three ways: its unit key in the view is
    always ``soldier_of_hel``; comments are allowed at the top and in a clan."""
    state = from_scenario(
        {
            "comment": "written by hand",
            "players": 5,
            "age": 3,
            "clans": [
                {
                    "comment": "the Wolf",
                    "upgrades": ["soldier_of_hel"],
                    "figures": {
                        "north_fjord": ["ship"],
                        "Elvagar": ["Soldier of Hel"],
                        "GIMLE": ["leader"],
                    },
                },
                {"figures": {"East-fjord": ["ship"]}},
                {},
                {},
                {},
            ],
        }
    )
    seen = view(state, 4)
    assert [c["clan"] for c in seen["clans"]] == ["Wolf", "Raven", "Serpent", "Bear", "Ram"]
    placed = [f for f in seen["clans"][0]["figures"] if f["location"] != "reserve"]
    assert placed == [
        {"unit": "leader", "location": "Gimle"},
        {"unit": "ship", "location": "North fjord"},
        {"unit": "soldier_of_hel", "location": "Elvagar"},
    ]
    assert {"unit": "ship", "location": "East fjord"} in seen["clans"][1]["figures"]
    assert repr(state).startswith("<GameState players=5 age=3 phase=1 step=3 version=0 hash=")


def test_a_new_game_by_default_is_four_players_on_seed_0():
    assert GameOptions() == GameOptions(players=4, seed=0)
    default = new_game()
    assert (default.players, default.seed) == (4, 0)
    assert default.state_hash() == new_game(4, 0).state_hash()


@pytest.mark.parametrize(
    "make",
    [
        lambda: BloodRageRules().options(4, 0, {}),
        lambda: Result(scores=(3, 1), winners=(0,), ranks=(1, 2)),
        lambda: card_of(0),
    ],
    ids=["GameOptions", "Result", "CardDef"],
)
def test_shared_values_cannot_be_changed(make):
    """Options, results and card definitions are shared (one card table for every game):
    no field can be set, and none can be added. Each is made as a game makes it (the
    options by the rules), inside the test."""
    value = make()
    field = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, getattr(value, field))
    assert not hasattr(value, "__dict__"), "slots: no per-instance dict to add fields to"
