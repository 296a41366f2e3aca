"""Every test vector of fire-and-axe.md F15 (TV1-TV23), from the rulebook's worked examples,
played on the demo pack (whose known values are the rulebook's)."""

from __future__ import annotations

import pytest

from engine.core.errors import IllegalActionError
from engine.fire_and_axe import flow
from engine.fire_and_axe.ids import CREW, FISH, FUR, NORTH, SOUTH, TUSK, WEST, WINTERING
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.scoring import bloodiest_axe, saga_sets, settlement_values
from engine.fire_and_axe.state import EndReason, Step
from engine.fire_and_axe.view import view
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
    saga,
    scenario,
    seat,
    seats,
)

ACTIONS = {K.LOAD_CREW, K.LOAD_GOOD, K.DRAW_RUNE, K.SAIL}


def test_tv1_days_used_and_left() -> None:
    s = scenario(
        dial="east",  # East best 6: no weather on the way
        days={"preparation": 2, "sailing": 1},
        seats=seats({"location": "Sweden", "crew": 2}),
    )
    assert view(s, 0)["days"] == {"preparation": 2, "sailing": 1, "left": 4}
    here, there = loc(s, "sweden"), loc(s, "e-baltic-sea")
    for i in range(4):
        assert K.SAIL in kinds(s)
        act(s, K.SAIL, there if i % 2 == 0 else here)
    assert s.prep + s.sail == 7
    assert not kinds(s) & ACTIONS


def test_tv2_age_one_loading_and_the_free_move() -> None:
    s = scenario(seats=seats({}))
    for item in ("crew", "crew", FISH, FISH, TUSK):
        if item == "crew":
            act(s, K.LOAD_CREW)
        else:
            act(s, K.LOAD_GOOD, item)
    p = s.seats[0]
    assert (s.prep, p.crew, p.cargo) == (5, 2, [1, 2, 0])
    assert not kinds(s) & {K.LOAD_CREW, K.LOAD_GOOD}  # slots 6 and 7 are shut in Age I
    events = record(s)
    act(s, K.LEAVE_WINTERING, loc(s, "sweden"))
    assert p.loc == loc(s, "sweden") and s.prep + s.sail == 5
    assert not of_type(events, "weather") and not of_type(events, "sailed")


def test_tv3_draw_rune_in_sweden() -> None:
    s = scenario(
        days={"preparation": 5},
        seats=seats({"location": "Sweden", "crew": 2, "hand": ["storm"]}),
    )
    act(s, K.DRAW_RUNE)
    assert s.prep == 6 and len(s.seats[0].hand) == 2


def test_tv4_the_seventh_day_ends_the_actions() -> None:
    s = scenario(
        days={"preparation": 6}, seats=seats({"location": "Sweden", "crew": 2, "hand": []})
    )
    act(s, K.SAIL, loc(s, "e-baltic-sea"))
    assert (s.sail, s.prep + s.sail) == (1, 7)
    assert not kinds(s) & ACTIONS
    assert K.END_TURN in kinds(s)


def test_tv5_a_port_holds_one_ship() -> None:
    s = scenario(
        seats=seats({"location": "s-iberian-coast", "crew": 2}, {"location": "Seville"}),
    )
    targets = {a.a for a in legal(s) if a.kind == K.SAIL}
    assert loc(s, "seville") not in targets and loc(s, "lisbon") in targets
    with pytest.raises(IllegalActionError):
        act(s, K.SAIL, loc(s, "seville"))


def test_tv6_north_with_two_fair_weather_days() -> None:
    s = scenario(seats=seats({"location": "Norway", "crew": 3, "goods": {"fur": 2}}))
    assert s.board.fwd[s.dial][NORTH] == 2
    path = ["n-norwegian-sea", "n-barents-sea", "n-norwegian-sea", "n-barents-sea", "bjarmaland"]
    lost_at = []
    for day, place in enumerate(path, start=1):
        events = record(s)
        act(s, K.SAIL, loc(s, place))
        if s.step == Step.LOSSES:
            lost_at.append(day)
            assert s.pending_losses == 1
            act(s, K.LOSE, FUR)
        weather = of_type(events, "weather")
        if day > 2:
            assert weather[0]["excess"] == day - 2
    assert lost_at == [3, 5]
    assert s.chart == [0, 0, 2, 0] and s.seats[0].loc == loc(s, "bjarmaland")


