"""Sagas (F11) at the boundary: when a Trade Saga becomes impossible (the module's [GAP]
decision: every goods token that could still reach an empty listed port counts, the ones on
the Losses chart too; a listed port that already holds a token needs nothing), and a space
left empty by the last card of the deck does not end the game (F12.2-F12.4)."""

from __future__ import annotations

from typing import Any

from engine.fire_and_axe.board import Board
from engine.fire_and_axe.ids import FISH, GOOD_NAMES, GOODS_PER_TYPE, PORT
from engine.fire_and_axe.state import NONE, GameState, Step
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


def _fill(board: Board, goods: dict[str, str], counts: dict[int, int], keep_off: set[str]) -> None:
    """Put ``counts[g]`` tokens of each type ``g`` into ports (one per port, one of a type per
    region, F7.3), never into ``keep_off``; ``goods`` (port -> type name) is completed in
    place. Ports of a region come first: they can hold one token of each type only."""
    order = sorted(range(len(board.ids)), key=lambda p: not board.region_others[p])
    for g, count in counts.items():
        name = GOOD_NAMES[g]
        placed = sum(1 for v in goods.values() if v == name)
        for p in order:
            if placed == count:
                break
            ident = board.ids[p]
            if board.kind[p] != PORT or ident in goods or ident in keep_off:
                continue
            if any(goods.get(board.ids[q]) == name for q in board.region_others[p]):
                continue
            goods[ident] = name
            placed += 1
        assert placed == count, f"no room for {count} {name} tokens"


def _only_fish_free(
    goods: dict[str, str], keep_off: set[str], fish_in_ports: int = 0, **fields: Any
) -> GameState:
    """A position where every tusk and fur token lies in a port: fish is the only type that
    can still reach an empty port (the demand space holds a fish)."""
    probe = scenario()
    counts = {0: GOODS_PER_TYPE, 2: GOODS_PER_TYPE}
    if fish_in_ports:
        counts[FISH] = fish_in_ports
    _fill(probe.board, goods, counts, keep_off)
    s = scenario(goods=goods, demand="fish", **fields)
    assert s.supply[0] == s.supply[2] == 0
    return s


_SHOWN = ["iii-western-isles-trade", "ii-paris", "iii-constantinople"]
_SAILOR = {"location": "w-north-sea", "crew": 2, "hand": ["skalds-tale"]}


def _spaces(s: GameState) -> list[str]:
    return ["" if c == NONE else s.board.sagas[c].id for c in s.saga_spaces]


def test_a_trade_saga_whose_filled_port_is_blocked_is_not_impossible() -> None:
    """Lewis already holds a token, so the tokens its region blocks do not matter; Orkney
    can still take a fish: the Saga stays."""
    keep_off = {"lewis", "orkney", "faroe", "shetland", "iona", "caithness"}
    s = _only_fish_free(
        {"lewis": "fur", "iona": "fish"},
        keep_off,
        sagas={"spaces": _SHOWN, "deck": ["ii-seville"]},
        seats=seats(dict(_SAILOR, goods={"fish": 1})),
    )
    assert [s.board.ids[p] for p in s.board.sagas[saga(s, _SHOWN[0])].ports] == [
        "lewis",
        "orkney",
    ]
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "skalds-tale"), 0, 0)  # a decision after which Sagas are checked
    assert of_type(events, "saga_discarded") == []
    assert _spaces(s) == _SHOWN


def test_a_trade_saga_is_impossible_when_a_later_port_can_take_no_token() -> None:
    """Lewis (first) holds a token; Orkney's region already has a fish and no other type is
    left: the Saga can never be completed, and is discarded and replaced."""
    keep_off = {"lewis", "orkney", "faroe", "shetland"}
    s = _only_fish_free(
        {"lewis": "fur", "shetland": "fish"},
        keep_off,
        sagas={"spaces": _SHOWN, "deck": ["ii-seville"]},
        seats=seats(dict(_SAILOR, goods={"fish": 1})),
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "skalds-tale"), 0, 0)
    assert [e["why"] for e in of_type(events, "saga_discarded")] == ["impossible"]
    assert _spaces(s) == ["ii-seville", *_SHOWN[1:]]


def test_a_token_on_the_losses_chart_can_still_complete_a_trade_saga() -> None:
    """The last free fish lost to the weather goes back to the supply at the turn's end
    (F6.6, F10.3): Orkney can still get it, so the Saga stays."""
    keep_off = {"lewis", "orkney", "faroe", "shetland", "iona", "caithness"}
    s = _only_fish_free(
        {"lewis": "fur"},
        keep_off,
        fish_in_ports=GOODS_PER_TYPE - 2,  # one on the demand space, one aboard
        sagas={"spaces": _SHOWN, "deck": ["ii-seville"]},
        seats=seats(dict(_SAILOR, goods={"fish": 1})),
    )
    assert s.supply[FISH] == 0 and s.seats[0].cargo[FISH] == 1
    board = s.board
    dest = loc(s, "w-north-atlantic")
    assert dest in board.adjacent[loc(s, "w-north-sea")]
    s.sail = board.fwd[s.dial][board.zone[dest]]  # one Day over: the first skull
    act(s, K.SAIL, dest)
    assert s.step == Step.LOSSES
    act(s, K.LOSE, FISH)
    assert s.chart[FISH] == 1 and s.seats[0].cargo[FISH] == 0
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "skalds-tale"), 0, 0)
    assert of_type(events, "saga_discarded") == []
    assert _spaces(s) == _SHOWN


def test_a_saga_taken_with_the_deck_empty_leaves_a_space_and_the_game_goes_on() -> None:
    """F11.7 / F12.4: the deck is empty, so the space stays empty; the game ends only when
    every space is empty (or at the end of the Final Rounds)."""
    s = scenario(
        sagas={"spaces": ["i-lindisfarne", "ii-paris", "iii-constantinople"], "deck": []},
        final_markers={"holder": 1, "placed": 0},
        seats=seats({"location": "Lindisfarne", "crew": 2}),
    )
    events = record(s)
    rig(s, 6)
    act(s, K.RAID)
    assert [e["id"] for e in of_type(events, "saga_completed")] == ["i-lindisfarne"]
    assert _spaces(s) == ["", "ii-paris", "iii-constantinople"]
    assert s.step == Step.MAIN and of_type(events, "game_over") == []
    assert K.END_TURN in {a.kind for a in legal(s)}
