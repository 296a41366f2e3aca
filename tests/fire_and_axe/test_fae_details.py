"""Details of Tasks, Runes, Sagas and scoring the scenario tests pass by: what a Raid leaves
behind, the causes its events name, a Rune drawn from an empty deck, losses given back,
drawing on the seventh Day, when a Trade Saga is impossible, and the scoring tables' edges."""

from __future__ import annotations

from engine.fire_and_axe import sagas as saga_rules
from engine.fire_and_axe import scoring
from engine.fire_and_axe.ids import CREW, FISH, FUR, TUSK
from engine.fire_and_axe.setup import GameOptions
from engine.fire_and_axe.state import NONE, Step
from tests.fire_and_axe.fae_support import (
    K,
    act,
    legal,
    loc,
    of_type,
    record,
    rig,
    rune,
    saga,
    scenario,
    seats,
)

# -- Raids ----------------------------------------------------------------------------------


def test_a_raid_that_ends_leaves_nothing_under_way() -> None:
    s = scenario(seats=seats({"location": "Bayeux", "crew": 3}))
    events = record(s)
    rig(s, 6)
    act(s, K.RAID)
    assert (s.attack_port, s.raid_rolls, s.attack_bonus, s.step) == (NONE, 0, 0, Step.MAIN)
    (taken,) = of_type(events, "town_taken")
    assert taken["size"] == "small" and taken["port"] == loc(s, "bayeux")
    s = scenario(seats=seats({"location": "Paris", "crew": 3}))
    events = record(s)
    rig(s, 1, 6)
    act(s, K.RAID)
    assert s.raid_rolls == 1 and s.step == Step.RAID_AGAIN
    act(s, K.RAID_AGAIN)
    assert of_type(events, "town_taken")[0]["size"] == "large"
    assert (s.attack_port, s.raid_rolls) == (NONE, 0)


def test_a_failed_raid_names_its_cause() -> None:
    s = scenario(seats=seats({"location": "Bayeux", "crew": 1, "goods": {"fish": 1}}))
    events = record(s)
    rig(s, 1)
    act(s, K.RAID)
    (lost,) = of_type(events, "item_lost")
    assert (lost["item"], lost["cause"]) == ("crew", "raid")
    (ship,) = of_type(events, "ship_lost")
    assert ship["cause"] == "raid" and ship["goods"] == [0, 1, 0]


# -- Runes ----------------------------------------------------------------------------------


def test_drawing_from_an_empty_deck_and_discard_draws_nothing() -> None:
    s = scenario(seats=seats({"location": "e-rivers", "crew": 2, "hand": ["rune-lore"]}))
    s.rune_deck, s.rune_discard = [], []
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "rune-lore"), 0, 0)
    (effect,) = of_type(events, "rune_effect")
    assert effect["drawn"] == 0 and s.seats[0].hand == []
    assert of_type(events, "rune_drawn") == []


def test_salvage_gives_back_the_chart_crew_first_into_free_slots() -> None:
    s = scenario(
        seats=seats({"location": "e-rivers", "crew": 2, "goods": {"tusk": 1}, "hand": ["salvage"]})
    )
    s.chart = [1, 0, 2, 1]  # a tusk, two furs and a crewmember on the Losses chart
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "salvage"), 0, 0)
    p = s.seats[0]
    # 3 aboard, 5 slots in Age I: 2 come back, the crewmember first, then a tusk.
    assert (p.crew, p.cargo, s.chart) == (3, [2, 0, 0], [0, 0, 2, 0])
    (effect,) = of_type(events, "rune_effect")
    assert effect["items"] == {"tusk": 1, "fish": 0, "fur": 0, "crew": 1}


