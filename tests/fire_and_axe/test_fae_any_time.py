"""A8, the option rune_timing = "any_time": other players may play or discard Runes in the
turn of another, in a window after each of the active player's decisions."""

from __future__ import annotations

from engine.fire_and_axe import flow
from engine.fire_and_axe.ids import FISH, TUSK
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import Step
from tests.fire_and_axe.fae_support import K, act, kinds, legal, loc, rig, rune, scenario, seat

ANY = {"rune_timing": "any_time"}


def three(**extra: object) -> dict[str, object]:
    return {
        "options": ANY,
        "seats": [
            {"location": "w-north-sea", "crew": 2, "goods": {"tusk": 1}},
            {"location": "Paris", "crew": 1, "hand": ["change-of-demand", "long-day"]},
            {"location": "Kiev", "crew": 1, "hand": ["storm"]},
        ],
        **extra,
    }


def test_the_window_asks_the_others_clockwise_after_each_decision() -> None:
    s = scenario(**three())
    assert seat(s) == 0  # a position starts with the active seat
    act(s, K.SAIL, loc(s, "lindisfarne"))
    assert s.step == Step.WINDOW and flow.awaiting(s) == [1] and s.window == [1, 2]
    moves = legal(s)
    assert moves[0].kind == K.PASS
    plays = {a.a for a in moves if a.kind == K.PLAY_RUNE}
    assert plays == {rune(s, "change-of-demand")}  # Long Day is for its owner's turn only
    assert {a.a for a in moves if a.kind == K.DISCARD_RUNE} == {
        rune(s, "change-of-demand"),
        rune(s, "long-day"),
    }
    act(s, K.PASS)
    assert flow.awaiting(s) == [2]
    act(s, K.PASS)
    assert s.step == Step.MAIN and flow.awaiting(s) == [0]


def test_a_rune_played_in_another_turn_acts_at_once() -> None:
    s = scenario(**three())
    act(s, K.SAIL, loc(s, "lindisfarne"))
    act(s, K.PLAY_RUNE, rune(s, "change-of-demand"), 0, TUSK)  # seat 1, before the trade
    assert s.demand == TUSK and flow.awaiting(s) == [1]  # it may play again
    act(s, K.PASS)
    act(s, K.DISCARD_RUNE, rune(s, "storm"), 1)  # seat 2 turns the dial
    assert flow.awaiting(s) == [0] and s.dial == 3
    act(s, K.TRADE, TUSK)
    assert s.seats[0].vp == 2 + 2


def test_who_is_asked() -> None:
    s = scenario(
        options=ANY,
        seats=[
            {"location": "w-north-sea", "crew": 2},
            {"location": "Denmark", "crew": 1, "hand": ["storm"]},  # in a Homeland
            {"location": "Kiev", "crew": 1},  # no Rune
        ],
    )
    act(s, K.SAIL, loc(s, "lindisfarne"))
    assert s.step == Step.MAIN and flow.awaiting(s) == [0]


def test_a_seat_leaves_the_window_when_its_hand_is_empty() -> None:
    s = scenario(**three())
    act(s, K.SAIL, loc(s, "lindisfarne"))
    act(s, K.PASS)
    act(s, K.PLAY_RUNE, rune(s, "storm"), 0, 1)
    assert flow.awaiting(s) == [0] and s.seats[2].hand == []


def test_no_window_inside_a_task_or_the_weather() -> None:
    s = scenario(
        options=ANY,
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=[
            {"location": "Paris", "crew": 3},
            {"location": "Kiev", "crew": 1, "hand": ["storm"]},
            {},
        ],
    )
    rig(s, 1)
    act(s, K.RAID)
    assert s.step == Step.RAID_AGAIN and flow.awaiting(s) == [0]
    act(s, K.RAID_STOP)
    assert s.step == Step.WINDOW and flow.awaiting(s) == [1]


def test_a_window_between_turns_skips_the_new_active_seat() -> None:
    s = scenario(**three())
    act(s, K.END_TURN)
    assert s.turn == 1 and s.step == Step.WINDOW and s.window == [2]
    assert RULES.default_action(s, 2).kind == K.PASS
    act(s, K.PASS)
    assert flow.awaiting(s) == [1] and K.PLAY_RUNE in kinds(s)
    plays = {a.a for a in legal(s) if a.kind == K.PLAY_RUNE}
    assert rune(s, "long-day") in plays  # its owner's turn now


def test_no_window_in_the_default_reading() -> None:
    fields = three()
    fields["options"] = {}
    s = scenario(**fields)
    act(s, K.SAIL, loc(s, "lindisfarne"))
    assert s.step == Step.MAIN and flow.awaiting(s) == [0]
    assert s.demand == FISH
