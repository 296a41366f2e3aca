"""F8 Other Activities, F9 crew and goods, F10 ending a turn, one test per rule id."""

from __future__ import annotations

import pytest

from engine.core.errors import IllegalActionError
from engine.fire_and_axe import flow
from engine.fire_and_axe.ids import CREW, FISH, FUR, NORTH, SOUTH, TUSK, WINTERING
from engine.fire_and_axe.state import EndReason, Step
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

RUNE_MOVES = {K.PLAY_RUNE, K.DISCARD_RUNE}


def test_f8_1_runes_anywhere_but_in_a_homeland() -> None:
    for place, allowed in (("wintering", True), ("w-north-sea", True), ("Paris", True)):
        s = scenario(seats=seats({"location": place, "crew": 1, "hand": ["skalds-tale"]}))
        assert (kinds(s) >= RUNE_MOVES) is allowed
    s = scenario(seats=seats({"location": "Denmark", "crew": 1, "hand": ["skalds-tale"]}))
    assert not kinds(s) & RUNE_MOVES


def test_f8_1_a_card_keeps_its_own_limits() -> None:
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["berserkers"]}))
    assert K.DISCARD_RUNE in kinds(s) and K.PLAY_RUNE not in kinds(s)  # where = port
    s = scenario(seats=seats({"location": "Paris", "crew": 1, "hand": ["berserkers"]}))
    assert K.PLAY_RUNE in kinds(s)
    s = scenario(seats=seats({"crew": 1, "hand": ["early-start"]}))
    assert K.PLAY_RUNE in kinds(s)  # where = wintering


def test_f8_1_several_runes_in_one_turn() -> None:
    hand = ["skalds-tale", "skalds-tale", "storm"]
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": hand}))
    act(s, K.PLAY_RUNE, rune(s, "skalds-tale"), 0, 0)
    act(s, K.PLAY_RUNE, rune(s, "skalds-tale"), 0, 0)
    act(s, K.DISCARD_RUNE, rune(s, "storm"), 2)
    assert s.seats[0].vp == 4 and s.seats[0].hand == [] and len(s.rune_discard) == 3


def test_f8_2_a_quarter_turn_either_way_or_none_before_the_effect() -> None:
    for dial, blue in ((0, SOUTH), (1, 3), (2, 1)):
        s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["skalds-tale"]}))
        act(s, K.DISCARD_RUNE, rune(s, "skalds-tale"), dial)
        assert s.dial == blue
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["fair-winds"]}))
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "fair-winds"), 1, 1)  # the free turn, then the card's
    turns = [(e["cause"], e["quarters"]) for e in of_type(events, "dial_turned")]
    assert turns == [("rune_played", 1), ("rune", 1)] and s.dial == NORTH


def test_f8_3_discard_face_up_without_the_effect() -> None:
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["skalds-tale"]}))
    act(s, K.DISCARD_RUNE, rune(s, "skalds-tale"), 0)
    assert s.seats[0].vp == 0 and s.rune_discard == [rune(s, "skalds-tale")]


def test_f8_3_play_the_effect_then_the_discard_pile() -> None:
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["rune-lore"]}))
    s.rune_deck, s.rune_discard = [], []  # nothing left to draw: the played card is not reused
    act(s, K.PLAY_RUNE, rune(s, "rune-lore"), 0, 0)
    assert s.seats[0].hand == [] and s.rune_discard == [rune(s, "rune-lore")]


def test_f8_4_and_f10_2b_the_voluntary_return() -> None:
    s = scenario(
        players=2,
        seats=seats(
            {"location": "Kiev", "crew": 4, "goods": {"fur": 1}},
            {"location": "Norway", "crew": 1},
            players=2,
        ),
    )
    supply = s.supply[FUR]
    events = record(s)
    act(s, K.WINTER)
    p = s.seats[0]
    assert (p.loc, p.crew, p.cargo, p.crew_supply) == (WINTERING, 1, [0, 0, 0], 14)
    assert s.supply[FUR] == supply + 1 and seat(s) == 1
    assert of_type(events, "turn_end")[0]["how"] == "voluntary"
    act(s, K.END_TURN)
    assert seat(s) == 0 and K.LEAVE_WINTERING in kinds(s)  # crewed: it may leave at once


def test_f9_1_vikings_never_die() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Paris", "crew": 3}),
    )
    rig(s, 1)
    act(s, K.RAID)
    assert s.seats[0].crew_supply == 13  # 15 - 3 aboard + 1 home