def test_tv7_from_six_days_in_the_west_into_three_in_the_north() -> None:
    s = scenario(
        dial="west",
        seats=seats({"location": "Denmark", "crew": 2, "goods": {"tusk": 2, "fish": 1}}),
    )
    assert s.board.fwd[s.dial][WEST] == 6 and s.board.fwd[s.dial][NORTH] == 3
    for place in ("w-north-sea", "w-north-atlantic", "w-north-sea", "caithness"):
        act(s, K.SAIL, loc(s, place))
    act(s, K.TRADE, FISH)
    for place in ("w-north-sea", "w-north-atlantic"):
        act(s, K.SAIL, loc(s, place))
    assert s.step == Step.MAIN and s.skulls_covered == 0
    events = record(s)
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    assert of_type(events, "weather")[0]["skulls"] == [1, 3]
    assert s.pending_losses == 2
    act(s, K.LOSE, TUSK)
    act(s, K.LOSE, CREW)
    assert s.step == Step.MAIN and s.chart == [1, 0, 0, 1]


def test_tv8_the_region_forbids_a_second_fish() -> None:
    s = scenario(
        goods={"Horn": "fish"},
        seats=seats({"location": "Reykjanes", "crew": 2, "goods": {"fish": 1, "fur": 1}}),
    )
    trades = [a.a for a in legal(s) if a.kind == K.TRADE]
    assert trades == [FUR]
    act(s, K.TRADE, FUR)
    assert s.seats[0].vp == 3 and s.goods[loc(s, "reykjanes")] == FUR


def test_tv9_tusks_in_demand_at_constantinople() -> None:
    s = scenario(
        demand="tusk", seats=seats({"location": "Constantinople", "crew": 1, "goods": {"tusk": 2}})
    )
    events = record(s)
    act(s, K.TRADE, TUSK)
    assert s.seats[0].vp == 7
    assert [(e["reason"], e["delta"]) for e in of_type(events, "vp")] == [
        ("trade", 5),
        ("demand", 2),
    ]
    assert s.seats[0].cargo[TUSK] == 1  # one token per port (A19)


def test_tv10_a_raid_roll_equal_to_the_value_fails() -> None:
    s = scenario(seats=seats({"location": "Bayeux", "crew": 3}))
    rig(s, 3)
    act(s, K.RAID)
    p = s.seats[0]
    assert (p.crew, p.crew_supply) == (2, 13)
    assert s.town[loc(s, "bayeux")] == 1 and s.step == Step.RAID_AGAIN


def test_tv11_rome_with_a_token_and_two_failed_rolls() -> None:
    s = scenario(
        goods={"Rome": "tusk"},
        seats=seats({"location": "Rome", "crew": 2, "goods": {"fish": 2}}),
    )
    supply = list(s.supply)
    rig(s, 2, 4)  # «not a good start», then «better, but not enough»: 4 is not above 4
    events = record(s)
    act(s, K.RAID)
    assert of_type(events, "raid_roll")[0]["target"] == 4
    act(s, K.RAID_AGAIN)
    p = s.seats[0]
    assert (p.loc, p.crew, p.cargo) == (WINTERING, 0, [0, 0, 0])
    assert s.supply[FISH] == supply[FISH] + 2
    assert of_type(events, "turn_end")[0]["how"] == "last_crew" and s.turn == 1


def test_tv12_a_raid_takes_the_town_and_its_treasure() -> None:
    s = scenario(
        towns={"Bayeux": 5},
        sagas={"spaces": ["i-caithness", "i-lyubech", "i-hebrides"]},
        seats=seats({"location": "Bayeux", "crew": 4}),
    )
    rig(s, 3, 5)
    act(s, K.RAID)
    act(s, K.RAID_AGAIN)
    p = s.seats[0]
    assert p.vp == 5 and p.towns == [loc(s, "bayeux")] and p.crew == 3
    assert s.town[loc(s, "bayeux")] == 0 and s.step == Step.MAIN


def test_tv13_settling_kiev() -> None:
    s = scenario(
        goods={"Kiev": "fish"},
        seats=seats({"location": "Kiev", "crew": 4, "towns": ["Lyubech"]}),
    )
    rig(s, 2, 4, 6)
    events = record(s)
    act(s, K.SETTLE, 3)
    roll = of_type(events, "settle_roll")[0]
    assert (roll["target"], roll["dice"], roll["failures"]) == (3, [2, 4, 6], 1)
    p = s.seats[0]
    assert s.settler[loc(s, "kiev")] == 0 and p.crew == 2 and p.settlements == 1
    assert p.crew_supply == 15 - 2 - 1


def test_tv14_no_raid_and_settle_at_one_port_in_one_turn() -> None:
    s = scenario(seats=seats({"location": "Lyubech", "crew": 4}))
    rig(s, 6)
    act(s, K.RAID)
    assert s.town[loc(s, "lyubech")] == 0
    assert K.SETTLE not in kinds(s)
    with pytest.raises(IllegalActionError):
        act(s, K.SETTLE, 1)


