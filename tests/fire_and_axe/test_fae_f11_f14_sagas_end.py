"""F11 Sagas and Ages, F12 the end, F13 scoring, F14 the variant, one test per rule id."""

from __future__ import annotations

from engine.core.contract import ranks_of
from engine.fire_and_axe import sagas as saga_rules
from engine.fire_and_axe.ids import FISH, FUR, TUSK
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.scoring import bloodiest_axe, final_scoring, saga_sets
from engine.fire_and_axe.state import NONE, EndReason, Step
from tests.fire_and_axe.fae_support import (
    K,
    act,
    loc,
    of_type,
    record,
    rig,
    saga,
    scenario,
    seat,
    seats,
)

SPACES = ["i-caithness", "i-hebrides", "i-lyubech"]


def test_f11_2_raid_sagas_need_every_listed_town_gone() -> None:
    s = scenario(
        age=2,
        sagas={"spaces": ["ii-gardariki-raid", "i-caithness", "i-hebrides"]},
        seats=seats({"location": "Novgorod", "crew": 3}),
    )
    rig(s, 6)
    act(s, K.RAID)  # Novgorod falls, Gnezdovo still stands
    assert s.saga_spaces[0] == saga(s, "ii-gardariki-raid") and s.seats[0].sagas == []


def test_f11_2_trade_and_settle_sagas_count_anyones_tokens() -> None:
    s = scenario(
        goods={"Ladoga": "fur"},
        sagas={"spaces": ["i-gardariki-trade", "i-caithness", "i-hebrides"]},
        seats=seats({"location": "Novgorod", "crew": 1, "goods": {"fish": 1}}),
    )
    act(s, K.TRADE, FISH)
    assert s.seats[0].sagas == [saga(s, "i-gardariki-trade")]
    assert s.seats[0].vp == 4 + 2 + 1  # value, Fish in demand, the Saga's bonus


def test_f11_3_one_step_may_complete_several_sagas() -> None:
    s = scenario(
        age=3,
        sagas={"spaces": ["iii-normandy", "i-caithness", "ii-frankia-trade"]},
        goods={"Rouen": "fur"},
        settlements={"Bayeux": 1},
        seats=seats({"location": "Nantes", "crew": 3, "goods": {"tusk": 1}}, {"towns": ["Bayeux"]}),
    )
    act(s, K.TRADE, TUSK)  # Nantes: the last token of Frankish Markets
    assert s.seats[0].sagas == [saga(s, "ii-frankia-trade")]
    s.tasks_done = []
    rig(s, 6)
    events = record(s)
    act(s, K.SETTLE, 1)
    assert [e["id"] for e in of_type(events, "saga_completed")] == ["iii-normandy"]
    assert len(s.seats[0].sagas) == 2


def test_f11_4_a_fulfilled_card_is_discarded_on_reveal() -> None:
    s = scenario(
        sagas={
            "spaces": ["i-caithness", "i-hebrides", "i-lyubech"],
            "deck": ["i-bayeux", "ii-paris"],
        },
        seats=seats({"location": "Caithness", "crew": 3}, {"towns": ["Bayeux"]}),
    )
    rig(s, 6)
    events = record(s)
    act(s, K.RAID)
    assert [(e["id"], e["why"]) for e in of_type(events, "saga_discarded")] == [
        ("i-bayeux", "fulfilled")
    ]
    assert s.saga_spaces[0] == saga(s, "ii-paris") and s.saga_discard == [saga(s, "i-bayeux")]


def test_f11_4_a_partly_fulfilled_card_enters_play() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-lyubech"], "deck": ["i-northern-isles"]},
        settlements={"Shetland": 1},
        seats=seats({"location": "Caithness", "crew": 3}, {}),
    )
    rig(s, 6)
    act(s, K.RAID)
    assert s.saga_spaces[0] == saga(s, "i-northern-isles")


def test_f11_5_a_card_discarded_on_reveal_still_starts_its_age() -> None:
    s = scenario(
        sagas={
            "spaces": ["i-caithness", "i-hebrides", "i-lyubech"],
            "deck": ["ii-paris", "i-bayeux"],
        },
        seats=seats({"location": "Caithness", "crew": 3}, {"towns": ["Paris"]}),
    )
    rig(s, 6)
    act(s, K.RAID)
    assert s.age == 2 and s.saga_spaces[0] == saga(s, "i-bayeux")  # A10


