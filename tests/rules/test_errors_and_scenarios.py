"""Checked apply: illegal actions and out-of-turn actions leave the state untouched; the
scenario format refuses impossible positions with a message naming the problem."""

from __future__ import annotations

import pytest

from engine.blood_rage.flow import apply
from engine.blood_rage.ids import Area, Unit
from engine.blood_rage.scenario import from_scenario
from engine.core.errors import IllegalActionError, ScenarioError

# -- Illegal and out-of-turn actions ----------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        (2, Unit.WARRIOR, Area.YGGDRASIL),  # invade Yggdrasil
        (2, Unit.SHIP, Area.GIMLE),  # ship into a province
        (2, Unit.WARRIOR, Area.NORTH_FJORD),  # warrior into a fjord
        (2, Unit.TROLL, Area.GIMLE),  # a monster the clan does not have
        (2, Unit.WARRIOR, Area.ANDLANG),  # full province
        (3, Area.GIMLE, Area.ELVAGAR, Unit.LEADER),  # march a figure that is not there
        (3, Area.NORTH_FJORD, Area.ELVAGAR, Unit.SHIP),  # march a ship
        (8, Area.MYRKULOR, 0, 0),  # pillage without presence
        (8, Area.HORGR, 0, 0),  # pillage an already pillaged province
        (4, Unit.WARRIOR, 0, 0),  # march-more outside a march
        (10, 0, 0, 0),  # decline with nothing offered
        (15, 0, 0, 0),  # raise a stat with no quest success
        (12, 0, 0, 0),  # battle card outside a battle
        (31, 0, 0, 0),  # no such action kind
    ],
)
def test_illegal_actions_raise_and_leave_the_state_unchanged(h, action):
    state = h.scenario(
        3,
        [
            {
                "hand": ["tyrs_bash"],
                "figures": {"Gimle": ["warrior"], "North fjord": ["ship"], "Horgr": ["warrior"]},
            },
            {"figures": {"Andlang": ["warrior", "warrior", "warrior"]}},
            {},
        ],
        pillaged=["Horgr"],
    )
    before = state.state_hash()
    version = state.version
    with pytest.raises(IllegalActionError) as info:
        apply(state, 0, h.A(*action))
    assert str(info.value)
    assert state.state_hash() == before
    assert state.version == version


def test_unaffordable_and_out_of_turn_actions(h):
    state = h.scenario(3, [{"rage": 1, "hand": ["lord_of_hammers"]}, {}, {}])
    h.assert_illegal(state, 0, (h.K.UPGRADE, h.card(state, 0, "lord_of_hammers"), 0))
    msg = h.assert_illegal(state, 0, (h.K.INVADE, Unit.SHIP, Area.NORTH_FJORD))
    assert "Rage" in msg
    h.assert_not_yours(state, 1, (h.K.PASS,))
    h.assert_not_yours(state, 2, (h.K.INVADE, Unit.LEADER, Area.GIMLE))


