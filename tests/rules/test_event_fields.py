"""Fields of engine events that no other test looked at (found by mutation testing): the
pillage reward's name and count, a quest's Glory with Odin's Throne, each clan's figures
released from Valhalla, the card behind Frigga's Sacrifice."""

from __future__ import annotations

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply, awaiting
from engine.blood_rage.ids import Area, Stat, Unit

K = ActionKind


def _events(state, kind):
    return [(audience, p) for audience, p in state.events if p["type"] == kind]


def _recorded(h, players, clans, **fields):
    state = h.scenario(players, clans, **fields)
    state.events = []
    return state


def test_the_reward_of_yggdrasil_is_named_all_stats(h):
    state = _recorded(h, 3, [{"figures": {"Yggdrasil": ["leader"]}}])
    apply(state, 0, Action(K.PILLAGE, Area.YGGDRASIL))
    assert _events(state, "pillage_reward") == [
        (
            -1,
            {
                "type": "pillage_reward",
                "seat": 0,
                "province": Area.YGGDRASIL,
                "reward": "all_stats",
                "times": 1,
            },
        )
    ]


def test_the_frost_giant_gains_the_reward_twice(h):
    state = _recorded(
        h,
        3,
        [{"upgrades": ["frost_giant"], "figures": {"Elvagar": ["frost_giant"]}}],
        age=3,
    )
    apply(state, 0, Action(K.PILLAGE, Area.ELVAGAR))
    ((_, event),) = _events(state, "pillage_reward")
    assert (event["reward"], event["times"]) == ("horns", 2)
    assert h.axes(state, 0) == 3 and state.clans[0].steps[Stat.HORNS] == 2


def test_a_quest_event_counts_odins_throne(h):
    """Seat 1's Age 2 Alfheim quest (7 Glory) doubled by Odin's Throne: 14 in its event."""
    state = _recorded(
        h,
        3,
        [
            {"figures": {"Elvagar": ["warrior"]}},
            {
                "upgrades": ["odins_throne"],
                "quests": ["alfheim_2"],
                "figures": {"Andlang": ["leader"]},
            },
        ],
        age=2,
        ragnarok=["Muspelheim", "Horgr", "Myrkulor"],
    )
    for seat in range(3):
        apply(state, seat, Action(K.PASS))
    ((audience, event),) = _events(state, "quest")
    assert audience == -1
    assert (event["seat"], event["success"], event["glory"]) == (1, True, 14)


def test_the_release_event_counts_each_clans_figures(h):
    state = _recorded(
        h,
        3,
        [
            {"figures": {"Valhalla": ["leader", "warrior"], "Elvagar": ["warrior"]}},
            {},
            {"figures": {"Valhalla": ["warrior"]}},
        ],
    )
    for seat in range(3):
        apply(state, seat, Action(K.PASS))
    while awaiting(state) and state.prompts:
        seat = awaiting(state)[0]
        apply(state, seat, Action(K.RAISE_STAT, 0))
    assert _events(state, "release") == [(-1, {"type": "release", "age": 1, "released": [2, 0, 1]})]


def test_frigga_sacrifice_names_its_card_behind_another_upgrade(h):
    """The Sacrifice is not the clan's first upgrade (Lord of Spears is): the destruction
    event still names the Sacrifice."""
    state = _recorded(
        h,
        3,
        [
            {
                "upgrades": ["lord_of_spears", "friggas_sacrifice"],
                "figures": {"Elvagar": ["leader", "warrior"]},
            }
        ],
        age=3,
    )
    sacrifice = state.clans[0].slots[5]
    assert h.key(state.clans[0].slots[0]) == "lord_of_spears"
    assert h.key(sacrifice) == "friggas_sacrifice"
    apply(state, 0, Action(K.SACRIFICE, Unit.WARRIOR, Area.ELVAGAR))
    ((_, event),) = _events(state, "figures_destroyed")
    assert event["card"] == sacrifice and event["cause"] == "own_choice"