def test_f11_6_sagas_outlive_their_age() -> None:
    s = scenario(
        age=2,
        sagas={"spaces": ["i-caithness", "ii-paris", "i-lyubech"], "deck": ["iii-rus"]},
        seats=seats({"location": "Paris", "crew": 3}),
    )
    rig(s, 6)
    act(s, K.RAID)
    assert s.age == 3
    assert s.saga_spaces == [saga(s, "i-caithness"), saga(s, "iii-rus"), saga(s, "i-lyubech")]


def test_f11_7_the_last_card_reveals_the_final_round_markers() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-lyubech"], "deck": ["ii-paris"]},
        seats=seats({"location": "Caithness", "crew": 3}),
    )
    rig(s, 6)
    events = record(s)
    act(s, K.RAID)
    assert s.markers_holder == 0 and s.markers_placed == 0 and not s.saga_deck
    assert of_type(events, "final_markers_taken") == [
        {"type": "final_markers_taken", "seat": 0, "markers": 3}
    ]


def test_f11_7_also_when_the_last_card_is_discarded() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-lyubech"], "deck": ["ii-paris"]},
        seats=seats({"location": "Caithness", "crew": 3}, {"towns": ["Paris"]}),
    )
    rig(s, 6)
    act(s, K.RAID)
    assert s.markers_holder == 0 and s.saga_spaces[0] == NONE


def test_decision_an_impossible_trade_saga_is_discarded() -> None:
    # Lewis's region mates hold a Tusk and a Fish, so only a Fur may go there; the last free
    # Fur is aboard seat 0, which sells it at Paris: Lewis can never get a token any more.
    s = scenario(
        age=3,
        goods={"Caithness": "tusk", "Iona": "fish"},
        sagas={
            "spaces": ["iii-western-isles-trade", "i-caithness", "i-hebrides"],
            "deck": ["ii-paris"],
        },
        seats=seats({"location": "Paris", "crew": 1, "goods": {"fur": 1}}),
    )
    s.supply[FUR] = 0
    card = s.board.sagas[saga(s, "iii-western-isles-trade")]
    assert not saga_rules.impossible(s, card)
    events = record(s)
    act(s, K.TRADE, FUR)
    assert saga_rules.impossible(s, card)
    assert [(e["id"], e["why"]) for e in of_type(events, "saga_discarded")] == [
        ("iii-western-isles-trade", "impossible")
    ]
    assert s.saga_spaces[0] == saga(s, "ii-paris") and s.seats[0].sagas == []
    assert s.markers_holder == 0  # its replacement was the last card


def test_f12_4_the_last_saga_ends_the_game_at_once() -> None:
    s = scenario(
        sagas={"spaces": [None, "i-caithness", None], "deck": []},
        final_markers={"holder": 1, "placed": 0},
        seats=seats({"location": "Caithness", "crew": 3, "goods": {"fish": 1}}),
    )
    rig(s, 6)
    act(s, K.RAID)
    assert s.step == Step.GAME_OVER and s.end_reason == EndReason.SAGAS_DONE
    assert RULES.result(s) is not None


def test_f12_6_a_holder_out_of_the_game_still_places_markers() -> None:
    ports = ["paris", "rome", "constantinople", "lindisfarne", "arles", "hedeby", "visby"]
    ports += ["brattahlid", "halogaland", "man", "cork", "iona", "lewis", "polotsk", "ladoga"]
    s = scenario(
        players=2,
        settlements={p: 1 for p in ports},
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-lyubech"], "deck": []},
        final_markers={"holder": 1, "placed": 0},
        seats=seats(
            {"location": "Norway", "crew": 1},
            {"towns": ["paris", "rome", "constantinople", "lindisfarne"]},
            players=2,
        ),
    )
    for placed in (1, 2):
        act(s, K.END_TURN)
        assert s.markers_placed == placed and s.seats[1].out and seat(s) == 0
    act(s, K.END_TURN)
    assert s.step == Step.GAME_OVER and s.end_reason == EndReason.FINAL_ROUNDS


