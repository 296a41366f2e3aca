"""§3 Set-up: destroyed provinces, decks, tokens, Ragnarök, stats, first player, determinism."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.blood_rage import new_game
from engine.blood_rage.cards import card_of
from engine.blood_rage.flow import apply, awaiting, legal_actions
from engine.blood_rage.ids import BOX, RESERVE, DraftMode, Phase, Step
from engine.blood_rage.setup import GameOptions, initial_state
from engine.blood_rage.view import view

OUTER_TOKEN_BAG = Counter({"rage": 3, "axes": 2, "horns": 2, "glory5": 1})
SEEDS = range(12)


@pytest.mark.parametrize(
    ("players", "destroyed", "deck_size"), [(2, 3, 20), (3, 2, 26), (4, 1, 34), (5, 0, 42)]
)
def test_destroyed_provinces_and_deck_sizes_by_player_count(players, destroyed, deck_size):
    """§3.4–§3.5: 2/3/4/5 players destroy 3/2/1/0 provinces; decks hold 20/26/34/42 cards."""
    for seed in SEEDS:
        state = initial_state(GameOptions(players, seed))
        assert sum(state.destroyed) == destroyed
        assert not state.destroyed[0], "Yggdrasil is never destroyed"
        assert [len(d) for d in state.decks] == [deck_size] * 3
        for age, deck in enumerate(state.decks, start=1):
            assert len(set(deck)) == len(deck)
            assert {card_of(c).age for c in deck} == {age}


@pytest.mark.parametrize(
    ("players", "present", "absent"),
    [
        (
            2,
            {"tyrs_bash"},
            {"sea_serpent", "yggdrasil", "tyrs_crush", "lokis_blessing", "widespread"},
        ),
        (3, {"sea_serpent", "yggdrasil"}, {"tyrs_crush", "lokis_blessing", "widespread"}),
        (4, {"sea_serpent", "tyrs_crush", "lokis_blessing"}, {"widespread"}),
        (5, {"sea_serpent", "tyrs_crush", "widespread"}, set()),
    ],
)
def test_deck_markings_follow_player_count(players, present, absent):
    """§3.5: 3+ cards need 3 players, 4+ cards need 4, 5-marked cards need 5 (Age 1 deck)."""
    keys = {card_of(c).key for c in initial_state(GameOptions(players, 3)).decks[0]}
    assert present <= keys
    assert not (absent & keys)


@pytest.mark.parametrize(("players", "copies"), [(2, 1), (3, 2), (4, 2), (5, 3)])
def test_marked_copies_are_counted_per_player_count(players, copies):
    """cards.md: Tyr's Smash (Age 1) is base 1, 3+ 1, 5 1."""
    deck = initial_state(GameOptions(players, 0)).decks[0]
    assert sum(1 for c in deck if card_of(c).key == "tyrs_smash") == copies


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_pillage_tokens(players):
    """§3.2/§3.4: Yggdrasil's all-stats token, the 8 outer tokens shuffled on the outer
    provinces; a province destroyed at set-up has no token."""
    layouts = set()
    for seed in SEEDS:
        state = initial_state(GameOptions(players, seed))
        provinces = view(state)["provinces"]
        assert provinces[0]["pillage_token"] == "all_stats"
        outer = [p["pillage_token"] for p in provinces[1:]]
        for p in provinces:
            assert p["pillaged"] is False
            if p["destroyed"]:
                assert p["pillage_token"] is None
            else:
                assert p["pillage_token"] is not None
        live = Counter(t for t in outer if t is not None)
        assert not live - OUTER_TOKEN_BAG, "only the 8 outer tokens are used"
        assert sum(live.values()) == 8 - sum(state.destroyed)
        layouts.add(tuple(outer))
    assert len(layouts) > 1, "tokens are shuffled by the seed"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_ragnarok_provinces(players):
    """§3.3: three distinct outer provinces on the Age slots, never among the set-up destroyed;
    the Doom token starts on the Age 1 province."""
    seen = set()
    for seed in range(40):
        state = initial_state(GameOptions(players, seed))
        rag = list(state.ragnarok)
        assert len(set(rag)) == 3
        assert all(1 <= p <= 8 for p in rag)
        assert not any(state.destroyed[p] for p in rag)
        v = view(state)
        assert v["doom"] == v["provinces"][rag[0]]["area"]
        for age, p in enumerate(rag, start=1):
            assert v["provinces"][p]["ragnarok_age"] == age
        seen.add(tuple(rag))
    assert len(seen) > 5


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_clans_start_with_base_stats_and_reserve(players):
    """§3.1: stats Rage 6 / Axes 3 / Horns 4, current Rage 6, Glory 0, every figure in the
    reserve, no monster figure, no cards."""
    state = new_game(players, 11)
    for clan in state.clans:
        assert [clan.stat(i) for i in range(3)] == [6, 3, 4]
        assert clan.steps == [0, 0, 0]
        assert clan.rage == 6
        assert clan.glory == 0
        assert clan.loc[:10] == [RESERVE] * 10
        assert clan.loc[10:] == [BOX] * 9
        assert clan.quests == []
        assert all(x < 0 for x in clan.slots)
    assert state.occupancy == [0] * 13
    assert state.age == 1
    assert state.phase == Phase.DRAFT


def test_first_player_comes_from_the_seed_or_the_options():
    """§3.6: the first player is drawn from the seed (or given in the options)."""
    firsts = {initial_state(GameOptions(4, seed)).first_player for seed in range(40)}
    assert firsts <= {0, 1, 2, 3}
    assert len(firsts) > 1
    for seed in range(5):
        assert (
            initial_state(GameOptions(4, seed)).first_player
            == initial_state(GameOptions(4, seed)).first_player
        )
        assert initial_state(GameOptions(4, seed, DraftMode.NORMAL, 2)).first_player == 2


def _play(state, moves: int) -> None:
    for i in range(moves):
        if state.step == Step.GAME_OVER:
            return
        seat = awaiting(state)[0]
        legal = legal_actions(state, seat)
        apply(state, seat, legal[(i * 7) % len(legal)])


@pytest.mark.parametrize("players", [2, 4, 5])
def test_same_seed_same_game(players):
    """A game is a pure function of (options, seed, actions): same seed → same hash."""
    a = new_game(players, 1234)
    b = new_game(players, 1234)
    assert a.state_hash() == b.state_hash()
    assert (
        initial_state(GameOptions(players, 5)).state_hash()
        == initial_state(GameOptions(players, 5)).state_hash()
    )
    _play(a, 150)
    _play(b, 150)
    assert a.state_hash() == b.state_hash()
    assert new_game(players, 1234).state_hash() != new_game(players, 1235).state_hash()
