"""F4 the turn and F5 the Actions (Load, Draw Rune, Sail), one test per rule id."""

from __future__ import annotations

import pytest

from engine.core.errors import IllegalActionError
from engine.fire_and_axe.ids import CREW, FISH, FUR, TUSK, WINTERING
from engine.fire_and_axe.state import Step
from tests.fire_and_axe.fae_support import (
    K,
    act,
    kinds,
    legal,
    loc,
    of_type,
    record,
    rune,
    scenario,
    seat,
    seats,
)


def test_f4_1_turns_pass_clockwise() -> None:
    s = scenario(
        turn=1,
        seats=seats(*({"location": "Norway", "crew": 1} for _ in range(3))),
    )
    order = []
    for _ in range(4):
        order.append(seat(s))
        act(s, K.END_TURN)
    assert order == [1, 2, 0, 1]


def test_f4_2_activities_in_any_order() -> None:
    s = scenario(
        seats=seats({"location": "Lindisfarne", "crew": 2, "goods": {"fish": 1, "fur": 1}})
    )
    act(s, K.TRADE, FUR)  # a Task first
    act(s, K.SAIL, loc(s, "w-north-sea"))  # an Action
    act(s, K.SAIL, loc(s, "caithness"))
    act(s, K.TRADE, FISH)  # a Task at another port
    act(s, K.SAIL, loc(s, "w-north-sea"))
    assert s.seats[0].vp == 2 + 3 + 2 and s.sail == 3


def test_f4_3_at_most_seven_days() -> None:
    s = scenario(days={"preparation": 7}, seats=seats({"crew": 1}))
    assert not kinds(s) & {K.LOAD_CREW, K.LOAD_GOOD}
    assert K.LEAVE_WINTERING in kinds(s)  # leaving costs no Day
    s = scenario(
        days={"preparation": 3, "sailing": 3}, seats=seats({"location": "Norway", "crew": 1})
    )
    assert K.SAIL in kinds(s) and K.DRAW_RUNE in kinds(s)
    act(s, K.DRAW_RUNE)
    assert K.SAIL not in kinds(s) and K.DRAW_RUNE not in kinds(s)


def test_f4_4_tasks_and_other_activities_cost_no_day() -> None:
    s = scenario(
        days={"preparation": 2, "sailing": 5},
        seats=seats({"location": "Lindisfarne", "crew": 2, "goods": {"fur": 1}, "hand": ["storm"]}),
    )
    act(s, K.TRADE, FUR)
    act(s, K.DISCARD_RUNE, rune(s, "storm"), 0)
    assert (s.prep, s.sail) == (2, 5)


def test_f5_1_load_crew_from_your_supply_and_goods_from_the_general_one() -> None:
    s = scenario(seats=seats({}))
    supply = list(s.supply)
    act(s, K.LOAD_CREW)
    act(s, K.LOAD_GOOD, FUR)
    p = s.seats[0]
    assert (p.crew, p.crew_supply, p.cargo[FUR], s.prep) == (1, 14, 1, 2)
    assert s.supply[FUR] == supply[FUR] - 1
    s = scenario(seats=seats({"location": "Norway", "crew": 1}))
    assert not kinds(s) & {K.LOAD_CREW, K.LOAD_GOOD}


def test_f5_1a_loading_is_limited_by_the_supply() -> None:
    # 11 tusks: 10 in ports, one aboard another ship -> none left to load
    ports = ["paris", "rome", "constantinople", "lindisfarne", "arles", "hedeby", "visby"]
    ports += ["brattahlid", "halogaland", "bjarmaland"]
    s = scenario(
        goods={p: "tusk" for p in ports},
        seats=seats({"crew": 1}, {"location": "Norway", "crew": 1, "goods": {"tusk": 1}}),
    )
    assert s.supply[TUSK] == 0
    goods = {a.a for a in legal(s) if a.kind == K.LOAD_GOOD}
    assert goods == {FISH, FUR}


def test_f5_1b_no_leaving_without_a_crewmember() -> None:
    s = scenario(seats=seats({"goods": {"fish": 2}}))
    assert K.LEAVE_WINTERING not in kinds(s)
    act(s, K.LOAD_CREW)
    assert {a.a for a in legal(s) if a.kind == K.LEAVE_WINTERING} == set(s.board.homelands)


def test_f5_1b_goods_never_take_the_last_slot_or_day_of_an_uncrewed_ship() -> None:
    s = scenario(seats=seats({"goods": {"fish": 4}}))  # one slot left, no crew
    assert K.LOAD_GOOD not in kinds(s) and K.LOAD_CREW in kinds(s)
    s = scenario(days={"preparation": 6}, seats=seats({"goods": {"fish": 1}}))  # one Day left
    assert K.LOAD_GOOD not in kinds(s) and K.LOAD_CREW in kinds(s)
    s = scenario(days={"preparation": 5}, seats=seats({"goods": {"fish": 1}}))
    assert K.LOAD_GOOD in kinds(s)


