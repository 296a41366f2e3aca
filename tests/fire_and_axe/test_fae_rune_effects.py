"""Every kind of Rune effect of the vocabulary (effect_kinds), played from the demo pack's
cards, at its boundaries."""

from __future__ import annotations

from importlib import resources

from engine.fire_and_axe import data_pack
from engine.fire_and_axe.ids import CREW, FISH, FUR, TUSK
from engine.fire_and_axe.state import GameState, Step
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
    seats,
)


def plays(state: GameState, ident: str) -> list[tuple[int, int]]:
    """(dial, choice) of every legal play of that card."""
    r = rune(state, ident)
    return [(a.b, a.c) for a in legal(state) if a.kind == K.PLAY_RUNE and a.a == r]


def test_change_demand_offers_the_other_types_in_the_supply() -> None:
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["change-of-demand"]}))
    assert {c for _, c in plays(s, "change-of-demand")} == {TUSK, FUR}
    s.supply[FUR] = 0
    assert {c for _, c in plays(s, "change-of-demand")} == {TUSK}
    s.supply[TUSK] = 0
    assert plays(s, "change-of-demand") == []
    assert K.DISCARD_RUNE in kinds(s)


def test_turn_dial_either_way_and_half_turns_once() -> None:
    s = scenario(
        seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["fair-winds", "storm"]})
    )
    assert {c for _, c in plays(s, "fair-winds")} == {1, 2}
    assert {c for _, c in plays(s, "storm")} == {1}
    act(s, K.PLAY_RUNE, rune(s, "fair-winds"), 0, 2)
    assert s.dial == 1  # South -> East, counter-clockwise
    act(s, K.PLAY_RUNE, rune(s, "storm"), 0, 1)
    assert s.dial == 3


def test_days_back_never_below_zero() -> None:
    s = scenario(
        days={"sailing": 7},
        seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["long-day"]}),
    )
    assert K.SAIL not in kinds(s)
    act(s, K.PLAY_RUNE, rune(s, "long-day"), 0, 0)
    assert s.sail == 5 and K.SAIL in kinds(s)
    s = scenario(
        days={"sailing": 1},
        seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["long-day"]}),
    )
    act(s, K.PLAY_RUNE, rune(s, "long-day"), 0, 0)
    assert s.sail == 0
    s = scenario(days={"preparation": 5}, seats=seats({"crew": 1, "hand": ["early-start"]}))
    act(s, K.PLAY_RUNE, rune(s, "early-start"), 0, 0)
    assert s.prep == 3


def test_recover_crew_up_to_the_free_slots_and_the_supply() -> None:
    s = scenario(
        seats=seats(
            {"location": "Paris", "crew": 1, "goods": {"fish": 3}, "hand": ["fresh-oarsmen"]}
        )
    )
    act(s, K.PLAY_RUNE, rune(s, "fresh-oarsmen"), 0, 0)
    assert s.seats[0].crew == 2 and s.seats[0].crew_supply == 13  # one free slot
    s = scenario(seats=seats({"location": "Paris", "crew": 1, "hand": ["fresh-oarsmen"]}))
    act(s, K.PLAY_RUNE, rune(s, "fresh-oarsmen"), 0, 0)
    assert s.seats[0].crew == 3


def test_gain_goods_of_a_chosen_type() -> None:
    s = scenario(seats=seats({"location": "Paris", "crew": 1, "hand": ["hidden-cargo"]}))
    assert {c for _, c in plays(s, "hidden-cargo")} == {TUSK, FISH, FUR}
    supply = s.supply[FUR]
    act(s, K.PLAY_RUNE, rune(s, "hidden-cargo"), 0, FUR)
    assert s.seats[0].cargo[FUR] == 1 and s.supply[FUR] == supply - 1


def test_effects_that_put_things_aboard_do_not_act_in_the_wintering_zone() -> None:
    from engine.fire_and_axe.runes import play_choices

    s = scenario(seats=seats({"crew": 1, "hand": ["hidden-cargo", "fresh-oarsmen"]}))
    for ident in ("hidden-cargo", "fresh-oarsmen"):
        assert play_choices(s, 0, s.board.runes[rune(s, ident)]) == []


