"""Public fields of the view checked against the state: the goods supply of every type, an
empty Saga space shown empty, and no end reason while the game goes on.

A client draws these fields as they come: a missing goods type or a Saga card on an empty
space is a wrong table in front of the player."""

from __future__ import annotations

from engine.fire_and_axe.ids import GOOD_NAMES
from engine.fire_and_axe.rules import RULES
from tests.fire_and_axe.fae_support import scenario, seats


def test_the_supply_of_every_goods_type_is_shown() -> None:
    s = scenario(seats=seats({"location": "Kiev", "crew": 1, "goods": {"fur": 2, "tusk": 1}}))
    for viewer in (-1, 0, 1):
        shown = RULES.view(s, viewer)["supply"]
        assert shown == {GOOD_NAMES[g]: s.supply[g] for g in range(3)}
        assert set(shown) == {"tusk", "fish", "fur"}


def test_an_empty_saga_space_is_shown_empty() -> None:
    s = scenario(sagas={"spaces": ["i-lindisfarne", None, None]})
    spaces = RULES.view(s)["sagas"]["spaces"]
    assert spaces[1] is None and spaces[2] is None
    assert spaces[0]["id"] == "i-lindisfarne"


def test_no_end_reason_while_the_game_goes_on() -> None:
    s = scenario()
    for viewer in (-1, 0):
        view = RULES.view(s, viewer)
        assert view["end_reason"] is None and view["result"] is None
