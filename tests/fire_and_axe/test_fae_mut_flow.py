"""Who is asked and when the game ends (flow): the Rune window of A8 when a seat in it runs out
of Runes, out-of-the-game seats (F9.4) never asked, and a game that ends two ways at once
(F12.4 and F12.5) ending once."""

from __future__ import annotations

from typing import Any

from engine.fire_and_axe import flow
from engine.fire_and_axe.board import Board
from engine.fire_and_axe.ids import CREW_PER_PLAYER, PORT
from engine.fire_and_axe.state import EndReason, GameState, Step
from tests.fire_and_axe.fae_support import K, act, loc, of_type, record, rig, rune, scenario

ANY = {"rune_timing": "any_time"}


def _window_of_three() -> GameState:
    """Seat 0 sails; seats 1 and 2 both hold a Rune, so the window asks 1, then 2."""
    s = scenario(
        options=ANY,
        seats=[
            {"location": "w-north-sea", "crew": 2},
            {"location": "Paris", "crew": 1, "hand": ["storm"]},
            {"location": "Kiev", "crew": 1, "hand": ["skalds-tale"]},
        ],
    )
    act(s, K.SAIL, loc(s, "lindisfarne"))
    assert s.step == Step.WINDOW and s.window == [1, 2]
    return s


def test_the_window_moves_on_to_the_next_seat_when_the_first_plays_its_last_rune() -> None:
    s = _window_of_three()
    act(s, K.PLAY_RUNE, rune(s, "storm"), 0, 1)
    assert s.seats[1].hand == []
    assert flow.awaiting(s) == [2] and s.window == [2]  # seat 2 keeps its turn to answer
    assert K.PLAY_RUNE in {a.kind for a in flow.legal_actions(s, 2)}
    assert flow.legal_actions(s, 1) == []


def test_the_window_moves_on_to_the_next_seat_when_the_first_discards_its_last_rune() -> None:
    s = _window_of_three()
    act(s, K.DISCARD_RUNE, rune(s, "storm"), 0)
    assert flow.awaiting(s) == [2] and s.step == Step.WINDOW
    act(s, K.PASS)
    assert flow.awaiting(s) == [0] and s.step == Step.MAIN


def _ports(board: Board) -> list[str]:
    return [board.ids[p] for p in range(len(board.ids)) if board.kind[p] == PORT]


def test_a_seat_out_of_the_game_is_not_asked_in_the_window_though_it_holds_runes() -> None:
    """F9.4: a player whose 15 crew are all Settlements is out; under A8 it is not asked."""
    probe = scenario()
    unstarred = [p for p in _ports(probe.board) if probe.board.stars[loc(probe, p)] == 0]
    settled = unstarred[:CREW_PER_PLAYER]
    s = scenario(
        options=ANY,
        settlements={p: 1 for p in settled},
        seats=[
            {"location": "w-north-sea", "crew": 2},
            {"hand": ["skalds-tale"]},  # in the Wintering Zone, no crew left anywhere
            {"location": "e-rivers", "crew": 1},
        ],
    )
    assert s.seats[1].crew_supply == 0
    act(s, K.END_TURN)  # seat 1's turn starts: it is out, skipped; seat 2 plays
    assert s.seats[1].out and s.turn == 2
    # seat 1 could answer (a Rune, not in a Homeland) but is out: no window opens
    assert s.step == Step.MAIN and flow.awaiting(s) == [2]
    act(s, K.SAIL, loc(s, "e-baltic-sea"))
    assert s.step != Step.WINDOW and flow.awaiting(s) == [2]
    assert flow.legal_actions(s, 1) == []


def _all_settled_but_one(board: Board, target: str, keep: str) -> dict[str, Any]:
    """Scenario fields for 2 players: every seat has 15 Settlements but seat 0, which has 14
    and one crewmember in ``target`` (unsettled, no town); ``keep`` is settled by seat 0."""
    others = [p for p in _ports(board) if p not in (target, keep)]
    starred = [p for p in others if board.stars[board.index(p)]]
    settled = [keep, *others[: 2 * CREW_PER_PLAYER - 2]]
    owners = {p: (0 if i < CREW_PER_PLAYER - 1 else 1) for i, p in enumerate(settled)}
    towns = [p for p in starred if p in owners]
    return {
        "settlements": owners,
        "seats": [
            {"location": target, "crew": 1, "towns": towns},
            {},
        ],
    }


def test_the_last_settlement_that_also_takes_the_last_saga_ends_the_game_once() -> None:
    """The Convert that makes every crewmember a Settlement (F12.5) also completes the last
    Saga with the deck empty (F12.4): one end, one final scoring."""
    probe = scenario(players=2)
    fields = _all_settled_but_one(probe.board, "orkney", "shetland")
    s = scenario(
        players=2,
        sagas={"spaces": ["i-northern-isles", None, None], "deck": []},
        **fields,
    )
    assert s.seats[0].settlements == CREW_PER_PLAYER - 1
    assert s.seats[1].settlements == CREW_PER_PLAYER
    events = record(s)
    rig(s, 6)
    act(s, K.SETTLE, 1)
    assert s.step == Step.SETTLE_CONVERT
    act(s, K.CONVERT)
    assert all(p.settlements == CREW_PER_PLAYER for p in s.seats)
    over = of_type(events, "game_over")
    assert len(over) == 1 and over[0]["reason"] == "sagas_done"
    assert s.end_reason == EndReason.SAGAS_DONE
    assert over[0]["vp"] == [p.vp for p in s.seats]
    scored = [e for e in of_type(events, "vp") if e["reason"] == "settlement"]
    assert len(scored) == 2 * CREW_PER_PLAYER  # every Settlement scored once (F13.3)
