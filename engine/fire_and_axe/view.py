"""What one seat, or a spectator, may see.

Every byte that leaves the engine for a player passes through ``view``: the public table plus
the viewer's own Rune hand. Never shown to anyone: another seat's hand (only its size), the
order of the Rune and Saga decks (only their sizes, and the Saga deck's count per Age, which
the card backs show, F1.3), the 9 Sagas removed unseen, the treasure under a town still
standing (F1.12: hidden until raided; a raided town's treasure is public, F7.4a) and the dice
generator. VP totals are shown (F17.6 does not say; the VP coins lie in front of each player).
Locations are named by their pack ids; the static map is :func:`map_view`.
"""

from __future__ import annotations

from typing import Any

from engine.core.contract import SPECTATOR
from engine.fire_and_axe import runes, weather
from engine.fire_and_axe.actions import describe
from engine.fire_and_axe.board import Board, SagaCard
from engine.fire_and_axe.flow import awaiting, legal_actions
from engine.fire_and_axe.ids import (
    COLOUR_NAMES,
    DAYS_PER_TURN,
    GOOD_NAMES,
    HOMELANDS,
    ITEM_NAMES,
    KIND_NAMES,
    SAGA_TYPE_NAMES,
    WINTERING,
    ZONE_NAMES,
)
from engine.fire_and_axe.scoring import result
from engine.fire_and_axe.state import END_REASON_NAMES, NONE, GameState, Step


def location_id(board: Board, loc: int) -> str:
    return "wintering" if loc == WINTERING else board.ids[loc]


def saga_info(board: Board, card: int) -> dict[str, Any]:
    s: SagaCard = board.sagas[card]
    return {
        "saga": card,
        "id": s.id,
        "name": s.name,
        "age": s.age,
        "homeland": HOMELANDS[s.homeland],
        "type": SAGA_TYPE_NAMES[s.type],
        "ports": [board.ids[p] for p in s.ports],
        "bonus_vp": s.bonus_vp,
    }


def rune_info(board: Board, rune: int) -> dict[str, Any]:
    r = board.runes[rune]
    return {
        "rune": rune,
        "id": r.id,
        "name": r.name,
        "conflict": r.conflict,
        "when": r.when,
        "where": r.where,
        "text": r.text,
        "effects": [{"kind": e.kind, **dict(e.params)} for e in r.effects],
    }


def map_view(board: Board) -> dict[str, Any]:
    """The static board of a pack, for clients that draw it (public, never changes)."""
    pack = board.pack
    return {
        "pack": pack_info(board),
        "locations": [
            {
                "id": board.ids[i],
                "name": board.names[i],
                "kind": KIND_NAMES[board.kind[i]],
                "zone": ZONE_NAMES[board.zone[i]],
                "value": board.value[i],
                "stars": board.stars[i],
                "region": board.region_names[board.region[i]] if board.region[i] >= 0 else None,
                "adjacent": [board.ids[j] for j in board.adjacent[i]],
            }
            for i in range(len(board.ids))
        ],
        "wind_dial": {ZONE_NAMES[z]: list(v) for z, v in enumerate(pack.dial)},
        "skulls": list(board.skulls),
        "runes": [rune_info(board, r) for r in range(len(board.runes))],
    }


def pack_info(board: Board) -> dict[str, Any]:
    pack = board.pack
    return {
        "id": pack.id,
        "name": pack.name,
        "digest": pack.digest,
        "demo": pack.demo,
        "not_published": pack.not_published,
    }


