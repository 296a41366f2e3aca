"""Options and set-up (F3).

Every random draw of set-up comes from the game's generator, in this order: the small
treasures onto the one-star ports (in the pack's order), the large treasures onto the
three-star ports, the Saga deck (Age I, II, III, F3.4), the Rune deck (F3.6), then the first
player unless the options name one (F3.8). Each player then draws 1 Rune, clockwise from the
first player (F3.7), and takes the starting bonus 1, 2, 3 … (F3.8). The same generator rolls
the dice and reshuffles the Rune discards during play.

Options (``rules.FireAndAxeRules.options``): ``settle_region_block`` ``"all"`` | ``"any"`` (A2),
``rune_timing`` ``"own_turn"`` | ``"any_time"`` (A8), ``no_conflict`` (F14.1), ``first_player``
(a seat, or drawn), ``data_pack`` (a pack digest, or ``"demo"``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.errors import OptionsError
from engine.fire_and_axe import sagas, turns
from engine.fire_and_axe.board import Board, board_for
from engine.fire_and_axe.ids import FISH, MAX_PLAYERS, MIN_PLAYERS
from engine.fire_and_axe.runes_deck import draw_one
from engine.fire_and_axe.state import GameState

SETTLE_BLOCKS = ("all", "any")
RUNE_TIMINGS = ("own_turn", "any_time")


@dataclass(frozen=True, slots=True)
class GameOptions:
    players: int = 4
    seed: int = 0
    settle_region_block: str = "all"  # A2: "all" (literal, adopted) or "any"
    rune_timing: str = "own_turn"  # A8: "own_turn" (adopted) or "any_time"
    no_conflict: bool = False  # F14.1: remove the 9 conflict Runes
    first_player: int | None = None  # None: drawn from the seed
    data_pack: str = "demo"  # the digest of a known data pack, or "demo"

    def validate(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise OptionsError(
                f"Fire & Axe takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {self.players}"
            )
        if not 0 <= self.seed < 2**64:
            raise OptionsError("seed must be in [0, 2**64)")
        if self.settle_region_block not in SETTLE_BLOCKS:
            raise OptionsError(
                f"settle_region_block must be one of {list(SETTLE_BLOCKS)}, "
                f"not {self.settle_region_block!r}"
            )
        if self.rune_timing not in RUNE_TIMINGS:
            raise OptionsError(
                f"rune_timing must be one of {list(RUNE_TIMINGS)}, not {self.rune_timing!r}"
            )
        if self.first_player is not None and not 0 <= self.first_player < self.players:
            raise OptionsError(f"first player {self.first_player} is not a seat of this game")
        self.board()

    def board(self) -> Board:
        try:
            return board_for(self.data_pack)
        except KeyError as exc:
            raise OptionsError(str(exc.args[0])) from None


def new_game(options: GameOptions) -> GameState:
    """A new game, set up and waiting for the first player's first decision."""
    options.validate()
    board = options.board()
    n = options.players
    state = GameState(board, n, options.seed)
    state.settle_any = options.settle_region_block == "any"
    state.any_time = options.rune_timing == "any_time"
    state.no_conflict = options.no_conflict
    rng = state.rng
    # F3.2: the towns, each with its hidden treasure.
    for ports, values, size in (
        (board.small_ports, board.pack.small_treasures, 1),
        (board.large_ports, board.pack.large_treasures, 3),
    ):
        treasures = list(values)
        rng.shuffle(treasures)
        for port, value in zip(ports, treasures, strict=True):
            state.town[port] = size
            state.treasure[port] = value
    # F3.4 (the Saga deck and the first three), F3.5 (Fish in demand), F3.6 (the Runes).
    sagas.deal(state)
    state.supply[FISH] -= 1
    deck = [r for r in board.rune_deck if not (options.no_conflict and board.runes[r].conflict)]
    rng.shuffle(deck)
    state.rune_deck = deck
    first = rng.below(n) if options.first_player is None else options.first_player
    state.first_player = first
    for i in range(n):  # F3.7, F3.8
        seat = (first + i) % n
        draw_one(state, seat)
        state.gain_vp(seat, i + 1, "start_bonus")
    state.turn = first
    turns.start_turn(state)
    return state
