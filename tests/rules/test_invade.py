"""§5 Invade: cost = STR (leader 0), outer provinces only, ships to fjords, Horns limit."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import FJORDS, OUTER_PROVINCES, RESERVE, Area, Unit


def invade_targets(h, state, seat, unit):
    return sorted(a.b for a in h.legal(state, seat) if a.kind == h.K.INVADE and a.a == unit)


@pytest.mark.parametrize(
    ("unit", "upgrades", "cost"),
    [
        (Unit.LEADER, [], 0),
        (Unit.WARRIOR, [], 1),
        (Unit.SHIP, [], 2),
        (Unit.WARRIOR, ["experts_in_arms"], 2),
        (Unit.WARRIOR, ["brothers_in_arms"], 1),
        (Unit.TROLL, ["troll"], 2),
        (Unit.FIRE_GIANT, ["fire_giant"], 4),
        (Unit.DWARF_CHIEFTAIN, ["dwarf_chieftain"], 0),
        (Unit.SOLDIER_OF_HEL, ["soldier_of_hel"], 0),
    ],
)
def test_invade_costs_the_figure_strength(h, unit, upgrades, cost):
    """§5 Invade / board.md Figures: pay Rage equal to the figure's STR; the leader costs 0;
    cards.md numbers: Dwarf Chieftain and Soldier of Hel cost 0 to invade."""
    state = h.scenario(3, [{"upgrades": upgrades}, {}, {}])
    area = Area.NORTH_FJORD if unit == Unit.SHIP else Area.ANGERBODA
    h.act(state, 0, h.K.INVADE, unit, area)
    assert state.clans[0].rage == 6 - cost
    assert h.count_at(state, 0, area, unit) == 1
    assert state.occupancy[area] == 1


def test_raven_example_upgraded_warriors_cost_two(h):
    """seeds/000_3142a3a5a8184f45.txt (ΕΠΙΔΡΟΜΗ) / seeds/004_98acbb221e078b57.txt ('Вторжение')
    example: Raven's warriors are STR 2 after a warrior upgrade, so he pays 2 Rage to invade an
    empty village of Utgard with one warrior."""
    state = h.scenario(
        4, [{}, {"upgrades": ["experts_in_arms"], "rage": 5}, {}, {}], first_player=1, turn=1
    )
    h.act(state, 1, h.K.INVADE, Unit.WARRIOR, Area.UTGARD)
    assert state.clans[1].rage == 3
    assert h.units_at(state, 1, Area.UTGARD) == ["warrior"]
    assert state.strength_in(1, Area.UTGARD) == 2


def test_land_figures_invade_live_outer_provinces_with_empty_villages_only(h):
    """§5: an empty village of an outer, non-destroyed province; never Yggdrasil, never a fjord."""
    state = h.scenario(
        3,
        [{}, {"figures": {"Andlang": ["leader", "warrior", "warrior"]}}, {}],
        destroyed=["Horgr", "Utgard"],
    )
    gone = (Area.HORGR, Area.UTGARD, Area.ANDLANG)
    expected = sorted(p for p in OUTER_PROVINCES if p not in gone)
    for unit in (Unit.LEADER, Unit.WARRIOR):
        assert invade_targets(h, state, 0, unit) == expected
    h.assert_illegal(state, 0, (h.K.INVADE, Unit.WARRIOR, Area.YGGDRASIL))
    h.assert_illegal(state, 0, (h.K.INVADE, Unit.LEADER, Area.YGGDRASIL))
    h.assert_illegal(state, 0, (h.K.INVADE, Unit.WARRIOR, Area.HORGR))
    h.assert_illegal(state, 0, (h.K.INVADE, Unit.WARRIOR, Area.ANDLANG))
    h.assert_illegal(state, 0, (h.K.INVADE, Unit.WARRIOR, Area.EAST_FJORD))


def test_ship_invades_fjords_only(h):
    """§5: a ship invades a fjord instead of a province; board.md decision: only a fjord with
    at least one live province; fjords have no limit."""
    state = h.scenario(
        3,
        [
            {},
            {"figures": {"East fjord": ["ship"]}},
            {"figures": {"East fjord": ["ship"]}},
        ],
        destroyed=["Utgard", "Andlang"],
        ragnarok=["Muspelheim", "Gimle", "Myrkulor"],
    )
    assert invade_targets(h, state, 0, Unit.SHIP) == [
        Area.NORTH_FJORD,
        Area.EAST_FJORD,
        Area.WEST_FJORD,
    ]
    h.assert_illegal(state, 0, (h.K.INVADE, Unit.SHIP, Area.SOUTH_FJORD))
    h.assert_illegal(state, 0, (h.K.INVADE, Unit.SHIP, Area.GIMLE))
    h.act(state, 0, h.K.INVADE, Unit.SHIP, Area.EAST_FJORD)
    assert state.clans[0].loc[9] == Area.EAST_FJORD
    assert state.clans[0].rage == 4


def test_horns_limit_counts_fjords_but_not_valhalla(h):
    """§2/§5: Horns is the maximum of figures on the board (fjords included, Valhalla not);
    at the limit no invade is possible, not even the free leader."""
    full = h.scenario(
        2,
        [{"figures": {"Gimle": ["warrior", "warrior", "warrior"], "West fjord": ["ship"]}}, {}],
    )
    assert all(a.kind != h.K.INVADE for a in h.legal(full, 0))
    h.assert_illegal(full, 0, (h.K.INVADE, Unit.LEADER, Area.ELVAGAR))
    assert h.K.MARCH in h.kinds(full, 0), "other actions stay possible"

    dead = h.scenario(
        2,
        [
            {
                "figures": {
                    "Gimle": ["warrior", "warrior", "warrior"],
                    "Valhalla": ["ship", "warrior", "warrior", "leader"],
                }
            },
            {},
        ],
    )
    h.act(dead, 0, h.K.INVADE, Unit.WARRIOR, Area.ELVAGAR)
    assert h.count_at(dead, 0, Area.ELVAGAR) == 1
    assert [a for a in h.legal(dead, 0) if a.kind == h.K.INVADE] == []


def test_more_horns_allow_more_figures(h):
    """§2: Horns 5 (step 2) allows a fifth figure on the board, and no sixth."""
    state = h.scenario(
        2, [{"stats": {"horns": 2}, "figures": {"Gimle": ["warrior"] * 4}}, {"rage": 0}]
    )
    h.act(state, 0, h.K.INVADE, Unit.WARRIOR, Area.ELVAGAR)
    assert state.clans[0].on_board() == 5
    assert state.clans[0].horns == 5
    assert h.awaiting(state) == [0]
    assert all(a.kind != h.K.INVADE for a in h.legal(state, 0))


def test_only_figures_from_the_reserve_invade(h):
    """§5: the figure comes from the reserve; one on the board or in Valhalla cannot invade."""
    state = h.scenario(2, [{"figures": {"Gimle": ["leader"], "Valhalla": ["ship"]}}, {}])
    units = {a.a for a in h.legal(state, 0) if a.kind == h.K.INVADE}
    assert units == {Unit.WARRIOR}
    assert state.clans[0].loc[0] == Area.GIMLE
    assert all(state.clans[0].loc[f] == RESERVE for f in range(1, 9))
    assert not any(a.b in FJORDS for a in h.legal(state, 0) if a.kind == h.K.INVADE)


def test_dark_elf_numbers(h):
    """cards.md (numbers only): the Dark Elf costs 1, may invade Yggdrasil directly (decision:
    for its printed cost) and is STR 3 there, 1 elsewhere."""
    state = h.scenario(3, [{"upgrades": ["dark_elf"]}, {}, {}])
    targets = invade_targets(h, state, 0, Unit.DARK_ELF)
    assert Area.YGGDRASIL in targets
    assert invade_targets(h, state, 0, Unit.WARRIOR)[0] != Area.YGGDRASIL
    h.act(state, 0, h.K.INVADE, Unit.DARK_ELF, Area.YGGDRASIL)
    assert state.clans[0].rage == 5
    assert state.strength_in(0, Area.YGGDRASIL) == 3
    other = h.scenario(3, [{"upgrades": ["dark_elf"], "figures": {"Gimle": ["dark_elf"]}}, {}, {}])
    assert other.strength_in(0, Area.GIMLE) == 1


def test_no_warrior_invade_without_a_warrior_in_the_reserve(h):
    """All eight warriors are on the board or in Valhalla: invades with the leader only."""
    state = h.scenario(
        3,
        [
            {
                "stats": {"horns": 6},
                "figures": {"Elvagar": ["warrior"] * 4, "Valhalla": ["warrior"] * 4},
            }
        ],
    )
    invades = {a.a for a in h.legal(state, 0) if a.kind == h.K.INVADE}
    assert invades == {Unit.LEADER, Unit.SHIP}
