"""The view's sections read key by key, as a client reads them: the options, the wind dial,
the Losses chart, a raid under way, the Saga and Rune decks, the final-round markers, the
result and the legal actions. The wire reads leniently (a key missing reads as nothing), so a
renamed key or a wrong value would reach a player as an empty table; each is pinned here in a
position written for it."""

from __future__ import annotations

from engine.fire_and_axe.flow import legal_actions
from engine.fire_and_axe.ids import FISH, ITEM_NAMES
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.view import map_view, view
from tests.fire_and_axe.fae_support import K, act, loc, rig, scenario, seats


def test_the_options_read_back_as_chosen() -> None:
    plain = view(scenario(), 0)
    assert plain["game"] == "fire_and_axe"
    assert plain["options"] == {
        "settle_region_block": "all",
        "rune_timing": "own_turn",
        "no_conflict": False,
    }
    chosen = scenario(
        options={"settle_region_block": "any", "rune_timing": "any_time", "no_conflict": True}
    )
    assert view(chosen, 1)["options"] == {
        "settle_region_block": "any",
        "rune_timing": "any_time",
        "no_conflict": True,
    }
    # Nothing is chosen in secret at the same time in Fire & Axe.
    assert (plain["simultaneous"], plain["committed"]) == (False, [])


def test_the_dial_shows_each_zones_sailing_value_from_the_wind_dial() -> None:
    s = scenario(dial="north")
    dial = view(s, 0)["dial"]
    wind = map_view(s.board)["wind_dial"]
    assert (dial["blue"], dial["red"]) == ("north", "south")
    assert set(dial["fwd"]) == set(wind)
    assert all(dial["fwd"][zone] in values for zone, values in wind.items())
    assert dial["fwd"]["north"] == max(wind["north"])  # under the blue hole: its best


def test_the_losses_chart_shows_covered_skulls_what_was_lost_and_what_is_pending() -> None:
    s = scenario(skulls_covered=[3])
    losses = view(s, 0)["losses"]
    assert losses["skulls"] == map_view(s.board)["skulls"]
    assert losses["covered"] == [3]
    assert losses["chart"] == {name: 0 for name in ITEM_NAMES}
    assert losses["pending"] == 0
    s = scenario(
        days={"sailing": 6},
        seats=seats({"location": "Norway", "crew": 4, "goods": {"fish": 1}}),
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))  # excess 5: skulls 1, 3 and 5
    losses = view(s, 0)["losses"]
    assert losses["covered"] == losses["skulls"] and losses["pending"] == 3
    act(s, K.LOSE, FISH)  # the two others leave no choice: crew
    losses = view(s, 0)["losses"]
    assert losses["pending"] == 0
    assert losses["chart"] == {"tusk": 0, "fish": 1, "fur": 0, "crew": 2}


def test_a_raid_under_way_shows_its_port_rolls_and_bonus() -> None:
    s = scenario(seats=seats({"location": "Paris", "crew": 3}))
    assert view(s, 0)["attack"] is None
    rig(s, 1, 6)
    act(s, K.RAID)  # a 1 against a large town: roll again or stop
    v = view(s, 0)
    assert v["step"] == "raid_again"
    assert v["attack"] == {"port": "paris", "rolls": 1, "bonus": v["attack_bonus"]}
    act(s, K.RAID_AGAIN)
    assert view(s, 0)["attack"] is None


def test_ports_show_their_goods_towns_and_settlements() -> None:
    s = scenario(goods={"Horn": "fish"}, settlements={"Kiev": 2})
    ports = {p["port"]: p for p in view(s, 0)["ports"]}
    assert ports["horn"] == {"port": "horn", "goods": "fish", "town": "small", "settlement": None}
    assert ports["kiev"] == {"port": "kiev", "goods": None, "town": None, "settlement": 2}


def test_the_decks_show_their_sizes_ages_and_discards() -> None:
    s = scenario(
        sagas={"deck": ["iii-rus", "ii-paris", "ii-iceland"], "discard": ["i-bayeux"]},
        rune_discard=["change-of-demand"],
        seats=seats({"hand": ["fair-winds", "storm"]}),
    )
    v = view(s, 0)
    assert v["sagas"]["deck"] == 3
    assert v["sagas"]["deck_ages"] == [0, 2, 1]  # Age I, II, III
    assert [c["id"] for c in v["sagas"]["discarded"]] == ["i-bayeux"]
    assert [c["id"] for c in v["runes"]["discard"]] == ["change-of-demand"]
    # Every copy of the pack is in the deck but the 2 in hand and the 1 discarded.
    assert v["runes"]["deck"] == sum(r.count for r in s.board.runes) - 3
    full = view(scenario(sagas={"deck": ["i-lyubech", "iii-rus"]}), 0)["sagas"]
    assert full["deck_ages"] == [1, 0, 1]


def test_the_final_markers_show_once_revealed() -> None:
    hidden = view(scenario(), 0)["final_markers"]
    assert hidden == {"revealed": False, "holder": None, "placed": 0}
    s = scenario(sagas={"deck": []}, final_markers={"holder": 1, "placed": 2})
    assert view(s, 2)["final_markers"] == {"revealed": True, "holder": 1, "placed": 2}


def test_the_result_is_shown_at_the_end_with_scores_winners_and_ranks() -> None:
    s = scenario(
        sagas={"spaces": [None, "i-caithness", None], "deck": []},
        final_markers={"holder": 1, "placed": 0},
        seats=seats({"location": "Caithness", "crew": 3, "goods": {"fish": 1}}, {"vp": 4}),
    )
    assert view(s, 0)["result"] is None
    rig(s, 6)
    act(s, K.RAID)  # the last Saga fulfilled ends the game at once
    r = RULES.result(s)
    assert r is not None
    for viewer in (0, 1):
        shown = view(s, viewer)["result"]
        assert shown == {"vp": list(r.scores), "winners": list(r.winners), "ranks": list(r.ranks)}
        assert shown["vp"] == [p.vp for p in s.seats]
        best = max(shown["vp"])
        assert shown["winners"] == [i for i, vp in enumerate(shown["vp"]) if vp == best]
        assert [shown["ranks"][i] for i in shown["winners"]] == [1] * len(shown["winners"])


def test_each_legal_action_reads_back_as_the_engines_action() -> None:
    s = scenario(
        dial="north",
        days={"sailing": 3},
        seats=seats({"location": "Norway", "crew": 2, "hand": ["storm"]}),
    )
    act(s, K.SAIL, loc(s, "n-norwegian-sea"))
    shown = view(s, 0)["legal_actions"]
    engine = legal_actions(s, 0)
    assert [(a["kind"], *a["args"]) for a in shown] == [tuple(a) for a in engine]
    # The position offers actions whose three arguments all differ in turn.
    assert any(a[1] != a[2] != a[3] for a in engine) and any(a[0] != a[1] for a in engine)