def test_no_rune_is_drawn_on_the_seventh_day() -> None:
    s = scenario(
        days={"preparation": 3, "sailing": 3}, seats=seats({"location": "Norway", "crew": 2})
    )
    assert K.DRAW_RUNE in {a[0] for a in legal(s)}
    act(s, K.DRAW_RUNE)
    assert s.prep + s.sail == 7 and K.DRAW_RUNE not in {a[0] for a in legal(s)}
    s = scenario(
        days={"preparation": 3, "sailing": 4}, seats=seats({"location": "Norway", "crew": 2})
    )
    assert K.DRAW_RUNE not in {a[0] for a in legal(s)}


def test_a_sail_reports_the_days_spent_in_all() -> None:
    s = scenario(
        days={"preparation": 3, "sailing": 1}, seats=seats({"location": "Norway", "crew": 2})
    )
    events = record(s)
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    (sailed,) = of_type(events, "sailed")
    assert (sailed["sailing"], sailed["days"]) == (2, 5)


# -- Sagas ----------------------------------------------------------------------------------


def test_a_trade_saga_is_impossible_only_when_no_token_can_reach_it() -> None:
    # Faroe's region mates hold a tusk and a fur: only fish can go to Faroe.
    s = scenario(goods={"Orkney": "tusk", "Shetland": "fur"})
    card = s.board.sagas[saga(s, "i-island-trade")]
    for supply, chart, aboard in ((1, 1, 0), (1, 0, 1), (0, 1, 1), (0, 0, 1), (1, 0, 0)):
        s.supply[FISH], s.chart[FISH], s.seats[1].cargo[FISH] = supply, chart, aboard
        assert not saga_rules.impossible(s, card), (supply, chart, aboard)
    s.supply[FISH], s.chart[FISH], s.seats[1].cargo[FISH] = 0, 0, 0
    assert saga_rules.impossible(s, card)
    s.supply[TUSK] = s.supply[FUR] = 0  # others could not go there anyway
    assert saga_rules.impossible(s, card) and s.chart[CREW] == 0


def test_a_revealed_saga_no_token_can_complete_is_discarded_as_impossible() -> None:
    s = scenario(
        goods={"Orkney": "tusk", "Shetland": "fur"},
        sagas={
            "spaces": [None, "i-bayeux", "i-caithness"],
            "deck": ["i-island-trade", "i-lindisfarne"],
        },
    )
    s.supply[FISH] = 0
    events = record(s)
    saga_rules.reveal(s, 0, 1)
    (discarded,) = of_type(events, "saga_discarded")
    assert discarded["saga"] == saga(s, "i-island-trade") and discarded["why"] == "impossible"
    assert s.saga_spaces[0] == saga(s, "i-lindisfarne")


# -- scoring --------------------------------------------------------------------------------


def test_the_bloodiest_axe_needs_a_town() -> None:
    assert scoring.bloodiest_axe([0, 0, 0]) == [0, 0, 0]
    assert scoring.bloodiest_axe([1, 0, 1]) == [3, 0, 3]
    assert scoring.bloodiest_axe([2, 3, 3]) == [0, 9, 9]


def test_saga_sets_first_and_second_places() -> None:
    assert scoring.saga_sets([0, 0, 0]) == [0, 0, 0]
    assert scoring.saga_sets([2, 1, 0]) == [20, 5, 0]
    assert scoring.saga_sets([1, 0, 0]) == [10, 0, 0]  # nobody second: no 5s
    assert scoring.saga_sets([3, 1, 1]) == [30, 5, 5]  # a tie for second
    assert scoring.saga_sets([2, 2, 1]) == [20, 20, 0]  # a tie for first leaves no second
    assert scoring.saga_sets([0, 3, 2, 2]) == [0, 30, 10, 10]


def test_a_seed_must_fit_64_bits() -> None:
    import pytest

    from engine.core.errors import OptionsError

    GameOptions(3, 2**64 - 1, "all", "own_turn", False, None, "demo").validate()
    for seed in (2**64, -1):
        with pytest.raises(OptionsError, match="seed"):
            GameOptions(3, seed, "all", "own_turn", False, None, "demo").validate()