def test_tv15_turning_the_dial_clockwise() -> None:
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["storm"]}))
    assert (s.dial, view(s)["dial"]["red"]) == (SOUTH, "north")
    act(s, K.DISCARD_RUNE, rune(s, "storm"), 1)
    assert (view(s)["dial"]["blue"], view(s)["dial"]["red"]) == ("west", "east")


def test_tv16_change_of_demand() -> None:
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["Change of Demand"]}))
    supply = list(s.supply)
    act(s, K.PLAY_RUNE, rune(s, "change-of-demand"), 0, TUSK)
    assert s.demand == TUSK
    assert s.supply[FISH] == supply[FISH] + 1 and s.supply[TUSK] == supply[TUSK] - 1
    assert s.rune_discard[-1] == rune(s, "change-of-demand")


def test_tv17_the_last_step_of_cork_dublin_man() -> None:
    s = scenario(
        age=2,
        settlements={"Cork": 1, "Man": 2},
        sagas={"spaces": ["ii-cork-dublin-man", "i-bayeux", "i-lyubech"]},
        seats=seats({"location": "Dublin", "crew": 3}, {"towns": ["Dublin"]}),
    )
    rig(s, 6)
    events = record(s)
    act(s, K.SETTLE, 1)
    done = of_type(events, "saga_completed")
    assert [(e["seat"], e["id"], e["bonus_vp"]) for e in done] == [(0, "ii-cork-dublin-man", 0)]
    assert s.seats[0].sagas == [saga(s, "ii-cork-dublin-man")] and s.seats[0].vp == 0


def test_tv18_the_first_age_three_card_starts_age_three() -> None:
    s = scenario(
        age=2,
        sagas={"spaces": ["ii-seville", "ii-paris", "ii-iceland"], "deck": ["iii-rus"]},
        seats=seats({"location": "Seville", "crew": 3}, {"crew": 6}),
    )
    assert s.capacity() == 6
    rig(s, 6)
    act(s, K.RAID)
    assert s.age == 3 and s.capacity() == 7
    assert s.saga_spaces[0] == saga(s, "iii-rus")
    act(s, K.END_TURN)
    assert seat(s) == 1 and s.seats[1].aboard() == 6
    assert K.LOAD_CREW in kinds(s)  # the 7th slot


def test_tv19_the_third_final_round_marker() -> None:
    s = scenario(
        sagas={"spaces": ["i-bayeux", "i-caithness", None], "deck": []},
        final_markers={"holder": 1, "placed": 2},
        seats=seats({"location": "Norway", "crew": 2}, {"location": "Denmark", "crew": 2}),
    )
    act(s, K.END_TURN)
    assert s.markers_placed == 3 and seat(s) == 1 and s.step == Step.MAIN
    act(s, K.END_TURN)
    assert s.step == Step.GAME_OVER and s.end_reason == EndReason.FINAL_ROUNDS


def test_tv19_unless_the_last_saga_was_completed_before() -> None:
    s = scenario(
        sagas={"spaces": ["i-bayeux", None, None], "deck": []},
        final_markers={"holder": 1, "placed": 2},
        seats=seats({"location": "Bayeux", "crew": 2}),
    )
    rig(s, 6)
    act(s, K.RAID)
    assert s.step == Step.GAME_OVER and s.end_reason == EndReason.SAGAS_DONE
    assert s.markers_placed == 2 and s.seats[0].sagas == [saga(s, "i-bayeux")]


def test_tv20_bloodiest_axe() -> None:
    assert bloodiest_axe([3, 5, 4]) == [0, 15, 0]  # Red, Blue, Yellow


def test_tv21_settlements_and_their_regions() -> None:
    s = scenario(
        settlements={"Faroe": 0, "Shetland": 1, "Orkney": 2, "Iona": 0, "Lindisfarne": 1},
        seats=seats({}, {"towns": ["Lindisfarne"]}),
    )
    got = {s.board.ids[port]: vp for _, port, vp in settlement_values(s)}
    assert got == {"faroe": 6, "shetland": 6, "orkney": 6, "iona": 3, "lindisfarne": 2}


def test_tv22_saga_sets_of_sweden() -> None:
    assert saga_sets([1, 3, 4]) == [0, 15, 40]  # Red, Blue, Yellow


def test_tv23_the_starting_bonus_of_five_players() -> None:
    state = RULES.new_game(RULES.options(5, 11, {"first_player": 3}))
    vp = [p.vp for p in state.seats]
    assert [vp[(3 + i) % 5] for i in range(5)] == [1, 2, 3, 4, 5]
    assert flow.awaiting(state) == [3]
