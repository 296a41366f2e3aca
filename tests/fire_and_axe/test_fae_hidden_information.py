"""No hidden information leaks through what a seat or a spectator receives: views (their
redacted engine state included), events and refusals.

The test is differential. Before each decision of random games, and for each viewer, a *twin*
of the position is made that differs only in what that viewer may not see: the Rune cards it
cannot see (other hands and the deck) dealt anew with the same hand sizes, the Saga deck and
the Sagas removed unseen shuffled within each Age, the treasures under standing towns swapped
among towns of a size, and another seed. The same decision is applied to both; every message
the viewer would receive (the view before and after, with the engine state; the events of the
decision filtered for it; the refusal of a decision it may not take) must be byte for byte the
same. Whatever a decision reveals by the rules is left alone for it: the deck when the viewer
itself draws, the Saga deck when the decision can complete a Saga (and reveal the next card),
the treasures when it is a Raid roll, the actor's hand when it plays or discards a Rune.

The server sends exactly these views and filtered events (tests/api/test_api_both_games.py
checks that every message of a served game is what the engine and the wire give here).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import pytest

from engine.core.contract import SPECTATOR
from engine.core.errors import EngineError
from engine.fire_and_axe.actions import Action, ActionKind
from engine.fire_and_axe.flow import CHANGES_SAGAS
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.state import GameState
from protocol import envelopes
from protocol.fire_and_axe.events import convert_events
from protocol.fire_and_axe.wire import WIRE
from protocol.wire import ConvertedEvent, ViewEnvelope
from yggdrasil.v1 import game_pb2 as gp

ENVELOPE = ViewEnvelope("g", gp.GAME_STATUS_IN_PROGRESS, [], 0, {})
K = ActionKind
_REVEALS_TREASURE = frozenset({K.RAID, K.RAID_AGAIN})
_USES_OWN_CARD = frozenset({K.PLAY_RUNE, K.DISCARD_RUNE})


@dataclass
class Counts:
    """What the test compared (printed by -s, asserted to be more than nothing)."""

    decisions: int = 0
    comparisons: int = 0
    refusals: int = 0
    permuted: Counter[str] = field(default_factory=Counter)
    others_drew: int = 0
    with_towns_taken: int = 0  # decisions checked while some town's treasure was public


def twin(
    state: GameState, viewer: int, actor: int, action: Action, rng: random.Random
) -> GameState:
    """``state`` with what ``viewer`` may not see (and ``action`` does not reveal) changed."""
    t = state.copy()
    t.seed = state.seed ^ 0x5DEECE66D
    kind = action[0]
    mine = {viewer}
    if kind in _USES_OWN_CARD:
        mine.add(actor)
    hidden_seats = [s for s in range(t.players) if s not in mine]
    pool = [card for s in hidden_seats for card in t.seats[s].hand]
    with_deck = viewer != actor  # a viewer that draws sees the card it draws
    if with_deck:
        pool += t.rune_deck
    rng.shuffle(pool)
    for s in hidden_seats:
        size = len(t.seats[s].hand)
        t.seats[s].hand, pool = pool[:size], pool[size:]
    if with_deck:
        t.rune_deck = pool
    if kind not in CHANGES_SAGAS:  # nothing can be revealed from the Saga deck
        ages = t.board.sagas
        for age in (1, 2, 3):
            deck_at = [i for i, c in enumerate(t.saga_deck) if ages[c].age == age]
            removed_at = [i for i, c in enumerate(t.saga_removed) if ages[c].age == age]
            cards = [t.saga_deck[i] for i in deck_at] + [t.saga_removed[i] for i in removed_at]
            rng.shuffle(cards)
            for i in deck_at:
                t.saga_deck[i] = cards.pop()
            for i in removed_at:
                t.saga_removed[i] = cards.pop()
    if kind not in _REVEALS_TREASURE:
        for size in (1, 3):
            towns = [p for p in t.board.ports if t.town[p] == size]
            values = [t.treasure[p] for p in towns]
            rng.shuffle(values)
            for p, v in zip(towns, values, strict=True):
                t.treasure[p] = v
    return t


def _view_bytes(state: GameState, viewer: int) -> bytes:
    view = envelopes.view_to_pb(WIRE, RULES.view(state, viewer, include_state=True), ENVELOPE)
    return view.SerializeToString(deterministic=True)


def _events_for(converted: list[ConvertedEvent], viewer: int) -> list[bytes]:
    out = []
    for e in converted:
        shown = e.full if e.audience in (-1, viewer) else e.public
        out.append(b"" if shown is None else shown.SerializeToString(deterministic=True))
    return out


def _apply(state: GameState, seat: int, action: Action) -> list[bytes] | str:
    state.events = []
    try:
        RULES.apply(state, seat, action)
    except EngineError as exc:
        return f"refused: {exc}"
    return [b"%d" % len(state.events)]


def _refusal(state: GameState, seat: int, action: Action) -> str | None:
    try:
        RULES.apply(state.copy(), seat, action)
    except EngineError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _probes(state: GameState) -> list[Action]:
    """Decisions a seat may send whatever it holds: every Rune played or discarded, a draw."""
    runes = range(len(state.board.runes))
    return [
        Action(K.DRAW_RUNE),
        *(Action(K.PLAY_RUNE, r, 0, 0) for r in runes),
        *(Action(K.DISCARD_RUNE, r, 1, 0) for r in runes),
    ]


def check_game(
    seed: int,
    players: int,
    decisions: int | None,
    counts: Counts,
    skip: int = 0,
    rotate: bool = False,
    **options: object,
) -> None:
    """Check ``decisions`` decisions (None: to the end) after ``skip`` unchecked ones, for
    every viewer (``rotate``: one viewer per decision, in turn, to keep whole games short)."""
    rng = random.Random(seed * 7919 + players)
    state = RULES.new_game(RULES.options(players, seed, dict(options)))
    for _ in range(skip):
        actor = RULES.awaiting(state)[0]
        RULES.apply_unchecked(state, actor, rng.choice(RULES.legal_actions(state, actor)))
    assert RULES.result(state) is None, "skipped to the end"
    probes = _probes(state)
    viewers = [SPECTATOR, *range(players)]
    checked = 0
    while RULES.result(state) is None and (decisions is None or checked < decisions):
        actor = RULES.awaiting(state)[0]
        action = rng.choice(RULES.legal_actions(state, actor))
        counts.with_towns_taken += any(p.towns for p in state.seats)
        for viewer in [viewers[checked % len(viewers)]] if rotate else viewers:
            other = twin(state, viewer, actor, action, rng)
            assert _view_bytes(state, viewer) == _view_bytes(other, viewer), (viewer, action)
            if viewer != SPECTATOR:
                for probe in rng.sample(probes, 3):
                    counts.refusals += 1
                    assert _refusal(state, viewer, probe) == _refusal(other, viewer, probe)
            a, b = state.copy(), other
            a.events, b.events = [], []
            RULES.apply(a, actor, action)
            RULES.apply(b, actor, action)
            assert _events_for(convert_events(a.events), viewer) == _events_for(
                convert_events(b.events), viewer
            ), (viewer, actor, action)
            assert _view_bytes(a, viewer) == _view_bytes(b, viewer), (viewer, action)
            counts.comparisons += 1
            if action[0] not in CHANGES_SAGAS:
                counts.permuted["sagas"] += 1
            if action[0] not in _REVEALS_TREASURE:
                counts.permuted["treasures"] += 1
            if viewer != actor and action[0] == K.DRAW_RUNE:
                counts.others_drew += 1
        state.events = None
        RULES.apply(state, actor, action)
        counts.decisions += 1
        checked += 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_nothing_hidden_leaks_early_and_in_mid_game(players: int) -> None:
    counts = Counts()
    check_game(100 + players, players, 60, counts)
    check_game(200 + players, players, 60, counts, skip=2500)
    assert counts.decisions == 120
    assert counts.comparisons == 120 * (players + 1)
    assert counts.refusals == 3 * 120 * players
    assert counts.others_drew > 0 and counts.permuted["treasures"] > 0
    assert counts.with_towns_taken > 0


def test_nothing_hidden_leaks_when_runes_are_played_at_any_time() -> None:
    counts = Counts()
    check_game(7, 3, 200, counts, rune_timing="any_time", no_conflict=True)
    assert counts.decisions == 200 and counts.comparisons == 800


def test_the_twins_differ_in_what_is_hidden() -> None:
    """The check has teeth: a twin really changes hands, deck, Sagas, treasures and seed,
    and a view that showed any of them would differ."""
    state = RULES.new_game(RULES.options(4, 3, {}))
    rng = random.Random(1)
    other = twin(state, 0, 1, Action(K.END_TURN), rng)
    assert other.seats[0].hand == state.seats[0].hand
    assert [p.hand for p in other.seats[1:]] != [p.hand for p in state.seats[1:]] or (
        other.rune_deck != state.rune_deck
    )
    assert other.saga_deck != state.saga_deck and other.treasure != state.treasure
    assert other.seed != state.seed
    # the unredacted snapshot tells them apart: so would a view that leaked
    assert RULES.to_snapshot(other) != RULES.to_snapshot(state)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_nothing_hidden_leaks_in_whole_games(players: int) -> None:
    counts = Counts()
    check_game(900 + players, players, None, counts, rotate=True)
    check_game(950 + players, players, None, counts, rotate=True, rune_timing="any_time")
    assert counts.decisions > 1000 and counts.others_drew > 0