def test_a_settle_reports_its_dice_and_its_losses() -> None:
    s = scenario(seats=seats({"location": "Arles", "crew": 3}))  # Arles 3: 4+ succeeds
    events = record(s)
    rig(s, 1, 2)
    act(s, K.SETTLE, 2)  # both fail
    (rolled,) = of_type(events, "settle_roll")
    assert (rolled["dice"], rolled["failures"], rolled["success"]) == ([1, 2], 2, False)
    assert [e["cause"] for e in of_type(events, "item_lost")] == ["settle", "settle"]
    assert s.seats[0].crew == 1 and s.settler[loc(s, "arles")] == NONE
    s = scenario(seats=seats({"location": "Arles", "crew": 3}))
    events = record(s)
    rig(s, 1, 5)
    act(s, K.SETTLE, 2)  # one fails, one succeeds
    (rolled,) = of_type(events, "settle_roll")
    assert (rolled["failures"], rolled["success"]) == (1, True)
    assert s.settler[loc(s, "arles")] == 0


def test_settlements_and_ships_lost_to_a_settle_say_so() -> None:
    s = scenario(seats=seats({"location": "Arles", "crew": 1, "goods": {"fish": 1}}))
    events = record(s)
    rig(s, 1)
    act(s, K.SETTLE, 1)
    assert of_type(events, "ship_lost")[0]["cause"] == "settle"
    s = scenario(seats=seats({"location": "Arles", "crew": 1}))
    events = record(s)
    rig(s, 6)
    act(s, K.SETTLE, 1)
    act(s, K.CONVERT)
    (settled,) = of_type(events, "settled")
    assert (settled["settlements"], settled["left"]) == (1, 14)
    assert of_type(events, "ship_lost")[0]["cause"] == "settled"


# -- turns ----------------------------------------------------------------------------------

FIFTEEN = ["brattahlid", "reykjanes", "eyjafjordur", "halogaland", "faroe", "shetland", "orkney"]
FIFTEEN += ["iona", "lewis", "man", "cork", "lisbon", "algeciras", "balearics", "cagliari"]


def test_a_player_with_every_crewmember_settled_is_out_for_everyone_to_see() -> None:
    s = scenario(
        players=2,
        turn=1,
        settlements={p: 0 for p in FIFTEEN},
        seats=seats({}, {"location": "e-rivers", "crew": 2}, players=2),
    )
    events = record(s)
    act(s, K.END_TURN)
    shown = [(audience, e["type"], e.get("seat")) for audience, e in events]
    assert (-1, "player_out", 0) in shown and (-1, "turn_skipped", 0) in shown
    assert s.seats[0].out and s.turn == 1 and s.step == Step.MAIN


def test_the_third_final_round_marker_says_it_is_the_last_turn() -> None:
    s = scenario(
        players=2,
        turn=0,
        sagas={"deck": []},
        final_markers={"holder": 1, "placed": 1},
        seats=seats(
            {"location": "e-rivers", "crew": 2}, {"location": "e-rivers", "crew": 2}, players=2
        ),
    )
    events = record(s)
    act(s, K.END_TURN)  # Blue's turn: its second marker
    act(s, K.END_TURN)
    act(s, K.END_TURN)
    act(s, K.END_TURN)  # Blue again: the third
    placed = of_type(events, "final_marker_placed")
    assert [(e["placed"], e["last_turn"]) for e in placed] == [(2, False), (3, True)]


def test_a_finished_game_has_no_losses_pending() -> None:
    s = scenario(
        players=2,
        turn=0,
        sagas={"deck": []},
        final_markers={"holder": 1, "placed": 2},
        seats=seats(
            {"location": "e-rivers", "crew": 2}, {"location": "e-rivers", "crew": 2}, players=2
        ),
    )
    act(s, K.END_TURN)  # Blue places the third marker: its turn is the last
    act(s, K.END_TURN)
    assert s.step == Step.GAME_OVER and s.pending_losses == 0 and s.raid_rolls == 0
