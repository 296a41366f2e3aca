"""Set-up (blood-rage.md §3): tokens, Ragnarök, destroyed provinces, decks, first player.

Every random draw of a game happens here, from one seed, so a game is a pure function of
(options, seed, actions).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.blood_rage.board import OUTER_TOKENS, SETUP_DESTROYED, Token
from engine.blood_rage.cards import deck_instances
from engine.blood_rage.flow import advance
from engine.blood_rage.ids import OUTER_PROVINCES, DraftMode, Step
from engine.blood_rage.state import GameState
from engine.core.errors import OptionsError
from engine.core.rng import SplitMix64


@dataclass(frozen=True, slots=True)
class GameOptions:
    players: int = 4
    seed: int = 0
    draft_mode: DraftMode = DraftMode.NORMAL
    first_player: int | None = None  # None: drawn from the seed

    def validate(self) -> None:
        if not 2 <= self.players <= 5:
            raise OptionsError(f"Blood Rage takes 2 to 5 players, not {self.players}")
        if self.first_player is not None and not 0 <= self.first_player < self.players:
            raise OptionsError(f"first player {self.first_player} is not a seat of this game")
        if not 0 <= self.seed < 2**64:
            raise OptionsError("seed must be in [0, 2**64)")


def initial_state(options: GameOptions) -> GameState:
    """The shuffled set-up, before the first draft is dealt."""
    options.validate()
    rng = SplitMix64(options.seed)
    n = options.players
    state = GameState(n, int(options.draft_mode), options.seed)
    tokens = list(OUTER_TOKENS)
    rng.shuffle(tokens)
    state.token = [Token.ALL_STATS, *tokens]
    doom = list(OUTER_PROVINCES)
    rng.shuffle(doom)
    state.ragnarok = doom[:3]
    for p in doom[3 : 3 + SETUP_DESTROYED[n]]:
        state.destroyed[p] = True
        state.token[p] = -1
    for age in (1, 2, 3):
        deck = deck_instances(age, n)
        rng.shuffle(deck)
        state.decks[age - 1] = deck
    state.first_player = rng.below(n) if options.first_player is None else options.first_player
    state.step = Step.DRAFT_DEAL
    return state


def new_game(
    players: int = 4,
    seed: int = 0,
    draft_mode: DraftMode = DraftMode.NORMAL,
    first_player: int | None = None,
) -> GameState:
    """A new game, dealt and waiting for the first draft picks."""
    state = initial_state(GameOptions(players, seed, draft_mode, first_player))
    advance(state)
    return state
