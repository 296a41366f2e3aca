"""Edges the rule tests pass by: why each kind of refusal is refused, a game's options read
back from its state, a pack carried with an empty name, Rune choices at the last token of a
supply, Days given back down to zero, a pack's problems as people read them, and the end at
the fifteenth Settlement coming before the turn's end."""

from __future__ import annotations

import pytest

from engine.core.errors import IllegalActionError, OptionsError
from engine.fire_and_axe.actions import Action
from engine.fire_and_axe.data_pack import DataPackError, parse
from engine.fire_and_axe.ids import FISH, FUR, TUSK
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import EndReason, Step
from tests.fire_and_axe.fae_support import (
    K,
    act,
    loc,
    of_type,
    record,
    rig,
    rune,
    scenario,
    seats,
)
from tests.fire_and_axe.test_fae_data_pack import DEMO_TEXT, edit
from tests.fire_and_axe.test_fae_hosting import OTHER_TEXT


def refusal(state: object, kind: int, a: int = 0, b: int = 0, c: int = 0) -> str:
    with pytest.raises(IllegalActionError) as refused:
        act(state, kind, a, b, c)  # type: ignore[arg-type]
    return str(refused.value)


# -- why a decision is refused ------------------------------------------------------------------


def test_a_decision_during_the_weather_losses_is_refused_for_them() -> None:
    s = scenario(
        days={"sailing": 2}, seats=seats({"location": "Norway", "crew": 2, "goods": {"fish": 1}})
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    assert s.step == Step.LOSSES
    text = refusal(s, K.END_TURN)
    assert text == (
        "seat 0 cannot end the turn: the weather losses must be taken first (F5.6a, F6.4)"
    )


def test_a_sail_into_a_held_port_or_to_a_far_place_says_which() -> None:
    s = scenario(seats=seats({"location": "e-rivers", "crew": 2}, {"location": "Kiev", "crew": 1}))
    assert refusal(s, K.SAIL, loc(s, "kiev")).endswith("another ship is in that port (F2.6)")
    assert refusal(s, K.SAIL, loc(s, "rome")).endswith("that place is not adjacent (F5.6)")


def test_a_second_task_at_a_port_is_refused_for_the_one_task_rule() -> None:
    s = scenario(seats=seats({"location": "Kiev", "crew": 2, "goods": {"fish": 1, "fur": 1}}))
    act(s, K.TRADE, FISH)
    text = refusal(s, K.TRADE, FUR)
    assert text.endswith("a Task was done at this port this turn (F7.2)")


def test_a_rune_not_in_hand_and_one_that_cannot_act_are_told_apart() -> None:
    s = scenario(seats=seats({"location": "e-rivers", "crew": 2, "hand": ["berserkers"]}))
    assert refusal(s, K.PLAY_RUNE, rune(s, "storm"), 0, 1).endswith("that Rune is not in the hand")
    text = refusal(s, K.PLAY_RUNE, rune(s, "berserkers"), 0, 0)  # a port card, at sea
    assert text.endswith("the card's own limits or its effect do not allow that now (F8.1)")


# -- options, packs ----------------------------------------------------------------------------


def test_a_games_options_read_back_from_its_state() -> None:
    for block in ("all", "any"):
        state = RULES.new_game(RULES.options(3, 4, {"settle_region_block": block}))
        options = RULES.options_of(state)
        assert options.settle_region_block == block
        assert RULES.options_record(options)["settle_region_block"] == block


def test_a_pack_carried_with_an_empty_name_is_the_text_named() -> None:
    options = RULES.options(3, 4, {"data_pack": "", "data_pack_toml": OTHER_TEXT})
    assert options.data_pack == parse(OTHER_TEXT).digest
    # Without a text, an empty name names no pack: refused as it was given.
    with pytest.raises(OptionsError, match="no data pack with digest '' is loaded"):
        RULES.options(3, 4, {"data_pack": ""})


def test_a_packs_problems_read_one_per_line() -> None:
    text = edit('id = "sweden"', 'id = "svealand"')
    with pytest.raises(DataPackError) as info:
        parse(text, "mine.toml")
    message = str(info.value)
    lines = message.split("\n")
    assert lines[0] == f"mine.toml: {len(info.value.problems)} problem(s) in the data pack:"
    assert lines[1:] == [f"  - {p}" for p in info.value.problems]
    assert (
        "location: the homelands must be ['denmark', 'norway', 'sweden'], "
        "not ['denmark', 'norway', 'svealand']"
    ) in info.value.problems
    assert DEMO_TEXT  # the demo pack itself is fine (parse would have raised)


# -- Runes at the edges of the supply ---------------------------------------------------------


def test_change_of_demand_offers_a_type_down_to_its_last_token() -> None:
    s = scenario(seats=seats({"location": "e-rivers", "crew": 2, "hand": ["change-of-demand"]}))
    s.supply = [1, 10, 0]  # the last tusk; no fur left
    assert s.demand == FISH
    plays = {a.c for a in RULES.legal_actions(s, 0) if a[0] == K.PLAY_RUNE}
    assert plays == {TUSK}


def test_hidden_cargo_offers_the_types_left_in_the_supply() -> None:
    s = scenario(seats=seats({"location": "e-rivers", "crew": 2, "hand": ["hidden-cargo"]}))
    s.supply = [1, 10, 0]
    plays = {a.c for a in RULES.legal_actions(s, 0) if a[0] == K.PLAY_RUNE}
    assert plays == {TUSK, FISH}


def test_days_given_back_stop_at_zero() -> None:
    s = scenario(
        days={"sailing": 1}, seats=seats({"location": "e-rivers", "crew": 2, "hand": ["long-day"]})
    )
    card = s.board.runes[rune(s, "long-day")]
    assert card.effects[0].number("days") > 1
    act(s, K.PLAY_RUNE, rune(s, "long-day"), 0, 0)
    assert (s.prep, s.sail) == (0, 0)


# -- the end ---------------------------------------------------------------------------------


def test_the_fifteenth_settlement_ends_the_game_before_the_turn_ends() -> None:
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
    rig(s, 6)
    act(s, K.SETTLE, 1)
    events = record(s)
    act(s, K.CONVERT)
    assert s.end_reason == EndReason.ALL_OUT
    order = [e["type"] for _, e in events]
    assert "turn_end" not in order and "turn_start" not in order
    assert order[-1] == "game_over" and of_type(events, "game_over")[0]["reason"] == "all_out"
    assert Action(K.CONVERT).code() == events[0][1]["action"]
