"""What a seat may see: changing only what a seat cannot see leaves its view identical, and
spectators see no secret (Rune hands, deck orders, treasures under standing towns, the Sagas
removed unseen, the dice generator)."""

from __future__ import annotations

import json
import random

import pytest

from engine.core.contract import SPECTATOR
from engine.core.rng import SplitMix64
from engine.fire_and_axe import flow
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import GameState
from engine.fire_and_axe.view import map_view, view
from tests.fire_and_axe.fae_support import rune, scenario, seats


def sample_states(players: int, seed: int, every: int = 150) -> list[GameState]:
    """States along a random game (both Rune timings)."""
    timing = "any_time" if seed % 2 else "own_turn"
    s = RULES.new_game(RULES.options(players, seed, {"rune_timing": timing}))
    rnd = random.Random(seed)
    out = [s.copy()]
    n = 0
    while RULES.result(s) is None and len(out) < 12:
        who = flow.awaiting(s)[0]
        moves = flow.legal_actions(s, who)
        flow.apply_unchecked(s, who, moves[rnd.randrange(len(moves))])
        n += 1
        if n % every == 0:
            out.append(s.copy())
    return out


def shuffle_secrets(s: GameState, viewer: int, rnd: random.Random) -> GameState:
    """A copy with everything ``viewer`` cannot see changed: other hands and the Rune deck
    dealt anew (same sizes), treasures of standing towns and the Saga deck reordered (within
    their size and Age), the removed Sagas swapped with the deck's, a new generator."""
    t = s.copy()
    others = [i for i in range(t.players) if i != viewer]
    pool = t.rune_deck + [r for i in others for r in t.seats[i].hand]
    rnd.shuffle(pool)
    for i in others:
        k = len(t.seats[i].hand)
        t.seats[i].hand, pool = pool[:k], pool[k:]
    t.rune_deck = pool
    for size in (1, 3):
        ports = [p for p in t.board.ports if t.town[p] == size]
        values = [t.treasure[p] for p in ports]
        rnd.shuffle(values)
        for p, v in zip(ports, values, strict=True):
            t.treasure[p] = v
    sagas = t.board.sagas
    for age in (1, 2, 3):
        deck_slots = [i for i, c in enumerate(t.saga_deck) if sagas[c].age == age]
        gone_slots = [i for i, c in enumerate(t.saga_removed) if sagas[c].age == age]
        cards = [t.saga_deck[i] for i in deck_slots] + [t.saga_removed[i] for i in gone_slots]
        rnd.shuffle(cards)
        for i in deck_slots:
            t.saga_deck[i] = cards.pop()
        for i in gone_slots:
            t.saga_removed[i] = cards.pop()
    t.rng = SplitMix64(rnd.getrandbits(64))
    return t


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_what_a_seat_cannot_see_does_not_change_its_view(players: int) -> None:
    rnd = random.Random(players)
    changed_something = 0
    for seed in (players, players + 10):
        for s in sample_states(players, seed):
            for viewer in [SPECTATOR, *range(players)]:
                t = shuffle_secrets(s, viewer, rnd)
                changed_something += t.state_hash() != s.state_hash()
                assert view(t, viewer) == view(s, viewer)
    assert changed_something > 0  # the shuffles did change hidden things


def test_what_a_seat_can_see_does_change_its_view() -> None:
    s = scenario(
        seats=seats({"location": "Paris", "crew": 1, "hand": ["storm"]}, {"towns": ["Bayeux"]})
    )
    t = s.copy()
    t.seats[0].hand = [rune(s, "ambush")]
    assert view(t, 0) != view(s, 0)
    assert view(t, 1) == view(s, 1) and view(t, SPECTATOR) == view(s, SPECTATOR)
    t = s.copy()
    t.treasure[s.board.index("bayeux")] += 1  # a raided town's treasure is public
    assert view(t, SPECTATOR) != view(s, SPECTATOR)


def test_spectators_see_no_secret() -> None:
    for s in sample_states(4, 3, every=200):
        v = view(s, SPECTATOR)
        assert v["private"] is None and v["legal_actions"] == []
        assert all("hand" not in seat for seat in v["seats"])
        text = json.dumps(v)
        assert "treasure" not in json.dumps(v["ports"])
        assert "rng" not in text and "saga_removed" not in text
        assert v["sagas"]["removed"] == len(s.saga_removed)
        assert v["runes"]["deck"] == len(s.rune_deck)
        standing = sum(1 for t in s.town if t)
        assert sum(1 for p in v["ports"] if p["town"]) == standing


def test_a_seat_sees_its_own_hand_and_legal_actions() -> None:
    s = scenario(
        seats=seats(
            {"location": "Paris", "crew": 1, "hand": ["storm", "ambush"]}, {"hand": ["salvage"]}
        )
    )
    mine = view(s, 0)
    assert [c["id"] for c in mine["private"]["hand"]] == ["storm", "ambush"]
    assert [a["code"] for a in mine["legal_actions"]] == [
        a.code() for a in flow.legal_actions(s, 0)
    ]
    assert mine["seats"][1]["hand_count"] == 1
    theirs = view(s, 1)
    assert [c["id"] for c in theirs["private"]["hand"]] == ["salvage"]
    assert theirs["legal_actions"] == []  # not its turn


def test_views_are_json_and_stable() -> None:
    for s in sample_states(3, 5, every=300):
        for viewer in (SPECTATOR, 0, 2):
            v = view(s, viewer)
            assert json.loads(json.dumps(v)) == v
            assert json.dumps(view(s.copy(), viewer), sort_keys=True) == json.dumps(
                v, sort_keys=True
            )


def test_the_redacted_state_blanks_the_secrets() -> None:
    s = sample_states(4, 2, every=250)[-1]
    v = view(s, 1, include_state=True)
    snap = v["engine_state"]
    assert snap["redacted"] and "hash" not in snap and snap["rng"] == 0
    assert snap["seats"][1]["hand"] == s.seats[1].hand
    for i in (0, 2, 3):
        assert snap["seats"][i]["hand"] == [-1] * len(s.seats[i].hand)
    assert set(snap["rune_deck"]) <= {-1} and set(snap["saga_deck"]) <= {-1}
    for p in s.board.ports:
        if s.town[p]:
            assert snap["treasure"][p] == -1


def test_the_map_view_names_the_pack_and_says_demo() -> None:
    m = map_view(RULES.new_game(RULES.options(2, 1, {})).board)
    assert m["pack"]["demo"] and m["pack"]["not_published"]
    by_id = {loc["id"]: loc for loc in m["locations"]}
    assert by_id["kiev"]["value"] == 4 and "e-rivers" in by_id["kiev"]["adjacent"]
    assert json.loads(json.dumps(m)) == m
