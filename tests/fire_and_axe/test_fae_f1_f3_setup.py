"""F1 components, F2 the board model and F3 set-up, one test per rule id."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core.errors import OptionsError
from engine.core.rng import SplitMix64
from engine.fire_and_axe import flow
from engine.fire_and_axe.board import board_for
from engine.fire_and_axe.data_pack import demo_pack
from engine.fire_and_axe.ids import (
    EAST,
    FISH,
    GOODS_PER_TYPE,
    HOMELAND,
    INDEPENDENT,
    NORTH,
    PORT,
    SOUTH,
    WATER,
    WEST,
    WINTERING,
)
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import NONE, GameState, Step
from tests.fire_and_axe.fae_support import K, act, kinds, legal, loc, scenario, seats

BOARD = board_for("demo")


def new(players: int = 4, seed: int = 3, **options: object) -> GameState:
    return RULES.new_game(RULES.options(players, seed, options))


# -- F1 components ---------------------------------------------------------------------------


def test_f1_3_saga_cards_by_age_and_homeland() -> None:
    sagas = demo_pack().sagas
    assert len(sagas) == 27
    assert Counter(s.age for s in sagas) == {1: 9, 2: 9, 3: 9}
    assert {s.homeland for s in sagas} == {"denmark", "norway", "sweden"}


def test_f1_4_rune_cards_and_the_conflict_symbol() -> None:
    runes = demo_pack().runes
    assert sum(r.count for r in runes) == 33
    assert sum(r.count for r in runes if r.conflict) == 9


def test_f1_5_fifteen_crew_per_player() -> None:
    s = new(5)
    assert all(p.crew_supply == 15 and p.crew == 0 for p in s.seats)


def test_f1_6_eleven_goods_of_each_type() -> None:
    s = new()
    in_play = list(s.supply)
    in_play[s.demand] += 1
    assert in_play == [GOODS_PER_TYPE] * 3


def test_f1_7_the_dice_are_d6() -> None:
    s = new()
    rolls = Counter(s.roll() for _ in range(600))
    assert set(rolls) == {1, 2, 3, 4, 5, 6}


def test_f1_9_blue_best_red_worst_opposite_others_normal() -> None:
    dial = demo_pack().dial
    for blue in range(4):
        red = (blue + 2) % 4
        for zone in range(4):
            best, normal, worst = dial[zone]
            expected = best if zone == blue else worst if zone == red else normal
            assert BOARD.fwd[blue][zone] == expected


def test_f1_12_every_starred_port_gets_its_town_and_treasure() -> None:
    s = new()
    pack = demo_pack()
    small = [s.treasure[p] for p in BOARD.small_ports]
    large = [s.treasure[p] for p in BOARD.large_ports]
    assert sorted(small) == sorted(pack.small_treasures) and len(small) == 12
    assert sorted(large) == sorted(pack.large_treasures) and len(large) == 3
    assert all(s.town[p] == 1 for p in BOARD.small_ports)
    assert all(s.town[p] == 3 for p in BOARD.large_ports)
    assert sum(1 for t in s.town if t) == 15


def test_f1_14_seat_colours() -> None:
    assert [RULES.seat_label(i) for i in range(3)] == ["Red", "Blue", "Yellow"]
    assert len({RULES.seat_label(i) for i in range(5)}) == 5


# -- F2 board --------------------------------------------------------------------------------


def test_f2_1_three_homelands_and_the_wintering_zone_off_the_map() -> None:
    assert [BOARD.ids[h] for h in BOARD.homelands] == ["denmark", "norway", "sweden"]
    assert all(BOARD.kind[h] == HOMELAND for h in BOARD.homelands)
    s = new()
    assert all(p.loc == WINTERING for p in s.seats)


def test_f2_2_sailing_follows_the_adjacency() -> None:
    s = scenario(seats=seats({"location": "Norway", "crew": 2}))
    targets = {a.a for a in legal(s) if a.kind == K.SAIL}
    assert targets == set(BOARD.adjacent[loc(s, "norway")])


def test_f2_3_faroe_and_shetland_touch_north_and_west_but_count_west() -> None:
    for port in ("faroe", "shetland"):
        i = BOARD.index(port)
        zones = {BOARD.zone[w] for w in BOARD.adjacent[i] if BOARD.kind[w] == WATER}
        assert zones == {NORTH, WEST} and BOARD.zone[i] == WEST
    assert BOARD.zone[BOARD.index("caithness")] == WEST
    assert BOARD.zone[BOARD.index("bjarmaland")] == NORTH


def test_f2_4_and_f2_5_regions_of_three_large_ports_independent() -> None:
    for members in BOARD.region_ports:
        assert len(members) == 3
    for port in BOARD.large_ports:
        assert BOARD.region[port] == INDEPENDENT
    for name in ("paris", "arles", "lindisfarne"):
        assert BOARD.region[BOARD.index(name)] == INDEPENDENT
    same = {BOARD.region[BOARD.index(n)] for n in ("bayeux", "rouen", "nantes")}
    assert len(same) == 1 and INDEPENDENT not in same
    assert BOARD.kind[BOARD.index("kiev")] == PORT


def test_f2_6_water_spaces_and_homelands_take_any_number_of_ships() -> None:
    s = scenario(
        seats=seats(
            {"location": "w-north-sea", "crew": 1},
            {"location": "Denmark", "crew": 1},
            {"location": "w-north-sea", "crew": 1},
        )
    )
    targets = {a.a for a in legal(s) if a.kind == K.SAIL}
    assert loc(s, "denmark") in targets
    act(s, K.SAIL, loc(s, "denmark"))
    assert s.seats[0].loc == s.seats[1].loc == loc(s, "denmark")


def test_f2_7_a_port_holds_at_most_one_goods_token() -> None:
    s = scenario(goods={"Paris": "fur"}, seats=seats({"location": "Paris", "goods": {"fish": 1}}))
    assert K.TRADE not in kinds(s)


# -- F3 set-up -------------------------------------------------------------------------------


def test_f3_2_towns_are_shuffled_by_the_seed() -> None:
    layouts = {tuple(new(seed=seed).treasure) for seed in range(6)}
    assert len(layouts) > 1


def test_f3_3_the_dial_starts_blue_south() -> None:
    s = new()
    fwd = BOARD.fwd[s.dial]
    assert s.dial == SOUTH
    assert (fwd[SOUTH], fwd[WEST], fwd[EAST], fwd[NORTH]) == (7, 5, 4, 2)


def test_f3_4_the_saga_deck() -> None:
    s = new()
    sagas = BOARD.sagas
    assert len(s.saga_removed) == 9 and len(s.saga_deck) == 15
    assert Counter(sagas[c].age for c in s.saga_removed) == {1: 3, 2: 3, 3: 3}
    assert all(sagas[c].age == 1 for c in s.saga_spaces)
    top_first = [sagas[c].age for c in reversed(s.saga_deck)]
    assert top_first == [1] * 3 + [2] * 6 + [3] * 6
    assert s.markers_holder == NONE  # under the deck


def test_f3_5_fish_in_demand() -> None:
    s = new()
    assert s.demand == FISH and s.supply == [11, 10, 11]


@pytest.mark.parametrize(("no_conflict", "cards"), [(False, 33), (True, 24)])
def test_f3_6_the_rune_deck(no_conflict: bool, cards: int) -> None:
    s = new(3, no_conflict=no_conflict)
    held = [r for p in s.seats for r in p.hand]
    assert len(s.rune_deck) + len(held) == cards
    if no_conflict:
        assert not any(BOARD.runes[r].conflict for r in s.rune_deck + held)


def test_f3_7_ships_empty_in_the_wintering_zone_with_one_rune() -> None:
    s = new(5)
    for p in s.seats:
        assert (p.loc, p.crew, p.cargo, len(p.hand)) == (WINTERING, 0, [0, 0, 0], 1)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_f3_8_starting_bonus_clockwise_from_the_first_player(players: int) -> None:
    for seed in range(4):
        s = new(players, seed)
        first = s.first_player
        assert [s.seats[(first + i) % players].vp for i in range(players)] == list(
            range(1, players + 1)
        )
        assert flow.awaiting(s) == [first]


def test_f3_8_the_first_player_is_drawn_from_the_seed() -> None:
    firsts = {new(4, seed).first_player for seed in range(12)}
    assert len(firsts) > 1 and firsts <= {0, 1, 2, 3}


@pytest.mark.parametrize("players", [1, 6])
def test_f3_9_two_to_five_players(players: int) -> None:
    with pytest.raises(OptionsError, match="2 to 5"):
        RULES.options(players, 0, {})


def test_f3_10_the_initial_state() -> None:
    s = new()
    assert (s.age, s.prep, s.sail, s.step, s.turns) == (1, 0, 0, Step.MAIN, 1)
    assert all(g == NONE for g in s.goods) and all(x == NONE for x in s.settler)
    assert {a.kind for a in legal(s)} <= {
        K.LOAD_CREW,
        K.LOAD_GOOD,
        K.DISCARD_RUNE,
        K.PLAY_RUNE,
    }


def test_setup_draws_come_from_the_seed_in_order() -> None:
    a, b = new(4, 99), new(4, 99)
    assert a.state_hash() == b.state_hash()
    assert a.rng.position != SplitMix64(99).position  # set-up consumed the generator