def test_opponent_loses_crew_never_the_last() -> None:
    s = scenario(
        seats=seats(
            {"location": "Paris", "crew": 1, "hand": ["ambush"]},
            {"location": "Kiev", "crew": 2},
            {"location": "Rome", "crew": 1},
        )
    )
    assert {c for _, c in plays(s, "ambush")} == {1}  # seat 2 has its last crewmember only
    act(s, K.PLAY_RUNE, rune(s, "ambush"), 0, 1)
    assert (s.seats[1].crew, s.seats[1].crew_supply) == (1, 14)
    assert s.seats[1].loc == loc(s, "kiev")


def test_opponent_loses_goods_of_a_chosen_type() -> None:
    s = scenario(
        seats=seats(
            {"location": "Paris", "crew": 1, "hand": ["sabotage"]},
            {"location": "Kiev", "crew": 1, "goods": {"fish": 1, "fur": 3}},
            {"crew": 1, "goods": {"tusk": 1}},  # in the Wintering Zone: out of reach
        )
    )
    assert {c for _, c in plays(s, "sabotage")} == {1 * 4 + FISH, 1 * 4 + FUR}
    supply = s.supply[FUR]
    act(s, K.PLAY_RUNE, rune(s, "sabotage"), 0, 1 * 4 + FUR)
    assert s.seats[1].cargo == [0, 1, 1] and s.supply[FUR] == supply + 2


def test_attack_bonus_lasts_one_attack() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Paris", "crew": 3, "hand": ["berserkers"]}),
    )
    rig(s, 1, 4)
    act(s, K.RAID)
    assert s.step == Step.RAID_AGAIN
    act(s, K.PLAY_RUNE, rune(s, "berserkers"), 0, 0)  # between two rolls of a Raid
    act(s, K.RAID_AGAIN)  # 4 + 1 > 4
    assert s.town[loc(s, "paris")] == 0 and s.attack_bonus == 0


def test_extra_task_after_a_task_at_this_port() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Paris", "crew": 3, "goods": {"fur": 1}, "hand": ["second-wind"]}),
    )
    assert plays(s, "second-wind") == []  # no Task done here yet
    act(s, K.TRADE, FUR)
    assert K.RAID not in kinds(s)
    act(s, K.PLAY_RUNE, rune(s, "second-wind"), 0, 0)
    assert K.RAID in kinds(s)
    rig(s, 6)
    act(s, K.RAID)
    assert s.town[loc(s, "paris")] == 0 and not kinds(s) & {K.TRADE, K.RAID, K.SETTLE}


def test_gain_vp_and_draw_runes_within_the_hand_limit() -> None:
    s = scenario(
        seats=seats({"location": "Paris", "crew": 1, "hand": ["skalds-tale", "rune-lore", "storm"]})
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "skalds-tale"), 0, 0)
    assert [(e["reason"], e["delta"]) for e in of_type(events, "vp")] == [("rune", 2)]
    act(s, K.PLAY_RUNE, rune(s, "rune-lore"), 0, 0)  # hand of 1 after playing: draws 2
    assert len(s.seats[0].hand) == 3
    assert of_type(events, "rune_effect")[-1]["drawn"] == 2


