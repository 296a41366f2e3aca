"""A seat's observation is exactly what its view shows: never anything it cannot see, within
the layout's bounds, and it agrees with the view field by field."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from engine.blood_rage.determinize import determinize
from envs.blood_rage.encoding import CARDS, ENCODING
from envs.encoding import Layout
from envs.games import available, spec
from tests.envs.games_support import positions


@pytest.mark.parametrize("game", available())
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (5, 4)])
def test_the_observation_of_the_true_state_is_that_of_the_seats_redacted_view(
    game: str, players: int, seed: int
) -> None:
    """The view a bot gets over the API carries the state with every card the seat cannot see
    blanked; encoding that gives the same tensor as the true state, so the encoder reads
    nothing hidden (and the remote seat sees what the local environments show)."""
    g = spec(game)
    checked = 0
    for state, _ in positions(g, players, seed, every=3):
        for seat in range(players):
            view = json.loads(json.dumps(g.rules.view(state, seat, include_state=True)))
            mine = g.encoding.encode(state, seat)
            redacted = g.encoding.encode(g.encoding.seat_state(view), seat)
            assert np.array_equal(mine, redacted), (seat, state.version)
            checked += 1
    assert checked > 40


@pytest.mark.parametrize(("players", "seed"), [(2, 11), (3, 12), (4, 13), (5, 14)])
def test_resampling_what_a_seat_cannot_see_changes_nothing_it_observes(
    players: int, seed: int
) -> None:
    """Two states that differ only in other hands, packs, quests, secret choices and the
    decks give a seat the same observation."""
    g = spec("blood_rage")
    rng = random.Random(seed)
    differed = 0
    for state, _ in positions(g, players, seed, every=2):
        for seat in range(players):
            other = determinize(state, seat, rng)
            differed += other.state_hash() != state.state_hash()
            assert np.array_equal(ENCODING.encode(state, seat), ENCODING.encode(other, seat))
    assert differed > 50, "the resampled states did differ in what was hidden"


def test_another_seats_hand_does_change_its_own_observation() -> None:
    """The check above could pass with a blind encoder: the seat that holds the cards sees
    the difference."""
    g = spec("blood_rage")
    for state, _ in positions(g, 4, 5, every=40):
        if not state.clans[1].hand:
            continue
        other = determinize(state, 0, random.Random(1))
        if other.clans[1].hand != state.clans[1].hand:
            assert not np.array_equal(ENCODING.encode(state, 1), ENCODING.encode(other, 1))
            return
    pytest.fail("no position where seat 1's hand was resampled")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_observation_is_within_the_layouts_bounds(players: int) -> None:
    layout = ENCODING.layout(players)
    for seed in range(3):
        for state, _ in positions(spec(), players, 100 + seed):
            for seat in range(players):
                obs = ENCODING.encode(state, seat)
                assert obs.dtype == np.float32 and obs.shape == (layout.size,)
                out = np.flatnonzero((obs < layout.low) | (obs > layout.high))
                assert out.size == 0, [_field_at(layout, i) for i in out[:5]]


def _field_at(layout: Layout, index: int) -> str:
    for f in layout.fields:
        if layout.offsets[f.name] <= index < layout.offsets[f.name] + f.size:
            return f.name
    return "?"


def _cards(obs: np.ndarray, layout: Layout, name: str) -> list[int]:
    return np.flatnonzero(obs[layout.slice(name)]).tolist()


def test_the_observation_agrees_with_the_view_field_by_field() -> None:
    g = spec("blood_rage")
    players = 4
    layout = ENCODING.layout(players)
    looked = 0
    for state, _ in positions(g, players, 21, every=5):
        for seat in range(players):
            view = g.rules.view(state, seat)
            obs = ENCODING.encode(state, seat)
            private = view["private"]
            for name in ("hand", "pack", "quests", "pending_picks"):
                assert _cards(obs, layout, name) == sorted(c["instance"] for c in private[name])
            assert _cards(obs, layout, "discard") == sorted(c["instance"] for c in view["discard"])
            rel = [(seat + k) % players for k in range(players)]
            clans = view["clans"]
            for name in ("glory", "rage", "hand_count", "quest_count", "pack_count"):
                seats = layout.values(obs, name)[:, 0].tolist()
                assert seats == [clans[s][name] for s in rel], name
            figures = layout.values(obs, "figures").sum(axis=1)
            assert figures.tolist() == [len(clans[s]["figures"]) for s in rel]
            upgrades = layout.values(obs, "upgrades").reshape(players, 8, -1)
            for k, s in enumerate(rel):
                shown = [u["instance"] if u else -1 for u in clans[s]["upgrades"]]
                assert [int(row.argmax()) if row.any() else -1 for row in upgrades[k]] == shown
            awaiting = np.flatnonzero(obs[layout.slice("awaiting")]).tolist()
            assert awaiting == sorted((s - seat) % players for s in view["awaiting"])
            committed = np.flatnonzero(obs[layout.slice("committed")]).tolist()
            assert committed == sorted((s - seat) % players for s in view["committed"])
            assert obs[layout["viewer"] + seat] == 1
            assert obs[layout["age"] + view["age"] - 1] == 1
            battle = view["battle"]
            assert obs[layout["battle"]] == (battle is not None)
            if battle is not None:
                mine = _cards(obs, layout, "battle_card")
                pending = private["battle_card"]
                assert mine == ([pending["instance"]] if pending else [])
            looked += 1
    assert looked > 100


def test_the_layout_covers_the_observation_once() -> None:
    layout = ENCODING.layout(4)
    plain = sum(f.size for f in layout.fields if not f.per_seat)
    assert plain + layout.stride * layout.seats == layout.size
    assert layout.low.shape == layout.high.shape == (layout.size,)
    assert layout.field("discard").size == CARDS
    assert "| `hand` | 126 |" in layout.markdown()
    assert "| `glory` | 1 × 4 |" in layout.markdown()
