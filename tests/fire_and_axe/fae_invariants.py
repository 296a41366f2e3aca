"""What holds in every Fire & Axe position, whatever happened before (checked after every
decision of the random-game tests)."""

from __future__ import annotations

from collections import Counter

from engine.fire_and_axe import flow
from engine.fire_and_axe.ids import CREW, CREW_PER_PLAYER, GOODS_PER_TYPE, HAND_LIMIT, PORT
from engine.fire_and_axe.state import NONE, GameState, Step


def check_invariants(s: GameState) -> None:
    board = s.board
    n = s.players
    # Goods: every token is in the supply, a port, a ship, the chart or the demand space.
    for g in range(3):
        held = s.supply[g] + s.chart[g] + (s.demand == g)
        held += sum(1 for x in s.goods if x == g) + sum(p.cargo[g] for p in s.seats)
        assert held == GOODS_PER_TYPE, f"goods {g}: {held}"
    for i, p in enumerate(s.seats):
        crew = p.crew + p.crew_supply + p.settlements + (s.chart[CREW] if i == s.turn else 0)
        assert crew == CREW_PER_PLAYER, f"seat {i}: {crew} crew"
        assert p.settlements == sum(1 for x in s.settler if x == i)
        assert min(p.crew, p.crew_supply, *p.cargo) >= 0
        assert p.aboard() <= s.capacity()
        assert len(p.hand) <= HAND_LIMIT
        if p.loc != -1:
            assert p.crew >= 1 or s.step == Step.GAME_OVER, f"seat {i} at sea without crew"
    ports = [p.loc for p in s.seats if p.loc != -1 and board.kind[p.loc] == PORT]
    assert len(ports) == len(set(ports)), "two ships in a port"
    assert 0 <= s.prep + s.sail <= 7
    for port in board.ports:
        assert not (s.town[port] and s.settler[port] != NONE)
        if s.goods[port] != NONE:
            assert all(s.goods[q] != s.goods[port] for q in board.region_others[port])
    # Cards: every Rune and every Saga is somewhere, once.
    runes = Counter(s.rune_deck + s.rune_discard + [r for p in s.seats for r in p.hand])
    full = Counter(r for r in board.rune_deck if not (s.no_conflict and board.runes[r].conflict))
    assert runes == full
    sagas = s.saga_deck + s.saga_removed + s.saga_discard + [c for c in s.saga_spaces if c >= 0]
    sagas += [c for p in s.seats for c in p.sagas]
    assert sorted(sagas) == list(range(len(board.sagas)))
    assert s.age == max(
        [1]
        + [board.sagas[c].age for c in sagas if c not in s.saga_deck and c not in s.saga_removed]
    )
    # Decisions: exactly one seat decides while the game goes on, and has a choice.
    waiting = flow.awaiting(s)
    if s.step == Step.GAME_OVER:
        assert waiting == []
        return
    assert len(waiting) == 1 and flow.legal_actions(s, waiting[0])
    for other in range(n):
        if other != waiting[0]:
            assert flow.legal_actions(s, other) == []
