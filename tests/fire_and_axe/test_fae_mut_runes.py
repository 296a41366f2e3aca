"""Rune cards at the public boundary (runes, runes_deck, rune_effects): what every effect
announces, whom the attacks may aim at, Berserkers that add up, a hand whose first card is
not playable now, the card limits ``wintering``/``water`` on a pack that uses them, and the
reshuffle of the discards (F5.5)."""

from __future__ import annotations

from importlib import resources

from engine.fire_and_axe import data_pack, flow
from engine.fire_and_axe.ids import FUR, HOMELAND, TUSK
from engine.fire_and_axe.state import GameState
from tests.fire_and_axe.fae_support import (
    K,
    act,
    legal,
    loc,
    of_type,
    record,
    rig,
    rune,
    scenario,
    seats,
)


def plays(state: GameState, ident: str) -> set[int]:
    """The choices of every legal play of that card."""
    r = rune(state, ident)
    return {a.c for a in legal(state) if a.kind == K.PLAY_RUNE and a.a == r}


def discards(state: GameState, ident: str) -> bool:
    r = rune(state, ident)
    return any(a.kind == K.DISCARD_RUNE and a.a == r for a in legal(state))


def effects(events: list[tuple[int, dict[str, object]]]) -> list[dict[str, object]]:
    return of_type(events, "rune_effect")


def _demo_text() -> str:
    return resources.files("engine.fire_and_axe").joinpath("demo_pack.toml").read_text("utf-8")


# -- what each effect announces ------------------------------------------------------------


def test_days_back_announces_both_markers() -> None:
    s = scenario(
        days={"preparation": 1, "sailing": 5},
        seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["long-day"]}),
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "long-day"), 0, 0)
    assert effects(events) == [
        {"type": "rune_effect", "seat": 0, "effect": "days_back", "preparation": 1, "sailing": 3}
    ]


def test_recover_crew_announces_how_many_came_aboard() -> None:
    s = scenario(
        seats=seats(
            {"location": "Paris", "crew": 1, "goods": {"fish": 3}, "hand": ["fresh-oarsmen"]}
        )
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "fresh-oarsmen"), 0, 0)
    assert effects(events) == [
        {"type": "rune_effect", "seat": 0, "effect": "recover_crew", "crew": 1}
    ]


def test_gain_goods_announces_the_type_and_the_number() -> None:
    s = scenario(seats=seats({"location": "Paris", "crew": 1, "hand": ["hidden-cargo"]}))
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "hidden-cargo"), 0, TUSK)
    assert effects(events) == [
        {"type": "rune_effect", "seat": 0, "effect": "gain_goods", "good": "tusk", "goods": 1}
    ]


def test_opponent_loses_goods_announces_the_target_the_type_and_the_number() -> None:
    s = scenario(
        seats=seats(
            {"location": "Paris", "crew": 1, "hand": ["plunder"]},
            {"location": "Kiev", "crew": 1, "goods": {"fur": 2}},
        )
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "plunder"), 0, 1 * 4 + FUR)
    assert effects(events) == [
        {
            "type": "rune_effect",
            "seat": 0,
            "effect": "opponent_loses_goods",
            "target": 1,
            "good": "fur",
            "goods": 1,
        }
    ]
    assert s.seats[1].cargo == [0, 0, 1]


def test_calm_weather_is_announced() -> None:
    s = scenario(seats=seats({"location": "w-north-sea", "crew": 1, "hand": ["calm-seas"]}))
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "calm-seas"), 0, 0)
    assert effects(events) == [{"type": "rune_effect", "seat": 0, "effect": "calm_weather"}]
    assert s.calm


# -- attacks and bonuses -------------------------------------------------------------------


def test_ambush_aims_only_at_other_ships_on_the_map() -> None:
    """opponent_loses_crew: not at the player's own ship, not at a ship in the Wintering Zone
    (off the map), only at one with a crewmember to spare (F9.2)."""
    s = scenario(
        players=4,
        seats=[
            {"location": "w-north-sea", "crew": 3, "hand": ["ambush"]},
            {"crew": 3},  # Wintering Zone
            {"location": "Kiev", "crew": 2},
            {"location": "Rome", "crew": 1},
        ],
    )
    assert plays(s, "ambush") == {2}


def test_two_berserkers_add_up_for_one_attack() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Bayeux", "crew": 2, "hand": ["berserkers", "berserkers"]}),
    )
    events = record(s)
    act(s, K.PLAY_RUNE, rune(s, "berserkers"), 0, 0)
    act(s, K.PLAY_RUNE, rune(s, "berserkers"), 0, 0)
    assert [e["bonus"] for e in effects(events)] == [1, 2]
    rig(s, 2)
    act(s, K.RAID)  # 2 + 2 > 3
    (roll,) = of_type(events, "raid_roll")
    assert (roll["bonus"], roll["target"], roll["success"]) == (2, 3, True)
    assert s.town[loc(s, "bayeux")] == 0