def view(state: GameState, viewer: int = SPECTATOR, include_state: bool = False) -> dict[str, Any]:
    """The seat's view (``SPECTATOR`` for public information only)."""
    board = state.board
    n = state.players
    me = viewer if 0 <= viewer < n else SPECTATOR
    loc = board.ids
    fwd = weather.fwd_all(state)
    seats = []
    for s, p in enumerate(state.seats):
        seats.append(
            {
                "seat": s,
                "colour": COLOUR_NAMES[s],
                "location": location_id(board, p.loc),
                "crew": p.crew,
                "goods": {GOOD_NAMES[g]: p.cargo[g] for g in range(3)},
                "crew_supply": p.crew_supply,
                "settlements": p.settlements,
                "vp": p.vp,
                "hand_count": len(p.hand),
                "towns": [
                    {
                        "port": loc[t],
                        "size": "large" if board.stars[t] == 3 else "small",
                        "treasure": state.treasure[t],
                    }
                    for t in p.towns
                ],
                "sagas": [saga_info(board, c) for c in p.sagas],
                "out": p.out,
                "may_use_runes": runes.may_use_runes(state, s),
            }
        )
    ports = [
        {
            "port": loc[port],
            "goods": GOOD_NAMES[state.goods[port]] if state.goods[port] != NONE else None,
            "town": {0: None, 1: "small", 3: "large"}[state.town[port]],
            "settlement": state.settler[port] if state.settler[port] != NONE else None,
        }
        for port in board.ports
    ]
    sagas = board.sagas
    deck_ages = [sum(1 for c in state.saga_deck if sagas[c].age == a) for a in (1, 2, 3)]
    out: dict[str, Any] = {
        "game": "fire_and_axe",
        "viewer": me,
        "players": n,
        "pack": pack_info(board),
        "options": {
            "settle_region_block": "any" if state.settle_any else "all",
            "rune_timing": "any_time" if state.any_time else "own_turn",
            "no_conflict": state.no_conflict,
        },
        "version": state.version,
        "step": Step(state.step).name.lower(),
        "first_player": state.first_player,
        "turn": state.turn,
        "turns": state.turns,
        "awaiting": awaiting(state),
        "committed": [],  # nothing is chosen in secret at the same time (contract.VIEW_KEYS)
        "simultaneous": False,
        "window": list(state.window),
        "age": state.age,
        "capacity": state.capacity(),
        "dial": {
            "blue": ZONE_NAMES[state.dial],
            "red": ZONE_NAMES[(state.dial + 2) % 4],
            "fwd": {ZONE_NAMES[z]: fwd[z] for z in range(4)},
        },
        "demand": GOOD_NAMES[state.demand],
        "supply": {GOOD_NAMES[g]: state.supply[g] for g in range(3)},
        "days": {
            "preparation": state.prep,
            "sailing": state.sail,
            "left": DAYS_PER_TURN - state.prep - state.sail,
        },
        "losses": {
            "skulls": list(board.skulls),
            "covered": [s for s in board.skulls if state.skulls_covered >> s & 1],
            "chart": {ITEM_NAMES[i]: state.chart[i] for i in range(4)},
            "pending": state.pending_losses,
        },
        "tasks_done": [loc[p] for p in state.tasks_done],
        "attack": None
        if state.attack_port == NONE
        else {
            "port": loc[state.attack_port],
            "rolls": state.raid_rolls,
            "bonus": state.attack_bonus,
        },
        "attack_bonus": state.attack_bonus,
        "calm": state.calm,
        "ports": ports,
        "sagas": {
            "spaces": [saga_info(board, c) if c != NONE else None for c in state.saga_spaces],
            "deck": len(state.saga_deck),
            "deck_ages": deck_ages,
            "removed": len(state.saga_removed),
            "discarded": [saga_info(board, c) for c in state.saga_discard],
        },
        "runes": {
            "deck": len(state.rune_deck),
            "discard": [rune_info(board, r) for r in state.rune_discard],
        },
        "final_markers": {
            "revealed": state.markers_holder != NONE,
            "holder": state.markers_holder if state.markers_holder != NONE else None,
            "placed": state.markers_placed,
        },
        "seats": seats,
        "private": None,
        "legal_actions": [],
        "result": None,
        "end_reason": END_REASON_NAMES[state.end_reason] or None,
    }
    r = result(state)
    if r is not None:
        out["result"] = {"vp": list(r.scores), "winners": list(r.winners), "ranks": list(r.ranks)}
    if me != SPECTATOR:
        out["private"] = {"hand": [rune_info(board, c) for c in state.seats[me].hand]}
        names = board.names
        rune_names = tuple(x.name for x in board.runes)
        out["legal_actions"] = [
            {
                "index": i,
                "code": a.code(),
                "kind": a[0],
                "args": [a[1], a[2], a[3]],
                "label": describe(a, names, rune_names),
            }
            for i, a in enumerate(legal_actions(state, me))
        ]
    if include_state:
        from engine.fire_and_axe.snapshot import redacted_snapshot

        out["engine_state"] = redacted_snapshot(state, me)
    return out
