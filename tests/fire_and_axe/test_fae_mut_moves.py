"""Sailing, the weather, Tasks and turns at the boundary (sailing, weather, tasks, turns,
wintering, scoring): the cases the mutation run found untested."""

from __future__ import annotations

from tests.fire_and_axe.fae_support import K, legal, loc, scenario, seats


def test_an_occupied_port_is_skipped_but_the_ports_after_it_are_offered() -> None:
    """F2.6: a port holds one ship; the others next to the water space stay open."""
    s = scenario(
        seats=seats({"location": "w-irish-sea", "crew": 1}, {"location": "Iona", "crew": 1})
    )
    near = s.board.adjacent[loc(s, "w-irish-sea")]
    assert near.index(loc(s, "iona")) < near.index(loc(s, "cork"))
    sails = {a.a for a in legal(s) if a.kind == K.SAIL}
    assert sails == set(near) - {loc(s, "iona")}
