"""F7 Tasks: Trade, Raid, Settle, one test per rule id (dice rigged through the generator)."""

from __future__ import annotations

import pytest

from engine.core.errors import IllegalActionError
from engine.fire_and_axe.ids import FISH, FUR, TUSK, WINTERING
from engine.fire_and_axe.state import Step
from engine.fire_and_axe.tasks import effective_value, region_allows_settling
from tests.fire_and_axe.fae_support import (
    K,
    act,
    kinds,
    legal,
    loc,
    of_type,
    record,
    rig,
    rune,
    scenario,
    seat,
    seats,
)

TASKS = {K.TRADE, K.RAID, K.SETTLE}
QUIET = {"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]}  # no Saga in the way


def test_f7_1_tasks_only_in_a_port() -> None:
    for place in ("Norway", "w-north-sea"):
        s = scenario(seats=seats({"location": place, "crew": 3, "goods": {"fish": 1}}))
        assert not kinds(s) & TASKS


def test_f7_2_one_task_per_port_per_turn_even_after_coming_back() -> None:
    s = scenario(
        seats=seats(
            {"location": "Lindisfarne", "crew": 3, "goods": {"fish": 1, "fur": 1}},
            {"location": "Norway", "crew": 1},
        )
    )
    act(s, K.TRADE, FISH)
    assert not kinds(s) & TASKS
    act(s, K.SAIL, loc(s, "w-north-sea"))
    act(s, K.SAIL, loc(s, "lindisfarne"))
    assert not kinds(s) & TASKS


def test_f7_2_a_new_turn_allows_a_task_again() -> None:
    s = scenario(
        players=2,
        sagas=QUIET,
        seats=seats({"location": "Lindisfarne", "crew": 3}, {"location": "Norway"}, players=2),
    )
    rig(s, 1)
    act(s, K.RAID)
    act(s, K.RAID_STOP)
    assert K.RAID not in kinds(s)
    act(s, K.END_TURN)
    act(s, K.END_TURN)
    assert seat(s) == 0 and K.RAID in kinds(s)


def test_f7_2a_a_goods_token_lowers_the_value_by_one() -> None:
    s = scenario(goods={"Rome": "fur"})
    assert effective_value(s, loc(s, "rome")) == 4
    assert effective_value(s, loc(s, "paris")) == 4  # value 4, no token
    assert effective_value(s, loc(s, "constantinople")) == 5


def test_f7_3_trade_preconditions() -> None:
    s = scenario(seats=seats({"location": "Horn", "crew": 1}))
    assert K.TRADE not in kinds(s)  # no goods aboard
    s = scenario(
        goods={"Rouen": "fur"},
        seats=seats({"location": "Bayeux", "crew": 1, "goods": {"fur": 1, "tusk": 1}}),
    )
    assert [a.a for a in legal(s) if a.kind == K.TRADE] == [TUSK]  # region mate holds fur
    s = scenario(
        goods={"Rome": "fur"},
        seats=seats({"location": "Paris", "crew": 1, "goods": {"fur": 1}}),
    )
    assert [a.a for a in legal(s) if a.kind == K.TRADE] == [FUR]  # independent: no limit


def test_f7_3_towns_and_settlements_do_not_matter() -> None:
    s = scenario(seats=seats({"location": "Bayeux", "crew": 1, "goods": {"fish": 1}}))
    assert s.town[loc(s, "bayeux")] and K.TRADE in kinds(s)
    s = scenario(
        settlements={"Nantes": 1},
        seats=seats({"location": "Nantes", "crew": 1, "goods": {"fish": 1}}, {}),
    )
    assert K.TRADE in kinds(s)


def test_f7_3a_trade_pays_the_printed_value_even_with_a_town() -> None:
    s = scenario(
        demand="tusk", seats=seats({"location": "Lyubech", "crew": 1, "goods": {"fish": 1}})
    )
    act(s, K.TRADE, FISH)
    assert s.seats[0].vp == 3 and s.goods[loc(s, "lyubech")] == FISH


def test_f7_4_a_raid_needs_a_town() -> None:
    s = scenario(seats=seats({"location": "Nantes", "crew": 3}))
    assert K.RAID not in kinds(s)
    s = scenario(seats=seats({"location": "Paris", "crew": 3}))
    assert K.RAID in kinds(s)


def test_f7_4a_three_rolls_at_most_each_failure_sends_a_crewmember_home() -> None:
    s = scenario(sagas=QUIET, seats=seats({"location": "Paris", "crew": 4}))
    rig(s, 4, 1, 2)
    act(s, K.RAID)
    act(s, K.RAID_AGAIN)
    act(s, K.RAID_AGAIN)
    assert s.step == Step.MAIN and s.seats[0].crew == 1 and s.seats[0].crew_supply == 14
    assert K.RAID_AGAIN not in kinds(s) and s.town[loc(s, "paris")] == 3


def test_f7_4a_a_roll_above_the_value_takes_the_town() -> None:
    s = scenario(sagas=QUIET, towns={"Paris": 8}, seats=seats({"location": "Paris", "crew": 2}))
    rig(s, 5)
    events = record(s)
    act(s, K.RAID)
    assert of_type(events, "town_taken") == [
        {
            "type": "town_taken",
            "seat": 0,
            "port": loc(s, "paris"),
            "size": "large",
            "treasure": 8,
        }
    ]
    assert s.seats[0].vp == 8 and s.seats[0].crew == 2


def test_f7_4b_one_may_stop_and_one_crewmember_gives_one_roll() -> None:
    s = scenario(sagas=QUIET, seats=seats({"location": "Paris", "crew": 3}))
    rig(s, 1)
    act(s, K.RAID)
    act(s, K.RAID_STOP)
    assert s.step == Step.MAIN and s.seats[0].crew == 2
    s = scenario(sagas=QUIET, seats=seats({"location": "Paris", "crew": 1, "goods": {"fur": 1}}))
    rig(s, 1)
    act(s, K.RAID)
    assert s.seats[0].loc == WINTERING and seat(s) == 1


def test_f7_4c_attack_runes_count_for_raid_and_settle() -> None:
    s = scenario(sagas=QUIET, seats=seats({"location": "Paris", "crew": 2, "hand": ["berserkers"]}))
    act(s, K.PLAY_RUNE, rune(s, "berserkers"), 0, 0)
    rig(s, 4)  # 4 + 1 > 4
    act(s, K.RAID)
    assert s.town[loc(s, "paris")] == 0 and s.attack_bonus == 0
    s = scenario(sagas=QUIET, seats=seats({"location": "Man", "crew": 2, "hand": ["berserkers"]}))
    act(s, K.PLAY_RUNE, rune(s, "berserkers"), 0, 0)
    rig(s, 2)  # 2 + 1 > 2
    act(s, K.SETTLE, 1)
    assert s.settler[loc(s, "man")] == 0


def test_f7_5_settle_preconditions_and_dice() -> None:
    s = scenario(seats=seats({"location": "Bayeux", "crew": 3}))
    assert K.SETTLE not in kinds(s)  # a town
    s = scenario(settlements={"Nantes": 1}, seats=seats({"location": "Nantes", "crew": 3}, {}))
    assert not kinds(s) & {K.SETTLE, K.RAID}  # a Settlement: no attack on it
    s = scenario(seats=seats({"location": "Nantes", "crew": 2}))
    assert K.SETTLE not in kinds(s)  # Bayeux and Rouen, its region mates, have towns
    s = scenario(seats=seats({"location": "Man", "crew": 2}))
    assert [a.a for a in legal(s) if a.kind == K.SETTLE] == [1, 2]
    s = scenario(seats=seats({"location": "Man", "crew": 5}))
    assert [a.a for a in legal(s) if a.kind == K.SETTLE] == [1, 2, 3]


def test_f7_5a_region_condition_all_reading() -> None:
    s = scenario()  # Lyubech and Gnezdovo (Kiev's region mates) both have towns
    assert not region_allows_settling(s, loc(s, "kiev"))
    s = scenario(seats=seats({}, {"towns": ["Gnezdovo"]}))
    assert region_allows_settling(s, loc(s, "kiev"))
    assert region_allows_settling(s, loc(s, "paris"))  # independent


def test_f7_5a_region_condition_any_reading() -> None:
    options = {"settle_region_block": "any"}
    s = scenario(options=options, seats=seats({}, {"towns": ["Gnezdovo"]}))
    assert not region_allows_settling(s, loc(s, "kiev"))  # Lyubech still has its town
    s = scenario(options=options, seats=seats({}, {"towns": ["Gnezdovo", "Lyubech"]}))
    assert region_allows_settling(s, loc(s, "kiev"))
    s = scenario(options=options)  # Nantes: Bayeux and Rouen have towns
    assert not region_allows_settling(s, loc(s, "nantes"))
    s = scenario(options=options)  # Lewis: Caithness has a town, Iona none
    assert not region_allows_settling(s, loc(s, "lewis"))
    s = scenario()
    assert region_allows_settling(s, loc(s, "lewis"))


def test_f7_5b_failures_first_then_the_settlement() -> None:
    s = scenario(sagas=QUIET, seats=seats({"location": "Man", "crew": 4}))
    rig(s, 1, 2, 3)  # value 2: two dice fail, one succeeds
    act(s, K.SETTLE, 3)
    p = s.seats[0]
    assert s.settler[loc(s, "man")] == 0 and p.settlements == 1
    assert p.crew == 1 and p.crew_supply == 15 - 4 + 2 and s.step == Step.MAIN


def test_f7_5b_the_last_crewmember_may_decline() -> None:
    s = scenario(sagas=QUIET, seats=seats({"location": "Man", "crew": 2, "goods": {"fur": 1}}))
    rig(s, 1, 6)
    act(s, K.SETTLE, 2)
    assert s.step == Step.SETTLE_CONVERT and {a.kind for a in legal(s)} == {K.CONVERT, K.DECLINE}
    act(s, K.DECLINE)
    assert s.settler[loc(s, "man")] == -1 and s.seats[0].crew == 1 and s.step == Step.MAIN


def test_f7_5b_converting_the_last_crewmember_sends_the_ship_home() -> None:
    s = scenario(sagas=QUIET, seats=seats({"location": "Man", "crew": 1, "goods": {"fur": 1}}))
    rig(s, 6)
    act(s, K.SETTLE, 1)
    act(s, K.CONVERT)
    p = s.seats[0]
    assert s.settler[loc(s, "man")] == 0 and (p.loc, p.crew, p.cargo) == (WINTERING, 0, [0] * 3)
    assert seat(s) == 1


def test_f7_5b_all_dice_failing_with_the_last_crew_settles_nothing() -> None:
    s = scenario(sagas=QUIET, seats=seats({"location": "Man", "crew": 1}))
    rig(s, 2)
    act(s, K.SETTLE, 1)
    assert s.settler[loc(s, "man")] == -1 and s.seats[0].loc == WINTERING


def test_f7_5c_settlements_are_permanent_and_cannot_be_attacked() -> None:
    s = scenario(
        settlements={"Nantes": 1},
        seats=seats({"location": "w-channel", "crew": 3}, {"crew": 1}),
    )
    act(s, K.SAIL, loc(s, "nantes"))
    assert not kinds(s) & {K.RAID, K.SETTLE}
    with pytest.raises(IllegalActionError):
        act(s, K.SETTLE, 1)
    assert s.settler[loc(s, "nantes")] == 1
