"""Public fields of the view checked against the state: the goods supply of every type, an
empty Saga space shown empty, no end reason while the game goes on, and the ports of a board
built from a pack.

A client draws these fields as they come: a missing goods type or a Saga card on an empty
space is a wrong table in front of the player."""

from __future__ import annotations

from engine.fire_and_axe.board import build
from engine.fire_and_axe.data_pack import parse, register
from engine.fire_and_axe.ids import GOOD_NAMES, PORT
from engine.fire_and_axe.rules import RULES
from tests.fire_and_axe.fae_support import scenario, seats
from tests.fire_and_axe.test_fae_hosting import OTHER_TEXT


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


def test_a_boards_ports_are_its_port_locations() -> None:
    """A board built from a pack (here a renamed copy of the demo pack, built afresh) lists
    as ports exactly the pack's port locations; a game on it shows those and no other."""
    pack = parse(OTHER_TEXT, "other.toml")
    board = build(pack)
    ports = [loc.id for loc in pack.locations if loc.kind == PORT]
    assert [board.ids[i] for i in board.ports] == ports and len(ports) == 37
    assert {board.ids[i] for i in board.small_ports} == {
        loc.id for loc in pack.locations if loc.stars == 1
    }
    assert {board.ids[i] for i in board.large_ports} == {"paris", "rome", "constantinople"}
    register(pack)
    state = RULES.new_game(RULES.options(3, 5, {"data_pack_toml": OTHER_TEXT}))
    assert [p["port"] for p in RULES.view(state)["ports"]] == ports
