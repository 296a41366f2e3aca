"""§5 March: 1 Rage, one origin, one destination, any distance, village limits, Yggdrasil
unlimited, ships never march. Includes the rulebook's five March examples
(seeds/000_3142a3a5a8184f45.txt 'ΠΟΡΕΙΑ' and
seeds/004_98acbb221e078b57.txt 'B. Марш', examples 1–5)."""

from __future__ import annotations

from engine.blood_rage.ids import Area, Phase, Step, Unit


def test_example_1_march_to_a_distant_province_limited_by_empty_villages(h):
    """Example 1: Blue may march 2 figures from Gimle to Elvagar although they are not
    adjacent, but not all 3 of them: Elvagar has only 2 empty villages."""
    state = h.scenario(
        4,
        [
            {"figures": {"Elvagar": ["warrior", "warrior"]}},
            {"figures": {"Gimle": ["warrior", "warrior", "leader"]}},
            {},
            {},
        ],
        first_player=1,
        turn=1,
    )
    h.act(state, 1, h.K.MARCH, Area.GIMLE, Area.ELVAGAR, Unit.WARRIOR)
    assert state.clans[1].rage == 5
    assert state.step == Step.MARCH
    assert h.awaiting(state) == [1]
    h.act(state, 1, h.K.MARCH_MORE, Unit.LEADER)
    # Elvagar is now full: the third figure cannot follow and the turn is over.
    assert state.occupancy[Area.ELVAGAR] == 4
    assert h.units_at(state, 1, Area.ELVAGAR) == ["leader", "warrior"]
    assert h.units_at(state, 1, Area.GIMLE) == ["warrior"]
    assert state.turn == 2
    assert state.clans[1].rage == 5, "the whole march costs 1 Rage"


def test_example_2_any_number_of_figures_into_yggdrasil(h):
    """Example 2: Yellow may march any number of figures from Angerboda to Yggdrasil, which
    has no villages and no limit."""
    state = h.scenario(
        4,
        [
            {"figures": {"Yggdrasil": ["warrior"] * 4}},
            {"figures": {"Yggdrasil": ["warrior"] * 4}},
            {
                "stats": {"horns": 2},
                "figures": {"Angerboda": ["leader", "warrior", "warrior", "warrior", "warrior"]},
            },
            {},
        ],
        first_player=2,
        turn=2,
    )
    h.act(state, 2, h.K.MARCH, Area.ANGERBODA, Area.YGGDRASIL, Unit.WARRIOR)
    for _ in range(3):
        h.act(state, 2, h.K.MARCH_MORE, Unit.WARRIOR)
    h.act(state, 2, h.K.MARCH_MORE, Unit.LEADER)
    assert h.count_at(state, 2, Area.YGGDRASIL) == 5
    assert state.occupancy[Area.YGGDRASIL] == 13
    assert state.occupancy[Area.ANGERBODA] == 0
    assert state.clans[2].rage == 5
    assert state.turn == 3


def test_example_3_one_march_has_one_destination(h):
    """Example 3: Brown cannot split one March between two destinations."""
    state = h.scenario(
        4,
        [{}, {}, {}, {"figures": {"Horgr": ["warrior", "warrior", "leader"]}}],
        first_player=3,
        turn=3,
    )
    h.act(state, 3, h.K.MARCH, Area.HORGR, Area.UTGARD, Unit.WARRIOR)
    assert state.step == Step.MARCH
    # The follow-ups name no destination: they all go where the march goes.
    assert {a.kind for a in h.legal(state, 3)} == {h.K.MARCH_MORE, h.K.MARCH_DONE}
    h.assert_illegal(state, 3, (h.K.MARCH, Area.HORGR, Area.ANDLANG, Unit.WARRIOR))
    h.act(state, 3, h.K.MARCH_MORE, Unit.WARRIOR)
    h.act(state, 3, h.K.MARCH_DONE)
    assert h.units_at(state, 3, Area.UTGARD) == ["warrior", "warrior"]
    assert h.units_at(state, 3, Area.HORGR) == ["leader"]
    assert h.count_at(state, 3, Area.ANDLANG) == 0
    assert state.turn == 0
    assert state.clans[3].rage == 5


def test_example_4_one_march_has_one_origin(h):
    """Example 4: Red cannot march figures from two different provinces in one action."""
    state = h.scenario(
        4,
        [{"figures": {"Myrkulor": ["warrior"], "Elvagar": ["warrior"]}}, {}, {}, {}],
    )
    h.act(state, 0, h.K.MARCH, Area.MYRKULOR, Area.ANGERBODA, Unit.WARRIOR)
    # Nothing is left in Myrkulor, so the march is over at once; Elvagar's warrior stays.
    assert state.turn == 1
    assert h.count_at(state, 0, Area.ANGERBODA) == 1
    assert h.count_at(state, 0, Area.ELVAGAR) == 1

    state = h.scenario(
        4,
        [{"figures": {"Myrkulor": ["warrior", "warrior"], "Elvagar": ["warrior"]}}, {}, {}, {}],
    )
    h.act(state, 0, h.K.MARCH, Area.MYRKULOR, Area.ANGERBODA, Unit.WARRIOR)
    assert h.legal(state, 0) == [h.A(h.K.MARCH_MORE, Unit.WARRIOR), h.A(h.K.MARCH_DONE)]
    h.assert_illegal(state, 0, (h.K.MARCH, Area.ELVAGAR, Area.ANGERBODA, Unit.WARRIOR))
    h.act(state, 0, h.K.MARCH_MORE, Unit.WARRIOR)
    assert h.count_at(state, 0, Area.ANGERBODA) == 2
    assert h.count_at(state, 0, Area.ELVAGAR) == 1
    assert h.count_at(state, 0, Area.MYRKULOR) == 0