@pytest.mark.parametrize(("age", "slots"), [(1, 5), (2, 6), (3, 7)])
def test_f5_2_loading_limits_by_age(age: int, slots: int) -> None:
    s = scenario(age=age, seats=seats({"crew": slots - 1}))
    assert K.LOAD_CREW in kinds(s)
    act(s, K.LOAD_CREW)
    assert s.seats[0].aboard() == slots
    assert not kinds(s) & {K.LOAD_CREW, K.LOAD_GOOD}


def test_f5_3_leaving_is_free_and_the_only_way_out() -> None:
    s = scenario(seats=seats({"crew": 1}))
    assert not kinds(s) & {K.END_TURN, K.WINTER, K.SAIL}
    events = record(s)
    act(s, K.LEAVE_WINTERING, loc(s, "norway"))
    assert s.seats[0].loc == loc(s, "norway") and (s.prep, s.sail) == (0, 0)
    assert not of_type(events, "weather")
    assert K.LOAD_CREW not in kinds(s)  # no way back to Loading this turn


def test_f5_4_draw_a_rune_only_in_a_homeland() -> None:
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1}))
    assert K.DRAW_RUNE not in kinds(s)
    act(s, K.SAIL, loc(s, "denmark"))  # sailing into a Homeland
    top = s.rune_deck[-1]
    act(s, K.DRAW_RUNE)
    assert s.seats[0].hand == [top] and s.prep == 1


def test_f5_5_hand_limit_and_no_discarding_in_a_homeland() -> None:
    s = scenario(seats=seats({"location": "Sweden", "crew": 1, "hand": ["storm"] * 2}))
    act(s, K.DRAW_RUNE)
    assert len(s.seats[0].hand) == 3 and K.DRAW_RUNE not in kinds(s)
    assert not kinds(s) & {K.DISCARD_RUNE, K.PLAY_RUNE}
    with pytest.raises(IllegalActionError):
        act(s, K.DISCARD_RUNE, rune(s, "storm"), 0)


def test_f5_5_an_empty_deck_is_the_reshuffled_discards() -> None:
    s = scenario(seats=seats({"location": "Sweden", "crew": 1}))
    s.rune_discard = s.rune_deck[:5]
    s.rune_deck = []
    events = record(s)
    act(s, K.DRAW_RUNE)
    assert (
        of_type(events, "runes_reshuffled") == [{"type": "runes_reshuffled", "deck": 5}]
        and len(s.rune_deck) == 4
    )
    s.rune_discard = []
    s.rune_deck = []
    assert K.DRAW_RUNE not in kinds(s)


def test_f5_6_sail_to_an_adjacent_place_even_a_settled_port() -> None:
    s = scenario(
        settlements={"Man": 1}, seats=seats({"location": "Dublin", "crew": 2}, {"crew": 1})
    )
    targets = {a.a for a in legal(s) if a.kind == K.SAIL}
    assert targets == set(s.board.adjacent[loc(s, "dublin")])
    act(s, K.SAIL, loc(s, "w-irish-sea"))
    act(s, K.SAIL, loc(s, "man"))
    assert s.seats[0].loc == loc(s, "man") and s.sail == 2
    with pytest.raises(IllegalActionError):
        act(s, K.SAIL, loc(s, "cork"))  # not adjacent to Man


def test_f5_6a_the_weather_check_comes_before_anything_else() -> None:
    s = scenario(
        days={"sailing": 2},
        seats=seats({"location": "Norway", "crew": 2, "goods": {"fur": 1}, "hand": ["storm"]}),
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # Sailing 3 in the North (FWD 2)
    assert s.step == Step.LOSSES
    assert {a.kind for a in legal(s)} == {K.LOSE}
    assert {a.a for a in legal(s)} == {FUR, CREW}


def test_f5_6c_the_extended_example_reaches_rome_on_day_seven() -> None:
    s = scenario(
        seats=seats(
            {"location": "s-iberian-coast", "crew": 4, "goods": {"fish": 1}, "hand": ["storm"]},
            {"location": "Seville"},
        )
    )
    act(s, K.SAIL, loc(s, "s-western-med"))
    act(s, K.SAIL, loc(s, "balearics"))
    act(s, K.SAIL, loc(s, "s-western-med"))
    act(s, K.SAIL, loc(s, "arles"))
    act(s, K.TRADE, FISH)
    act(s, K.SAIL, loc(s, "s-western-med"))
    act(s, K.SAIL, loc(s, "s-central-med"))
    act(s, K.DISCARD_RUNE, rune(s, "storm"), 0)
    act(s, K.SAIL, loc(s, "rome"))
    assert s.sail == 7 and s.step == Step.MAIN and s.chart == [0, 0, 0, 0]
    assert K.RAID in kinds(s) and K.SAIL not in kinds(s)
    assert s.seats[0].loc != WINTERING
