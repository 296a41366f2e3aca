"""A refused decision names the rule that refuses it, not a neighbouring one; an action with
values out of any table still reads in words; the contract's action codes are exactly the
29-bit ones; ``first_player`` must be a seat number.

A refusal that blames the wrong rule ("only in the Wintering Zone" to a player who is there)
sends a person, or a bot's author, looking in the wrong place."""

from __future__ import annotations

import pytest

from engine.core.errors import OptionsError
from engine.fire_and_axe.actions import Action
from engine.fire_and_axe.ids import FISH
from engine.fire_and_axe.rules import RULES
from tests.fire_and_axe.fae_support import K, loc, scenario, seats
from tests.fire_and_axe.test_fae_edges import refusal

NOT_LEGAL = "it is not among the legal actions now"


def test_loading_goods_before_crew_in_the_wintering_zone_says_why() -> None:
    """One Day left and no crew aboard: a goods token would leave no Day for the crewmember
    the ship needs to leave (F5.1b), so it is refused, for the Loading rules."""
    s = scenario(days={"preparation": 6}, seats=seats({}))
    text = refusal(s, K.LOAD_GOOD, FISH)
    assert text == (
        "seat 0 cannot load fish: no free slot of this Age, none of that in the supply, or a "
        "crewmember must be loaded first (F5.1-F5.2)"
    )


def test_a_task_refused_when_no_day_is_left_is_refused_for_its_own_conditions() -> None:
    """Tasks cost no Day (F7.1): a Trade without the goods is refused for the goods, whatever
    the Days track says, and not for a Task already done when none was."""
    for days in ({"sailing": 7}, {}):
        s = scenario(days=days, seats=seats({"location": "Kiev", "crew": 2}))
        assert refusal(s, K.TRADE, FISH) == (
            "seat 0 cannot trade fish: this Task's conditions do not hold here (F7.3-F7.5)"
        )


def test_leaving_the_wintering_zone_from_the_map_says_why() -> None:
    s = scenario(seats=seats({"location": "Norway", "crew": 1}))
    assert refusal(s, K.LEAVE_WINTERING, loc(s, "norway")) == (
        "seat 0 cannot leave the Wintering Zone for Norway: only a crewed ship in the "
        "Wintering Zone leaves it, for a Homeland (F5.1b, F5.3)"
    )


def test_a_decision_of_another_step_is_not_among_the_legal_ones() -> None:
    """In the Wintering Zone and on the map alike, a Settle's question asked when no Settle
    asks it is just not a legal action (not "Load first", not a Rune's limits)."""
    for spec in ({}, {"location": "e-rivers", "crew": 2}):
        s = scenario(seats=seats(spec))
        for kind, words in ((K.CONVERT, "settle with the last crewmember"), (K.PASS, "pass")):
            assert refusal(s, kind) == f"seat 0 cannot {words}: {NOT_LEGAL}"


# -- actions with values out of any table still read in words ------------------------------------


def test_out_of_table_values_read_as_numbers_in_a_refusal() -> None:
    s = scenario(seats=seats({"location": "e-rivers", "crew": 2, "hand": ["storm"]}))
    assert refusal(s, K.SAIL, -1).startswith("seat 0 cannot sail -> location #-1: ")
    assert refusal(s, K.PLAY_RUNE, -1, 0, 0).startswith("seat 0 cannot play Rune #-1 (choice 0): ")
    assert refusal(s, K.LOSE, -1).startswith("seat 0 cannot lose no item -1: ")
    assert RULES.describe((K.LOAD_GOOD, -1)) == "load no goods type -1"
    assert RULES.describe((K.TRADE, 3)) == "trade no goods type 3"
    assert RULES.describe((K.DISCARD_RUNE, 0, -1)) == (
        "discard Rune #0, turning the dial no turn -1"
    )


# -- the contract's action codes --------------------------------------------------------------


def test_every_29_bit_code_of_a_known_kind_decodes_and_no_other() -> None:
    for action in (Action(K.PLAY_RUNE, 255, 2, 255), Action(K.PLAY_RUNE, 3, 1, 128)):
        assert RULES.action_from_code(action.code()) == action
    assert RULES.action_from_code((1 << 29) - 1 - 31 + K.PASS) == Action(K.PASS, 255, 255, 255)
    for code in (-32, -(1 << 29), 1 << 29, (1 << 29) + K.SAIL, -1, 31):
        with pytest.raises(ValueError, match=f"{code} is not a Fire & Axe action code"):
            RULES.action_from_code(code)


@pytest.mark.parametrize("first", ["1", 1.0, True, [0]])
def test_first_player_must_be_a_seat_number(first: object) -> None:
    with pytest.raises(OptionsError, match=r"^first_player must be a seat number, not "):
        RULES.options(3, 1, {"first_player": first})


def test_the_action_kinds_keep_their_codes() -> None:
    """Stored games hold action codes (kind in the low 5 bits): a kind's number may never
    change, or every stored game would replay other decisions (actions.py's table, in order)."""
    names = [
        "LOAD_CREW",
        "LOAD_GOOD",
        "LEAVE_WINTERING",
        "DRAW_RUNE",
        "SAIL",
        "TRADE",
        "RAID",
        "RAID_AGAIN",
        "RAID_STOP",
        "SETTLE",
        "CONVERT",
        "DECLINE",
        "LOSE",
        "PLAY_RUNE",
        "DISCARD_RUNE",
        "WINTER",
        "END_TURN",
        "PASS",
    ]
    assert [(k.name, int(k)) for k in K] == [(name, code) for code, name in enumerate(names)]
    assert RULES.action_from_code(17) == Action(K.PASS) and RULES.describe((17, 0, 0, 0)) == "pass"
    with pytest.raises(ValueError, match="18 is not a Fire & Axe action code"):
        RULES.action_from_code(18)