def test_out_of_turn_during_call_and_prompts(h):
    state = h.scenario(
        3,
        [
            {"figures": {"Gimle": ["warrior"]}},
            {"figures": {"Yggdrasil": ["warrior"]}},
            {"hand": ["brothers_in_arms"]},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    assert h.awaiting(state) == [1]
    h.assert_not_yours(state, 0, (h.K.DECLINE,))
    h.assert_not_yours(state, 2, (h.K.DECLINE,))
    h.assert_illegal(state, 1, (h.K.CALL_TO_BATTLE, Area.ANDLANG, Unit.WARRIOR))
    h.act(state, 1, h.K.DECLINE)
    assert state.turn == 1 and state.pillaged[Area.GIMLE]


def test_failed_apply_inside_a_battle_keeps_the_battle(h):
    state = h.scenario(
        2,
        [
            {"hand": ["tyrs_bash"], "figures": {"Gimle": ["leader"]}},
            {"hand": ["tyrs_smash"], "figures": {"Gimle": ["warrior"]}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, Area.GIMLE)
    h.decline_calls(state)
    foreign = h.card(state, 1, "tyrs_smash")
    h.assert_illegal(state, 0, (h.K.BATTLE_CARD, foreign))
    h.assert_illegal(state, 0, (h.K.KEEP_NONE,))
    assert sorted(h.awaiting(state)) == [0, 1]


# -- Scenario rejections ----------------------------------------------------------------


def _scenario(clans, players=2, **kw):
    data = {"players": players, "clans": clans + [{}] * (players - len(clans))}
    data.update(kw)
    return data


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (
            _scenario(
                [
                    {"figures": {"Andlang": ["warrior", "warrior", "leader"]}},
                    {"figures": {"Andlang": ["warrior", "warrior"]}},
                ]
            ),
            ["Andlang", "villages"],
        ),
        (
            _scenario(
                [
                    {
                        "stats": {"horns": 6},
                        "figures": {"Gimle": ["warrior"] * 5, "Horgr": ["warrior"] * 4},
                    }
                ]
            ),
            ["more than 8 warriors"],
        ),
        (_scenario([{"figures": {"North fjord": ["warrior"]}}]), ["warrior", "North fjord"]),
        (_scenario([{"figures": {"Gimle": ["ship"]}}]), ["ship", "Gimle"]),
        (
            _scenario([{"figures": {"Horgr": ["warrior"]}}], destroyed=["Horgr"]),
            ["Horgr", "destroyed"],
        ),
        (
            _scenario(
                [{"figures": {"Muspelheim": ["warrior"]}}],
                age=2,
                ragnarok=["Muspelheim", "Gimle", "Horgr"],
            ),
            ["Muspelheim", "destroyed"],
        ),
        (_scenario([{"figures": {"Gimle": ["troll"]}}]), ["troll", "card"]),
        (
            _scenario([{"figures": {"Gimle": ["warrior"] * 4, "Yggdrasil": ["leader"]}}]),
            ["Horns"],
        ),
        (_scenario([{"figures": {"Gimle": ["leader", "leader"]}}]), ["leader"]),
        (_scenario([{}], players=6), ["players"]),
        (_scenario([{"figures": {"Atlantis": ["warrior"]}}]), ["Atlantis"]),
        (_scenario([{"hand": ["no_such_card"]}]), ["no_such_card"]),
        (_scenario([{"quests": ["tyrs_bash"]}]), ["quest"]),
        (
            _scenario([{"upgrades": ["troll", "dwarf_chieftain", "sea_serpent"]}], players=3),
            ["monster"],
        ),
        (_scenario([{"hand": ["tyrs_bash"]}, {"hand": ["tyrs_bash"]}]), ["Tyr's Bash"]),
        (_scenario([{}], ragnarok=["Gimle", "Gimle", "Horgr"]), ["ragnarok"]),
        (_scenario([{}], destroyed=["Gimle"], ragnarok=["Gimle", "Horgr", "Utgard"]), ["Gimle"]),
        (_scenario([{"rage": 0}], turn=0), ["Rage"]),
    ],
)
def test_impossible_positions_are_refused_with_a_reason(data, words):
    with pytest.raises(ScenarioError) as info:
        from_scenario(data)
    message = str(info.value)
    for word in words:
        assert word.lower() in message.lower(), message


def test_figures_in_valhalla_do_not_count_against_horns_or_villages():
    state = from_scenario(
        _scenario(
            [
                {
                    "figures": {
                        "Andlang": ["warrior"] * 3,
                        "North fjord": ["ship"],
                        "Valhalla": ["warrior"] * 5 + ["leader"],
                    }
                }
            ]
        )
    )
    assert state.clans[0].on_board() == 4
    assert state.occupancy[Area.ANDLANG] == 3


def test_scenario_accepts_json_text():
    text = '{"players": 2, "clans": [{"figures": {"Gimle": ["leader"]}}, {}]}'
    state = from_scenario(text)
    assert state.clans[0].loc[0] == Area.GIMLE
    with pytest.raises(ScenarioError):
        from_scenario("{not json")
