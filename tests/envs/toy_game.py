"""A second, tiny game behind the same contracts, to hold the environments to being generic:
nothing in ``envs/`` may lean on Blood Rage (its action tuples, its snapshot format, its
tables), and a game has only to give its rules and an ``Encoding``.

*Secret bids*, 2-4 players: each is dealt 3 cards from a shuffled deck of 1-12. Three rounds,
each a secret simultaneous bid (every seat plays a card from its hand, unseen until all have
played); the highest bid played by one seat alone scores its value. Then, one after the other,
each seat banks a point or passes. Most points wins (ties share).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from engine.core.contract import SPECTATOR, Result, ranks_of
from engine.core.errors import IllegalActionError, OptionsError
from envs.encoding import Field, Layout
from envs.games import GameSpec

CARDS = 12
HAND = 3
ROUNDS = 3
BANK = 100
PASS = 101
HIDDEN = -1
HIDDEN_CHOICE = -3


@dataclass(frozen=True)
class Bid:
    """An action: play card ``value`` (1-12), or bank/pass (``BANK``/``PASS``)."""

    value: int

    def code(self) -> int:
        return self.value


@dataclass(frozen=True)
class Options:
    players: int
    seed: int


class ToyState:
    def __init__(self, players: int, seed: int) -> None:
        self.players = players
        self.seed = seed
        self.version = 0
        self.events: list[Any] | None = None
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.deck: list[int] = []
        self.played = [-1] * players  # this round's secret bids (-1: not yet)
        self.revealed = [0] * players  # last round's bids, once all were played
        self.scores = [0] * players
        self.round = 0  # 0-2 bidding rounds, 3 banking, 4 over
        self.turn = 0

    def copy(self) -> ToyState:
        s = ToyState(self.players, self.seed)
        s.version = self.version
        s.hands = [h[:] for h in self.hands]
        s.deck = self.deck[:]
        s.played = self.played[:]
        s.revealed = self.revealed[:]
        s.scores = self.scores[:]
        s.round = self.round
        s.turn = self.turn
        return s

    def record(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "seed": self.seed,
            "version": self.version,
            "hands": self.hands,
            "deck": self.deck,
            "played": self.played,
            "revealed": self.revealed,
            "scores": self.scores,
            "round": self.round,
            "turn": self.turn,
        }

    def state_hash(self) -> str:
        text = json.dumps(self.record(), sort_keys=True).encode()
        return hashlib.blake2b(text, digest_size=16).hexdigest()


def _restore(data: Mapping[str, Any]) -> ToyState:
    s = ToyState(int(data["players"]), int(data["seed"]))
    s.version = int(data["version"])
    s.hands = [list(h) for h in data["hands"]]
    s.deck = list(data["deck"])
    s.played = list(data["played"])
    s.revealed = list(data["revealed"])
    s.scores = list(data["scores"])
    s.round = int(data["round"])
    s.turn = int(data["turn"])
    return s


class ToyRules:
    name = "secret_bids"
    title = "Secret bids"
    min_players = 2
    max_players = 4
    score_name = "points"

    def options(self, players: int, seed: int, game_options: Mapping[str, Any]) -> Options:
        if not 2 <= players <= 4 or game_options:
            raise OptionsError("secret bids: 2-4 players, no options")
        return Options(players, seed)

    def options_of(self, state: Any) -> Options:
        return Options(state.players, state.seed)

    def options_record(self, options: Any) -> dict[str, Any]:
        return {}

    def new_game(self, options: Any) -> ToyState:
        s = ToyState(options.players, options.seed)
        deck = list(range(1, CARDS + 1))
        random.Random(options.seed).shuffle(deck)
        for seat in range(s.players):
            s.hands[seat] = sorted(deck[:HAND])
            del deck[:HAND]
        s.deck = deck
        return s

    def from_scenario(self, text: str) -> ToyState:
        return _restore(json.loads(text))

    def awaiting(self, state: Any) -> list[int]:
        if state.round < ROUNDS:
            return [s for s in range(state.players) if state.played[s] == -1]
        if state.round == ROUNDS:
            return [state.turn]
        return []

    def is_simultaneous(self, state: Any) -> bool:
        return bool(state.round < ROUNDS)

    def legal_actions(self, state: Any, seat: int) -> Sequence[Bid]:
        if seat not in self.awaiting(state):
            return []
        if state.round < ROUNDS:
            return [Bid(v) for v in state.hands[seat]]
        return [Bid(BANK), Bid(PASS)]

    def apply(self, state: Any, seat: int, action: Any) -> None:
        if action not in self.legal_actions(state, seat):
            raise IllegalActionError(f"{action} is not legal for seat {seat}")
        self.apply_unchecked(state, seat, action)

    def apply_unchecked(self, state: Any, seat: int, action: Any) -> None:
        s: ToyState = state
        s.version += 1
        if s.round < ROUNDS:
            s.hands[seat].remove(action.value)
            s.played[seat] = action.value
            if all(p >= 0 for p in s.played):
                s.revealed = s.played
                best = max(s.played)
                if s.played.count(best) == 1:
                    s.scores[s.played.index(best)] += best
                s.played = [-1] * s.players
                s.round += 1
            return
        if action.value == BANK:
            s.scores[seat] += 1
        s.turn += 1
        if s.turn == s.players:
            s.round += 1

    def default_action(self, state: Any, seat: int) -> Bid:
        return self.legal_actions(state, seat)[0]

    def result(self, state: Any) -> Result | None:
        if state.round <= ROUNDS:
            return None
        ranks = ranks_of(state.scores)
        winners = tuple(s for s, r in enumerate(ranks) if r == 1)
        return Result(tuple(state.scores), winners, ranks)

    def phase(self, state: Any) -> int:
        return int(state.round)

    def view(self, state: Any, viewer: int = SPECTATOR, include_state: bool = False) -> Any:
        s: ToyState = state
        waiting = self.awaiting(s)
        out: dict[str, Any] = {
            "viewer": viewer,
            "version": s.version,
            "awaiting": waiting,
            "committed": [o for o in range(s.players) if s.round < ROUNDS and s.played[o] >= 0],
            "legal_actions": [
                {"index": i, "code": a.code(), "label": self.describe(a)}
                for i, a in enumerate(self.legal_actions(s, viewer) if viewer >= 0 else [])
            ],
            "hand": list(s.hands[viewer]) if viewer >= 0 else [],
            "hand_counts": [len(h) for h in s.hands],
            "revealed": list(s.revealed),
            "scores": list(s.scores),
            "round": s.round,
        }
        if include_state:
            record = s.copy().record()
            record["seed"] = 0
            record["deck"] = [HIDDEN] * len(s.deck)
            for o in range(s.players):
                if o != viewer:
                    record["hands"][o] = [HIDDEN] * len(s.hands[o])
                    if record["played"][o] >= 0:
                        record["played"][o] = HIDDEN_CHOICE
            out["engine_state"] = record
        return out

    def seat_label(self, seat: int) -> str:
        return f"bidder {seat}"

    def action_from_code(self, code: int) -> Bid:
        if not (1 <= code <= CARDS or code in (BANK, PASS)):
            raise ValueError(f"{code} is no bid")
        return Bid(code)

    def describe(self, action: Any) -> str:
        return {BANK: "bank a point", PASS: "pass"}.get(action.value, f"bid {action.value}")

    def to_snapshot(self, state: Any) -> dict[str, Any]:
        return json.loads(json.dumps(state.record()))

    def from_snapshot(self, data: Mapping[str, Any]) -> ToyState:
        return _restore(data)


class ToyEncoding:
    game = "secret_bids"

    @cache  # noqa: B019
    def layout(self, players: int) -> Layout:
        return Layout(
            [
                Field("round", ROUNDS + 2, 0, 1, "bidding rounds, banking, over: one-hot"),
                Field("awaiting", players, 0, 1, "seats awaited"),
                Field("committed", players, 0, 1, "seats that bid in secret this round"),
                Field("hand", CARDS, 0, 1, "own cards (value 1 first)"),
                Field("score", 1, 0, 99, "points", True),
                Field("hand_count", 1, 0, HAND, "cards in hand", True),
                Field("revealed", CARDS + 1, 0, 1, "last round's bid (0: none)", True),
            ],
            players,
        )

    @property
    def num_actions(self) -> int:
        return CARDS + 2

    def action_index(self, action: Any) -> int:
        return {BANK: CARDS, PASS: CARDS + 1}.get(action.value, action.value - 1)

    def action_at(self, index: int) -> Bid:
        if not 0 <= index < CARDS + 2:
            raise IndexError(index)
        return Bid({CARDS: BANK, CARDS + 1: PASS}.get(index, index + 1))

    def encode(
        self, state: Any, seat: int, awaited: Sequence[int] | None = None
    ) -> np.ndarray[Any, Any]:
        s: ToyState = state
        p = s.players
        lay = self.layout(p)
        x = np.zeros(lay.size, np.float32)
        x[lay["round"] + s.round] = 1
        for w in ToyRules().awaiting(s) if awaited is None else awaited:
            x[lay["awaiting"] + (w - seat) % p] = 1
        for o in range(p):
            if s.round < ROUNDS and s.played[o] != -1:
                x[lay["committed"] + (o - seat) % p] = 1
        for v in s.hands[seat]:
            x[lay["hand"] + v - 1] = 1
        for o in range(p):
            k = (o - seat) % p
            lay.values(x, "score")[k, 0] = s.scores[o]
            lay.values(x, "hand_count")[k, 0] = len(s.hands[o])
            lay.values(x, "revealed")[k, s.revealed[o]] = 1
        return x

    def seat_state(self, view: Mapping[str, Any]) -> ToyState:
        return _restore(view["engine_state"])

    def max_score(self, players: int) -> int:
        return 99

    def max_decisions(self, players: int) -> int:
        return ROUNDS * players + players


TOY = GameSpec(ToyRules(), ToyEncoding())
