"""Loading in the Wintering Zone at its edges (F5.1-F5.3): the last Day, the last free slots,
the last crewmember in the supply, the last goods token, and the Days a load reports."""

from __future__ import annotations

from engine.fire_and_axe.ids import CREW_PER_PLAYER, DAYS_PER_TURN, GOODS_PER_TYPE
from tests.fire_and_axe.fae_support import K, act, kinds, legal, of_type, record, scenario, seats

FOURTEEN = ["brattahlid", "reykjanes", "eyjafjordur", "halogaland", "faroe", "shetland"]
FOURTEEN += ["orkney", "iona", "lewis", "man", "cork", "lisbon", "algeciras", "balearics"]


def _loads(s) -> list[int]:  # type: ignore[no-untyped-def]
    return [a[1] for a in legal(s) if a[0] == K.LOAD_GOOD]


def test_no_day_left_means_nothing_to_load() -> None:
    s = scenario(days={"sailing": DAYS_PER_TURN}, seats=seats({"crew": 1}))
    assert kinds(s) == {K.LEAVE_WINTERING}
    s = scenario(days={"sailing": DAYS_PER_TURN - 1}, seats=seats({"crew": 1}))
    assert {K.LOAD_CREW, K.LOAD_GOOD} <= kinds(s)


def test_a_ship_without_crew_loads_goods_only_with_two_slots_and_two_days_left() -> None:
    # Age I: 5 slots; 3 furs aboard leave exactly 2 (a good and then a crewmember).
    s = scenario(days={"sailing": DAYS_PER_TURN - 2}, seats=seats({"goods": {"fur": 3}}))
    assert s.capacity() == 5
    assert _loads(s) == [0, 1, 2]
    s = scenario(days={"sailing": DAYS_PER_TURN - 2}, seats=seats({"goods": {"fur": 4}}))
    assert _loads(s) == [] and K.LOAD_CREW in kinds(s)


def test_the_last_crewmember_in_the_supply_still_lets_goods_come_first() -> None:
    s = scenario(
        settlements={p: 0 for p in FOURTEEN},
        seats=seats({}),
    )
    assert s.seats[0].crew_supply == CREW_PER_PLAYER - len(FOURTEEN) == 1
    assert _loads(s) == [0, 1, 2] and K.LOAD_CREW in kinds(s)


def test_the_last_goods_token_of_the_supply_can_be_loaded() -> None:
    s = scenario(
        age=3,
        seats=seats({"crew": 1}, {"goods": {"tusk": 6}}, {"goods": {"tusk": 4}}),
    )
    assert s.supply[0] == GOODS_PER_TYPE - 10 == 1
    assert 0 in _loads(s)
    act(s, K.LOAD_GOOD, 0)
    assert s.supply[0] == 0 and 0 not in _loads(s)


def test_a_load_reports_the_days_used_including_sailing() -> None:
    s = scenario(days={"preparation": 1, "sailing": 2}, seats=seats({"crew": 1}))
    events = record(s)
    act(s, K.LOAD_CREW)
    (loaded,) = of_type(events, "loaded")
    assert (loaded["preparation"], loaded["days"]) == (2, 4)