def test_example_5_ships_cannot_march(h):
    """Example 5: ships never move; a fjord is never an origin or a destination."""
    state = h.scenario(
        4,
        [{"figures": {"North fjord": ["ship"], "Elvagar": ["warrior"]}}, {}, {}, {}],
    )
    marches = [a for a in h.legal(state, 0) if a.kind == h.K.MARCH]
    assert marches, "the warrior may march"
    assert all(a.c != Unit.SHIP for a in marches)
    assert all(a.a < 9 and a.b < 9 for a in marches)
    h.assert_illegal(state, 0, (h.K.MARCH, Area.NORTH_FJORD, Area.EAST_FJORD, Unit.SHIP))
    h.assert_illegal(state, 0, (h.K.MARCH, Area.NORTH_FJORD, Area.ELVAGAR, Unit.SHIP))


def test_march_destinations(h):
    """§5: any other live province with an empty village (adjacency not needed); never the
    origin, a destroyed province or a full one; Yggdrasil always."""
    state = h.scenario(
        3,
        [
            {"figures": {"Myrkulor": ["warrior"]}},
            {"figures": {"Andlang": ["warrior", "warrior", "warrior"]}},
            {},
        ],
        destroyed=["Horgr", "Utgard"],
    )
    dests = sorted(a.b for a in h.legal(state, 0) if a.kind == h.K.MARCH)
    assert dests == [Area.YGGDRASIL, Area.ELVAGAR, Area.ANGERBODA, Area.MUSPELHEIM, Area.GIMLE]
    h.assert_illegal(state, 0, (h.K.MARCH, Area.MYRKULOR, Area.ANDLANG, Unit.WARRIOR))
    h.assert_illegal(state, 0, (h.K.MARCH, Area.MYRKULOR, Area.HORGR, Unit.WARRIOR))
    h.assert_illegal(state, 0, (h.K.MARCH, Area.MYRKULOR, Area.MYRKULOR, Unit.WARRIOR))


def test_march_out_of_yggdrasil_and_with_leader_and_monster(h):
    """§5: every figure but ships may march, from any province (Yggdrasil too)."""
    state = h.scenario(
        3,
        [{"upgrades": ["troll"], "figures": {"Yggdrasil": ["leader", "troll", "warrior"]}}, {}, {}],
    )
    units = {a.c for a in h.legal(state, 0) if a.kind == h.K.MARCH}
    assert units == {Unit.LEADER, Unit.WARRIOR, Unit.TROLL}
    h.act(state, 0, h.K.MARCH, Area.YGGDRASIL, Area.GIMLE, Unit.TROLL)
    h.act(state, 0, h.K.MARCH_MORE, Unit.LEADER)
    h.act(state, 0, h.K.MARCH_DONE)
    assert h.units_at(state, 0, Area.GIMLE) == ["leader", "troll"]
    assert h.units_at(state, 0, Area.YGGDRASIL) == ["warrior"]
    assert state.occupancy[Area.GIMLE] == 2 and state.occupancy[Area.YGGDRASIL] == 1
    assert state.clans[0].rage == 5
    assert state.phase == Phase.ACTION and state.turn == 1


def test_march_is_the_way_into_yggdrasil(h):
    """§5: figures reach Yggdrasil only by marching (invading it is never offered)."""
    state = h.scenario(3, [{"figures": {"Gimle": ["warrior"]}}, {}, {}])
    assert not any(a.kind == h.K.INVADE and a.b == Area.YGGDRASIL for a in h.legal(state, 0))
    h.act(state, 0, h.K.MARCH, Area.GIMLE, Area.YGGDRASIL, Unit.WARRIOR)
    assert h.count_at(state, 0, Area.YGGDRASIL) == 1
    assert state.clans[0].rage == 5


def test_each_march_is_offered_once_whatever_the_figures_of_its_unit(h):
    """Three warriors and a leader in Elvagar: one march per destination and unit."""
    state = h.scenario(3, [{"figures": {"Elvagar": ["warrior", "warrior", "warrior", "leader"]}}])
    marches = [a for a in h.legal(state, 0) if a.kind == h.K.MARCH]
    assert len(marches) == len(set(marches))
    to_angerboda = [a for a in marches if a.b == Area.ANGERBODA]
    assert sorted(a.c for a in to_angerboda) == [Unit.LEADER, Unit.WARRIOR]