# -- which cards of a hand are offered -------------------------------------------------------


def test_a_card_for_its_owners_turn_does_not_hide_the_next_card_in_a_window() -> None:
    s = scenario(
        options={"rune_timing": "any_time"},
        seats=[
            {"location": "w-north-sea", "crew": 2},
            {"location": "e-rivers", "crew": 1, "hand": ["long-day", "fresh-oarsmen"]},
            {},
        ],
    )
    act(s, K.SAIL, loc(s, "lindisfarne"))
    assert flow.awaiting(s) == [1]
    assert rune(s, "long-day") < rune(s, "fresh-oarsmen")
    assert plays(s, "long-day") == set() and discards(s, "long-day")
    assert plays(s, "fresh-oarsmen") == {0} and discards(s, "fresh-oarsmen")


def test_a_card_for_another_place_does_not_hide_the_next_card() -> None:
    s = scenario(
        seats=seats({"location": "w-north-sea", "crew": 2, "hand": ["berserkers", "skalds-tale"]})
    )
    assert rune(s, "berserkers") < rune(s, "skalds-tale")
    assert plays(s, "berserkers") == set() and discards(s, "berserkers")  # a port card
    assert plays(s, "skalds-tale") == {0} and discards(s, "skalds-tale")


def _pack_with_a_homeland_last() -> str:
    """The demo pack with Sweden listed after every other location."""
    demo = _demo_text()
    block = '[[location]]\nid = "sweden"\nname = "Sweden"\nkind = "homeland"\nzone = "east"\n'
    block += 'rulebook = ["name"]\n\n'
    assert block in demo
    pack = data_pack.register(data_pack.parse(demo.replace(block, "") + "\n" + block))
    return pack.digest


def test_runes_in_the_wintering_zone_whatever_the_order_of_the_locations() -> None:
    """F5.5 / F8.1 forbid Runes in a Homeland only: a ship in the Wintering Zone may play
    them, also on a pack whose last location is a Homeland."""
    digest = _pack_with_a_homeland_last()
    s = scenario(data_pack=digest, seats=seats({"crew": 1, "hand": ["skalds-tale"]}))
    assert s.board.kind[-1] == HOMELAND and s.seats[0].loc == -1
    assert plays(s, "skalds-tale") == {0} and discards(s, "skalds-tale")
    act(s, K.PLAY_RUNE, rune(s, "skalds-tale"), 0, 0)
    assert s.seats[0].vp == 2
    s = scenario(
        data_pack=digest, seats=seats({"location": "sweden", "crew": 1, "hand": ["storm"]})
    )
    assert not discards(s, "storm") and plays(s, "storm") == set()


def test_a_card_for_water_spaces_is_played_at_sea_only() -> None:
    demo = _demo_text()
    calm = 'id = "calm-seas"\nname = "Calm Seas (demo)"\ncount = 1\nconflict = false\n'
    calm += 'when = "own_turn"\nwhere = "map"\n'
    assert calm in demo
    pack = data_pack.register(data_pack.parse(demo.replace(calm, calm.replace('"map"', '"water"'))))
    hand = {"crew": 1, "hand": ["calm-seas"]}
    s = scenario(data_pack=pack.digest, seats=seats({"location": "w-north-sea", **hand}))
    assert plays(s, "calm-seas") == {0}
    s = scenario(data_pack=pack.digest, seats=seats({"location": "Paris", **hand}))
    assert plays(s, "calm-seas") == set() and discards(s, "calm-seas")
    s = scenario(data_pack=pack.digest, seats=seats(hand))
    assert plays(s, "calm-seas") == set() and discards(s, "calm-seas")


# -- the deck --------------------------------------------------------------------------------


def test_the_discards_are_shuffled_into_a_new_deck() -> None:
    """F5.5: with the deck empty, the discard pile is shuffled; the top card after that is
    not always the last card discarded."""
    pile = ["change-of-demand", "fair-winds", "long-day", "storm", "ambush", "plunder"]
    drawn = set()
    for seed in range(12):
        s = scenario(
            seed=seed,
            rune_discard=pile,
            seats=seats({"location": "Denmark", "crew": 1}),
        )
        s.rune_deck = []
        events = record(s)
        act(s, K.DRAW_RUNE)
        assert len(of_type(events, "runes_reshuffled")) == 1
        assert sorted(s.rune_deck + s.seats[0].hand) == sorted(rune(s, r) for r in pile)
        drawn.add(s.seats[0].hand[0])
    assert len(drawn) > 1
