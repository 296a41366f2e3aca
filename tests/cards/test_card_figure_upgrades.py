"""Leader, Warrior and Ship upgrades (cards.md: Lord of Hammers/Axes/Spears, Brothers/Experts/
Masters in Arms, Loki's/Fire/Eternal Dragons)."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import FIG_LEADER, FIG_SHIP, RESERVE, VALHALLA, Area, Unit
from engine.blood_rage.state import PromptKind

E, ANG, MYR, YGG = Area.ELVAGAR, Area.ANGERBODA, Area.MYRKULOR, Area.YGGDRASIL


# -- Lord of Hammers: after a successful pillage with the leader in it, may move it -------


def _hammers(g, enemy_in_myrkulor=True):
    return g.state(
        3,
        [
            {"upgrades": ["lord_of_hammers"], "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Myrkulor": ["warrior"] * 3} if enemy_in_myrkulor else {}},
        ],
    )


def test_lord_of_hammers_offers_adjacent_provinces_with_room(g):
    s = _hammers(g)
    g.pillage(s, 0, E)
    assert s.pillaged[E] and g.prompt(s) == (PromptKind.MOVE_LEADER, 0)
    # Elvagar's neighbours: Yggdrasil, Myrkulor (full) and Angerboda.
    assert sorted(g.legal(s, 0)) == sorted(
        [g.A(g.K.MOVE_LEADER, YGG), g.A(g.K.MOVE_LEADER, ANG), g.A(g.K.DECLINE)]
    )
    g.act(s, 0, g.K.MOVE_LEADER, ANG)
    assert s.clans[0].loc[FIG_LEADER] == ANG
    assert s.turn == 1


def test_lord_of_hammers_may_decline(g):
    s = _hammers(g, enemy_in_myrkulor=False)
    g.pillage(s, 0, E)
    assert g.A(g.K.MOVE_LEADER, MYR) in g.legal(s, 0)
    g.act(s, 0, g.K.DECLINE)
    assert s.clans[0].loc[FIG_LEADER] == E


def test_lord_of_hammers_needs_the_leader_in_the_pillage(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["lord_of_hammers"],
                "figures": {"Elvagar": ["warrior"], "Gimle": ["leader"]},
            }
        ],
    )
    g.pillage(s, 0, E)
    assert s.pillaged[E] and g.prompt(s) is None and s.turn == 1


def test_lord_of_hammers_not_after_a_failed_pillage(g):
    s = g.state(
        3,
        [
            {"upgrades": ["lord_of_hammers"], "figures": {"Elvagar": ["leader"]}},
            {"hand": ["tyrs_smite"], "figures": {"Elvagar": ["warrior"]}},
        ],
    )
    g.pillage(s, 0, E)
    g.play(s, {1: "tyrs_smite"})
    assert g.result(s) == (1, {0: 3, 1: 6})
    assert g.prompt(s) is None and not s.pillaged[E]


# -- Lord of Axes: raise one clan stat; Lord of Spears: raise all ------------------------


def test_lord_of_axes_raises_one_stat_of_choice(g):
    s = g.state(3, [{"upgrades": ["lord_of_axes"], "figures": {"Elvagar": ["leader"]}}], age=2)
    g.pillage(s, 0, E)
    assert g.steps(s, 0) == [1, 1, 2]  # Elvagar's Horns reward first
    assert g.prompt(s) == (PromptKind.RAISE_STAT, 0)
    assert g.legal(s, 0) == [g.A(g.K.RAISE_STAT, st) for st in (0, 1, 2)]
    g.act(s, 0, g.K.RAISE_STAT, g.AXES)
    assert g.steps(s, 0) == [1, 2, 2]


def test_lord_of_axes_needs_the_leader_there(g):
    s = g.state(
        3,
        [{"upgrades": ["lord_of_axes"], "figures": {"Elvagar": ["warrior"], "Horgr": ["leader"]}}],
        age=2,
    )
    g.pillage(s, 0, E)
    assert g.prompt(s) is None and g.steps(s, 0) == [1, 1, 2]


def test_lord_of_spears_raises_every_stat(g):
    s = g.state(
        3,
        [
            {"upgrades": ["lord_of_spears"], "figures": {"Elvagar": ["leader"]}},
            {"figures": {"Elvagar": ["warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    assert g.result(s) == (0, {0: 3, 1: 1})
    assert g.steps(s, 0) == [2, 2, 3], "Horns reward, then +1 to every stat"
    assert g.prompt(s) is None


def test_lord_of_spears_needs_the_leader_there(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["lord_of_spears"],
                "figures": {"Elvagar": ["warrior"], "Horgr": ["leader"]},
            }
        ],
        age=3,
    )
    g.pillage(s, 0, E)
    assert g.steps(s, 0) == [1, 1, 2]


# -- Warrior upgrades: STR per warrior and per pair in one province; invade cost ----------

WARRIOR_TABLE = {
    # key, age: STR of 1, 2, 3, 4 warriors in one province; invade cost
    ("brothers_in_arms", 1): ([1, 3, 4, 6], 1),
    ("experts_in_arms", 2): ([2, 4, 6, 8], 2),
    ("masters_in_arms", 3): ([2, 6, 8, 12], 2),
    (None, 1): ([1, 2, 3, 4], 1),
}


@pytest.mark.parametrize("key,age", list(WARRIOR_TABLE))
def test_warrior_upgrade_strength_per_province(g, key, age):
    expected, _ = WARRIOR_TABLE[(key, age)]
    ups = [key] if key else []
    for n in range(1, 5):
        s = g.state(3, [{"upgrades": ups, "figures": {"Angerboda": ["warrior"] * n}}], age=age)
        assert s.strength_in(0, ANG) == expected[n - 1], f"{n} warriors"
    # Pairs count per province: one warrior in each of two provinces is no pair.
    s = g.state(
        3,
        [{"upgrades": ups, "figures": {"Angerboda": ["warrior"], "Elvagar": ["warrior"]}}],
        age=age,
    )
    assert s.strength_in(0, ANG) == expected[0] and s.strength_in(0, E) == expected[0]


@pytest.mark.parametrize("key,age", list(WARRIOR_TABLE))
def test_warrior_upgrade_invade_cost(g, key, age):
    _, cost = WARRIOR_TABLE[(key, age)]
    ups = [key] if key else []
    s = g.state(3, [{"upgrades": ups, "rage": 1}], age=age)
    invade = g.A(g.K.INVADE, Unit.WARRIOR, E)
    assert (invade in g.legal(s, 0)) == (cost == 1)
    s = g.state(3, [{"upgrades": ups, "rage": 3}], age=age)
    g.act(s, 0, *invade)
    assert s.clans[0].rage == 3 - cost


@pytest.mark.parametrize(
    "key,age,cost",
    [("brothers_in_arms", 1, 1), ("experts_in_arms", 2, 2), ("masters_in_arms", 3, 2)],
)
def test_warrior_upgrade_cost_and_free_invade(g, key, age, cost):
    s = g.state(3, [{"hand": [key]}], age=age)
    g.act(s, 0, g.K.UPGRADE, g.card(s, 0, key), 0)
    assert s.clans[0].rage == 6 - cost
    g.act(s, 0, g.K.FREE_INVADE, Unit.WARRIOR, E)
    assert s.clans[0].rage == 6 - cost and g.at(s, 0, E) == ["warrior"]


def test_masters_in_arms_pair_decides_a_battle(g):
    """Two warriors with Masters in Arms (6) beat a leader and two warriors (5)."""
    s = g.state(
        3,
        [
            {"upgrades": ["masters_in_arms"], "figures": {"Angerboda": ["warrior", "warrior"]}},
            {"figures": {"Angerboda": ["leader", "warrior", "warrior"]}},
        ],
        age=3,
    )
    g.pillage(s, 0, ANG)
    assert g.result(s) == (0, {0: 6, 1: 5})


def test_brothers_in_arms_three_warriors_battle(g):
    s = g.state(
        3,
        [
            {"upgrades": ["brothers_in_arms"], "figures": {"Angerboda": ["warrior"] * 3}},
            {"figures": {"Angerboda": ["leader"]}},
        ],
    )
    g.pillage(s, 0, ANG)
    assert g.result(s) == (0, {0: 4, 1: 3})


# -- Dragons: Glory whenever a ship of yours is destroyed --------------------------------

DRAGONS = [("lokis_dragons", 1, 4), ("fire_dragons", 2, 8), ("eternal_dragons", 3, 12)]


@pytest.mark.parametrize("key,age,glory", DRAGONS)
def test_dragons_ship_destroyed_in_battle(g, key, age, glory):
    s = g.state(
        3,
        [
            {"upgrades": [key], "figures": {"North fjord": ["ship"]}},
            {"figures": {"Angerboda": ["leader"]}},
        ],
        age=age,
    )
    g.pillage(s, 0, ANG)
    assert g.result(s) == (1, {0: 2, 1: 3})
    assert s.clans[0].loc[FIG_SHIP] == VALHALLA
    assert s.clans[0].glory == glory


@pytest.mark.parametrize("key,age,glory", DRAGONS)
def test_dragons_ship_dies_in_ragnarok(g, key, age, glory):
    # Ragnarök: Age 1 Muspelheim (East fjord), Age 2 Gimle / Age 3 Myrkulor (West fjord).
    fjord = "East fjord" if age == 1 else "West fjord"
    s = g.state(
        3,
        [{"upgrades": [key], "figures": {fjord: ["ship"]}}, {"figures": {fjord: ["ship"]}}],
        age=age,
        phase="ragnarok",
    )
    per = {1: 2, 2: 3, 3: 4}[age]
    assert s.clans[0].glory == per + glory
    assert s.clans[1].glory == per, "no dragons: Ragnarök Glory only"
    assert s.clans[0].loc[FIG_SHIP] == RESERVE  # destroyed, then released


def test_dragons_count_the_sea_serpent_as_a_ship(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["lokis_dragons", "sea_serpent"],
                "figures": {"North fjord": ["sea_serpent"]},
            },
            {"figures": {"Angerboda": ["leader", "warrior"]}},
        ],
    )
    g.pillage(s, 0, ANG)
    assert g.result(s) == (1, {0: 3, 1: 4})
    assert g.valhalla(s, 0) == ["sea_serpent"]
    assert s.clans[0].glory == 4


def test_dragons_ship_and_sea_serpent_both_die_in_ragnarok(g):
    s = g.state(
        3,
        [
            {
                "upgrades": ["eternal_dragons", "sea_serpent"],
                "figures": {"West fjord": ["ship", "sea_serpent"]},
            }
        ],
        age=3,
        phase="ragnarok",
    )
    assert s.clans[0].glory == 2 * 4 + 2 * 12


def test_dragons_ignore_other_figures(g):
    s = g.state(
        3,
        [
            {"upgrades": ["fire_dragons"], "figures": {"Angerboda": ["warrior"]}},
            {"figures": {"Angerboda": ["leader"]}},
        ],
        age=2,
    )
    g.pillage(s, 0, ANG)
    assert g.valhalla(s, 0) == ["warrior"] and s.clans[0].glory == 0


def test_lord_of_hammers_from_gimle(g):
    """Gimle, the last province by number: its neighbours are offered like any."""
    s = g.state(3, [{"upgrades": ["lord_of_hammers"], "figures": {"Gimle": ["leader"]}}])
    g.pillage(s, 0, Area.GIMLE)
    assert g.prompt(s) == (PromptKind.MOVE_LEADER, 0)
    moves = sorted(a.a for a in g.legal(s, 0) if a.kind == g.K.MOVE_LEADER)
    assert moves == sorted([YGG, Area.ANDLANG, MYR])


def test_lord_of_hammers_asks_nothing_when_no_neighbour_has_room(g):
    """The leader pillages Yggdrasil while five provinces are destroyed and the three
    others full: nowhere to move, no question."""
    s = g.state(
        3,
        [
            {"upgrades": ["lord_of_hammers"], "figures": {"Yggdrasil": ["leader"]}},
            {
                "stats": {"horns": 6},
                "figures": {"Muspelheim": ["leader"] + ["warrior"] * 4, "Gimle": ["warrior"] * 4},
            },
            {"figures": {"Gimle": ["warrior"], "Myrkulor": ["leader", "warrior", "warrior"]}},
        ],
        destroyed=["Elvagar", "Angerboda", "Horgr", "Utgard", "Andlang"],
    )
    g.pillage(s, 0, YGG)
    assert s.pillaged[YGG] and g.prompt(s) is None and s.turn == 1
