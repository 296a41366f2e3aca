"""The view's fields as the wire reads them (``protocol/fire_and_axe/views.py``): every key of
a seat's view, of a seat, a port, a Saga, a Rune and the static map, with their values in a
position written for it. The wire reads leniently (a missing key reads as nothing), so these
keys are pinned here."""

from __future__ import annotations

from engine.core.contract import SPECTATOR
from engine.fire_and_axe.view import map_view, view
from tests.fire_and_axe.fae_support import scenario, seats

SAGA_KEYS = {"saga", "id", "name", "age", "homeland", "type", "ports", "bonus_vp"}
RUNE_KEYS = {"rune", "id", "name", "conflict", "when", "where", "text", "effects"}


def _position():  # type: ignore[no-untyped-def]
    return scenario(
        players=2,
        seats=seats(
            {
                "location": "Kiev",
                "crew": 2,
                "goods": {"fish": 1},
                "hand": ["change-of-demand"],
                "vp": 5,
                "towns": [{"port": "Rome", "treasure": 7}, {"port": "Bayeux", "treasure": 2}],
                "sagas": ["i-lyubech"],
            },
            {},
            players=2,
        ),
    )


def test_a_seats_view_has_every_documented_field() -> None:
    v = view(_position(), 0)
    assert set(v) == {
        "age", "attack", "attack_bonus", "awaiting", "calm", "capacity", "committed", "days",
        "demand", "dial", "end_reason", "final_markers", "first_player", "game",
        "legal_actions", "losses", "options", "pack", "players", "ports", "private", "result",
        "runes", "sagas", "seats", "simultaneous", "step", "supply", "tasks_done", "turn",
        "turns", "version", "viewer", "window",
    }  # fmt: skip
    red, blue = v["seats"]
    assert red == {
        "seat": 0,
        "colour": "Red",
        "location": "kiev",
        "crew": 2,
        "goods": {"tusk": 0, "fish": 1, "fur": 0},
        "crew_supply": 13,
        "settlements": 0,
        "vp": 5,
        "hand_count": 1,
        "towns": [
            {"port": "rome", "size": "large", "treasure": 7},
            {"port": "bayeux", "size": "small", "treasure": 2},
        ],
        "sagas": [
            {
                "saga": 8,
                "id": "i-lyubech",
                "name": "River Raiders (demo)",
                "age": 1,
                "homeland": "sweden",
                "type": "raid",
                "ports": ["lyubech"],
                "bonus_vp": 2,
            }
        ],
        "out": False,
        "may_use_runes": True,
    }
    assert (blue["location"], blue["colour"], blue["may_use_runes"]) == ("wintering", "Blue", True)
    ports = {p["port"]: p for p in v["ports"]}
    assert ports["paris"] == {"port": "paris", "goods": None, "town": "large", "settlement": None}
    assert ports["rome"]["town"] is None  # taken
    assert set(v["sagas"]["spaces"][0]) == SAGA_KEYS
    (card,) = v["private"]["hand"]
    assert card == {
        "rune": 0,
        "id": "change-of-demand",
        "name": "Change of Demand",
        "conflict": False,
        "when": "any",
        "where": "anywhere",
        "text": card["text"],
        "effects": [{"kind": "change_demand"}],
    }
    assert card["text"].startswith("Return the Goods in Demand")


def test_a_viewer_outside_the_seats_is_a_spectator() -> None:
    s = _position()
    for viewer in (2, -5, SPECTATOR):
        v = view(s, viewer)
        assert (v["viewer"], v["private"], v["legal_actions"]) == (SPECTATOR, None, [])
    assert view(s, 1)["viewer"] == 1


def test_the_static_map_has_every_documented_field() -> None:
    m = map_view(_position().board)
    assert set(m) == {"pack", "locations", "wind_dial", "skulls", "runes"}
    assert m["pack"] == {
        "id": "demo-invented-v1",
        "name": "DEMO pack (invented board and cards, NOT the published game)",
        "digest": m["pack"]["digest"],
        "demo": True,
        "not_published": True,
    }
    by_id = {loc["id"]: loc for loc in m["locations"]}
    assert by_id["denmark"] == {
        "id": "denmark",
        "name": "Denmark",
        "kind": "homeland",
        "zone": "west",
        "value": 0,
        "stars": 0,
        "region": None,
        "adjacent": ["w-north-sea", "w-channel", "e-baltic-sea"],
    }
    # The first region of the pack (index 0) is a region like any other.
    assert by_id["lisbon"]["region"] == "al-andalus" and by_id["paris"]["region"] is None
    assert by_id["paris"]["stars"] == 3 and by_id["paris"]["kind"] == "port"
    assert m["wind_dial"] == {
        "north": [4, 3, 2],
        "east": [6, 4, 2],
        "south": [7, 6, 4],
        "west": [6, 5, 3],
    }
    assert m["skulls"] == [1, 3, 5]
    assert set(m["runes"][0]) == RUNE_KEYS and m["runes"][0]["id"] == "change-of-demand"
    assert len(m["runes"]) == 16