def test_f13_1_vp_earned_in_play_stay() -> None:
    s = scenario(seats=seats({"vp": 12}, {"vp": 3}))
    final_scoring(s)
    assert [p.vp for p in s.seats] == [12, 3, 0]


def test_f13_2_bloodiest_axe_ties_share_and_nobody_for_none() -> None:
    assert bloodiest_axe([2, 2, 1]) == [6, 6, 0]
    assert bloodiest_axe([0, 0, 0]) == [0, 0, 0]


def test_f13_3_two_settled_ports_of_a_region_double() -> None:
    s = scenario(settlements={"Man": 0, "Cork": 1}, seats=seats({}, {}))
    final_scoring(s)
    assert (s.seats[0].vp, s.seats[1].vp) == (2 * 2, 3 * 2)


def test_f13_4_ties_for_the_most_leave_no_second_place() -> None:
    assert saga_sets([3, 3, 1]) == [30, 30, 0]
    assert saga_sets([4, 2, 2]) == [40, 10, 10]  # a tie for second
    assert saga_sets([0, 0, 0]) == [0, 0, 0]
    assert saga_sets([1, 0, 0]) == [10, 0, 0]  # no second with 0 Sagas


def test_f13_scoring_at_the_end_of_a_game() -> None:
    s = scenario(
        sagas={"spaces": [None, "i-caithness", None], "deck": []},
        settlements={"Man": 0},
        seats=seats(
            {"location": "Caithness", "crew": 3, "sagas": ["i-bayeux"], "towns": ["Bayeux"]},
            {"sagas": ["i-lindisfarne"]},
        ),
    )
    rig(s, 6)
    events = record(s)
    act(s, K.RAID)
    reasons = [(e["seat"], e["reason"], e["delta"]) for e in of_type(events, "vp")]
    treasure = s.treasure[loc(s, "caithness")]
    assert reasons == [
        (0, "treasure", treasure),
        (0, "saga", 1),
        (0, "bloodiest_axe", 6),
        (0, "settlement", 2),
        (0, "saga_set", 20),  # Denmark: Bayeux and Caithness
        (1, "saga_set", 10),  # Norway: Lindisfarne
    ]
    r = RULES.result(s)
    assert r is not None and r.scores == tuple(p.vp for p in s.seats) and r.winners == (0,)


def test_f13_5_no_tie_breaker() -> None:
    assert ranks_of((10, 12, 12)) == (3, 1, 1)
    s = scenario(
        sagas={"spaces": [None, "i-caithness", None], "deck": []},
        seats=seats({"location": "Caithness", "crew": 3}, {"vp": 0}, {"vp": 0}),
    )
    s.treasure[loc(s, "caithness")] = 0
    rig(s, 6)
    act(s, K.RAID)
    r = RULES.result(s)
    assert r is not None
    vp = [p.vp for p in s.seats]
    assert r.ranks == ranks_of(tuple(vp)) and set(r.winners) == {
        i for i, v in enumerate(vp) if v == max(vp)
    }


def test_f14_1_the_no_conflict_variant() -> None:
    state = RULES.new_game(RULES.options(4, 5, {"no_conflict": True}))
    cards = state.rune_deck + [r for p in state.seats for r in p.hand]
    assert len(cards) == 24 and not any(state.board.runes[r].conflict for r in cards)


def test_f11_1_and_f11_8_ages_and_the_markers_by_completions() -> None:
    s = RULES.new_game(RULES.options(3, 8, {}))
    assert sum(1 for c in s.saga_spaces if c != NONE) == 3
    age_at: dict[int, int] = {}
    completions = 0
    while s.saga_deck:
        s.saga_spaces[0] = NONE  # as if completed: refill that space
        saga_rules.reveal(s, 0, 1)
        completions += 1
        age_at.setdefault(s.age, completions)
    assert age_at[2] == 4 and age_at[3] == 10  # F11.8 [INF], with no discard
    assert completions == 15 and s.markers_holder == 1
