"""Final scoring and the result (F13).

VP earned during play stay (F13.1); the game's end adds the Bloodiest Axe (F13.2), every
Settlement at its port value times the settled ports of its region (F13.3) and the Saga sets
per Homeland (F13.4). Each addition is its own ``vp`` event. The winner has the most VP; there
is no tie-breaker (F13.5: tied players are «brothers in battle»), so tied seats share a rank.
"""

from __future__ import annotations

from engine.core.contract import Result, ranks_of
from engine.fire_and_axe.ids import HOMELANDS, INDEPENDENT, SAGA_FIRST_VP, SAGA_SECOND_VP, TOWN_VP
from engine.fire_and_axe.state import NONE, GameState, Step


def bloodiest_axe(towns: list[int]) -> list[int]:
    """F13.2: the player or players with the most town figures gain 3 VP per figure; nobody
    gains anything when nobody took a town."""
    most = max(towns)
    return [TOWN_VP * t if t == most and most > 0 else 0 for t in towns]


def saga_sets(counts: list[int]) -> list[int]:
    """F13.4 for one Homeland: the most Sagas gain 10 VP each, the next-fewer 5 VP each; a tie
    for the most gains 10 each and leaves no second place; a tie for second gains 5 each."""
    most = max(counts)
    if most == 0:
        return [0] * len(counts)
    firsts = [c == most for c in counts]
    out = [SAGA_FIRST_VP * c if first else 0 for c, first in zip(counts, firsts, strict=True)]
    if sum(firsts) == 1:
        rest = [c for c, first in zip(counts, firsts, strict=True) if not first]
        second = max(rest, default=0)
        if second > 0:
            out = [
                SAGA_SECOND_VP * c if c == second and not first else v
                for c, first, v in zip(counts, firsts, out, strict=True)
            ]
    return out


def settlement_values(state: GameState) -> list[tuple[int, int, int]]:
    """F13.3: ``(seat, port, VP)`` for every Settlement: the printed port value (A12), times
    the number of settled ports of its region (whoever owns them); independent and large
    ports count their value once."""
    board = state.board
    settler = state.settler
    out = []
    for port in board.ports:
        owner = settler[port]
        if owner == NONE:
            continue
        mult = 1
        if board.region[port] != INDEPENDENT:
            mult = sum(1 for q in board.region_ports[board.region[port]] if settler[q] != NONE)
        out.append((owner, port, board.value[port] * mult))
    return out


def final_scoring(state: GameState) -> None:
    """Add the end-of-game categories (F13.2-F13.4), one ``vp`` event per source."""
    seats = state.seats
    for seat, vp in enumerate(bloodiest_axe([len(p.towns) for p in seats])):
        state.gain_vp(seat, vp, "bloodiest_axe", towns=len(seats[seat].towns))
    for seat, port, vp in settlement_values(state):
        state.gain_vp(seat, vp, "settlement", port=port)
    sagas = state.board.sagas
    for h, name in enumerate(HOMELANDS):
        counts = [sum(1 for s in p.sagas if sagas[s].homeland == h) for p in seats]
        for seat, vp in enumerate(saga_sets(counts)):
            state.gain_vp(seat, vp, "saga_set", homeland=name, sagas=counts[seat])


def result(state: GameState) -> Result | None:
    """The result (scores are VP), or None while the game goes on."""
    if state.step != Step.GAME_OVER:
        return None
    vp = tuple(p.vp for p in state.seats)
    ranks = ranks_of(vp)
    return Result(vp, tuple(s for s, r in enumerate(ranks) if r == 1), ranks)