def test_recover_losses_brings_the_chart_back_aboard() -> None:
    s = scenario(
        days={"sailing": 2},
        seats=seats({"location": "Norway", "crew": 2, "goods": {"fur": 1}, "hand": ["salvage"]}),
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    act(s, K.LOSE, FUR)
    assert s.chart == [0, 0, 1, 0]
    act(s, K.PLAY_RUNE, rune(s, "salvage"), 0, 0)
    assert s.chart == [0, 0, 0, 0] and s.seats[0].cargo[FUR] == 1
    assert s.skulls_covered == 1 << 1  # the skull stays covered


def test_calm_weather_skips_one_check() -> None:
    s = scenario(
        days={"sailing": 2},
        seats=seats({"location": "Norway", "crew": 2, "goods": {"fur": 1}, "hand": ["calm-seas"]}),
    )
    assert plays(s, "calm-seas") == []  # where = map: not in a Homeland
    s.seats[0].loc = loc(s, "n-norwegian-sea")
    act(s, K.PLAY_RUNE, rune(s, "calm-seas"), 0, 0)
    act(s, K.SAIL, loc(s, "n-barents-sea"))
    assert s.step == Step.MAIN and s.chart == [0, 0, 0, 0]
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # the next one is checked again
    assert s.step == Step.LOSSES and s.chart == [0, 0, 0, 0]
    assert {a.a for a in legal(s)} == {FUR, CREW}


def test_days_back_stops_at_the_first_day() -> None:
    s = scenario(days={"preparation": 1}, seats=seats({"crew": 1, "hand": ["early-start"]}))
    act(s, K.PLAY_RUNE, rune(s, "early-start"), 0, 0)  # 2 Days back from Day 1
    assert s.prep == 0
    s = scenario(
        days={"sailing": 1},
        seats=seats({"location": "n-norwegian-sea", "crew": 1, "hand": ["long-day"]}),
    )
    act(s, K.PLAY_RUNE, rune(s, "long-day"), 0, 0)
    assert s.sail == 0


def test_salvage_gives_back_each_goods_type_on_the_chart() -> None:
    s = scenario(seats=seats({"location": "e-rivers", "crew": 2, "hand": ["salvage"]}))
    s.chart = [0, 1, 1, 0]  # a fish and a fur on the Losses chart
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "salvage"), 0, 0)
    assert (s.seats[0].cargo, s.chart) == ([0, 1, 1], [0, 0, 0, 0])
    (effect,) = of_type(events, "rune_effect")
    assert effect["items"] == {"tusk": 0, "fish": 1, "fur": 1, "crew": 0}


def test_an_extra_task_is_announced_and_allows_a_second_task_there() -> None:
    s = scenario(
        seats=seats(
            {"location": "Lindisfarne", "crew": 2, "goods": {"fish": 1}, "hand": ["second-wind"]}
        )
    )
    events = record(s)
    act(s, K.TRADE, FISH)
    assert K.RAID not in kinds(s)  # one Task per port and turn (F7.2)
    act(s, K.PLAY_RUNE, rune(s, "second-wind"), 0, 0)
    (effect,) = of_type(events, "rune_effect")
    port = loc(s, "lindisfarne")
    assert effect == {"type": "rune_effect", "seat": 0, "effect": "extra_task", "port": port}
    assert K.RAID in kinds(s)


def test_a_stronger_ambush_still_leaves_the_target_its_last_crewmember() -> None:
    demo = resources.files("engine.fire_and_axe").joinpath("demo_pack.toml").read_text("utf-8")
    weak = '{ kind = "opponent_loses_crew", amount = 1 }'
    assert weak in demo
    pack = data_pack.register(data_pack.parse(demo.replace(weak, weak.replace("1", "3"))))
    s = scenario(
        data_pack=pack.digest,
        seats=seats(
            {"location": "e-rivers", "crew": 1, "hand": ["ambush"]},
            {"location": "w-north-sea", "crew": 2},
        ),
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "ambush"), 0, 1)
    assert (s.seats[1].crew, s.seats[1].crew_supply) == (1, 14)
    (effect,) = of_type(events, "rune_effect")
    assert (effect["target"], effect["crew"]) == (1, 1)


def test_a_card_with_a_choice_and_a_plain_effect_offers_the_choice() -> None:
    demo = resources.files("engine.fire_and_axe").joinpath("demo_pack.toml").read_text("utf-8")
    one = '[{ kind = "gain_goods", amount = 1 }]'
    assert one in demo
    both = '[{ kind = "gain_goods", amount = 1 }, { kind = "gain_vp", amount = 1 }]'
    pack = data_pack.register(data_pack.parse(demo.replace(one, both)))
    s = scenario(
        data_pack=pack.digest,
        seats=seats({"location": "e-rivers", "crew": 1, "hand": ["hidden-cargo"]}),
    )
    assert {c for _, c in plays(s, "hidden-cargo")} == {TUSK, FISH, FUR}
    act(s, K.PLAY_RUNE, rune(s, "hidden-cargo"), 0, FUR)
    assert (s.seats[0].cargo, s.seats[0].vp) == ([0, 0, 1], 1)