def test_f9_3_settlements_keep_their_crew_for_good() -> None:
    s = scenario(
        settlements={"Man": 0, "Cork": 0},
        seats=seats({"location": "Norway", "crew": 3}),
    )
    assert s.seats[0].crew_supply == 15 - 3 - 2 and s.seats[0].settlements == 2


def test_f9_4_a_player_out_of_crew_is_out_of_the_game() -> None:
    ports = ["paris", "rome", "constantinople", "lindisfarne", "arles", "hedeby", "visby"]
    ports += ["brattahlid", "halogaland", "man", "cork", "iona", "lewis", "polotsk", "ladoga"]
    s = scenario(
        settlements={p: 1 for p in ports},
        seats=seats(
            {"location": "Norway", "crew": 1},
            {"towns": ["paris", "rome", "constantinople", "lindisfarne"]},
        ),
    )
    assert s.seats[1].crew_supply == 0
    events = record(s)
    act(s, K.END_TURN)
    assert of_type(events, "player_out") == [{"type": "player_out", "seat": 1}]
    assert s.seats[1].out and seat(s) == 2


def test_f10_2a_losing_the_last_crewmember_ends_the_turn() -> None:
    s = scenario(
        days={"sailing": 2},
        seats=seats({"location": "Norway", "crew": 1}, {"location": "Norway", "crew": 1}),
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # the forced loss of the only crewmember
    assert s.seats[0].loc == WINTERING and seat(s) == 1 and s.sail == 0


def test_f10_2c_declaring_the_end_keeps_ship_and_cargo() -> None:
    s = scenario(
        seats=seats({"location": "Kiev", "crew": 2, "goods": {"tusk": 1}}, {"location": "Norway"})
    )
    act(s, K.END_TURN)
    p = s.seats[0]
    assert (p.loc, p.crew, p.cargo[TUSK]) == (loc(s, "kiev"), 2, 1)


def test_f10_3_cleanup_resets_the_turn() -> None:
    s = scenario(
        days={"preparation": 1, "sailing": 2},
        tasks_done=["Kiev"],
        skulls_covered=[1],
        seats=seats({"location": "Kiev", "crew": 2}, {"location": "Norway", "crew": 1}),
    )
    act(s, K.END_TURN)
    assert (s.prep, s.sail, s.tasks_done, s.skulls_covered) == (0, 0, [], 0)
    assert s.step == Step.MAIN and seat(s) == 1


def test_f10_every_way_of_ending_reaches_the_next_seat() -> None:
    for action in (K.END_TURN, K.WINTER):
        s = scenario(seats=seats({"location": "Paris", "crew": 2}, {"location": "Norway"}))
        act(s, action)
        assert flow.awaiting(s) == [1]
    with pytest.raises(IllegalActionError):
        s = scenario(seats=seats({"crew": 2}))
        act(s, K.END_TURN)  # not from the Wintering Zone (A9)


def test_lose_choice_lists_only_items_aboard() -> None:
    s = scenario(
        days={"sailing": 2},
        seats=seats({"location": "Norway", "crew": 2, "goods": {"tusk": 1, "fur": 1}}),
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    assert sorted(a.a for a in legal(s)) == [TUSK, FUR, CREW]
    assert FISH not in {a.a for a in legal(s)}


def test_f12_5_the_game_ends_at_once_when_every_player_has_15_settlements() -> None:
    first = ["brattahlid", "reykjanes", "eyjafjordur", "halogaland", "faroe", "shetland"]
    first += ["orkney", "iona", "lewis", "man", "cork", "lisbon", "algeciras", "balearics"]
    first += ["cagliari"]
    second = ["arles", "hedeby", "visby", "ladoga", "polotsk", "kiev", "paris", "rome"]
    second += ["constantinople", "lindisfarne", "seville", "palermo", "horn", "bjarmaland"]
    taken = ["paris", "rome", "constantinople", "lindisfarne", "seville", "palermo", "horn"]
    taken += ["bjarmaland", "bayeux"]
    s = scenario(
        players=2,
        turn=1,
        settlements={**{p: 0 for p in first}, **{p: 1 for p in second}},
        sagas={"spaces": ["i-lyubech", "ii-gardariki-raid", "i-caithness"]},
        seats=seats({"towns": taken}, {"location": "Nantes", "crew": 1}, players=2),
    )
    assert [p.settlements for p in s.seats] == [15, 14] and s.seats[1].crew_supply == 0
    rig(s, 6)
    act(s, K.SETTLE, 1)
    act(s, K.CONVERT)
    assert s.step == Step.GAME_OVER and s.end_reason == EndReason.ALL_OUT
