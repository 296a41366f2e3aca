"""The board of board.md as the rules use it: each province's villages (what an empty
province holds) and who is adjacent to whom (what may answer a Call to Battle)."""

from __future__ import annotations

import pytest

from engine.blood_rage.ids import AREA_NAMES, Area

# board.md "Provinces": ring order, clockwise, with their villages.
RING = [
    ("Myrkulor", 3),
    ("Elvagar", 4),
    ("Angerboda", 5),
    ("Muspelheim", 5),
    ("Horgr", 4),
    ("Utgard", 3),
    ("Andlang", 3),
    ("Gimle", 5),
]


@pytest.mark.parametrize(("ring", "name", "villages"), [(i, n, v) for i, (n, v) in enumerate(RING)])
def test_each_province_holds_its_villages_and_touches_its_ring_neighbours(h, ring, name, villages):
    """An empty province has all its villages free; it is adjacent to Yggdrasil and its two
    ring neighbours (board.md "Adjacency"), so exactly their warriors may answer a Call to
    Battle into it."""
    state = h.scenario(3, [{}])
    province = getattr(Area, name.upper())
    assert state.free_villages(province) == villages
    neighbours = {"Yggdrasil", RING[(ring - 1) % 8][0], RING[(ring + 1) % 8][0]}
    # Seat 0's leader pillages the province; seat 1 has a warrior in every other one.
    others = [n for n, _ in RING if n != name] + ["Yggdrasil"]
    state = h.scenario(
        3,
        [
            {"figures": {name: ["leader"]}},
            {"stats": {"horns": 6}, "figures": {n: ["warrior"] for n in others}},
        ],
    )
    h.act(state, 0, h.K.PILLAGE, province)
    assert h.awaiting(state) == [1], "the pillager's left is asked first"
    answered_from = {AREA_NAMES[a.a] for a in h.legal(state, 1) if a.kind == h.K.CALL_TO_BATTLE}
    assert answered_from == neighbours
