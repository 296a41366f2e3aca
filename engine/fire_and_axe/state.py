"""The game state of Fire & Axe: plain ints and lists, copied by hand, hashed stably.

The state holds data only (fire-and-axe.md, Appendix A); the rules that change it live in the
modules named after them (``wintering``, ``sailing``, ``weather``, ``tasks``, ``runes``,
``sagas``, ``turns``, ``scoring``) and ``flow`` drives them. The board (``board.Board``) is
shared by every copy; the dice generator is part of the state, so the hash and the snapshots
cover every roll still to come.
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from enum import IntEnum
from typing import Any

from engine.core.contract import Event
from engine.core.rng import SplitMix64
from engine.fire_and_axe.board import Board
from engine.fire_and_axe.ids import CREW_PER_PLAYER, DIAL_START, FISH, GOODS_PER_TYPE, WINTERING

NONE = -1


class Step(IntEnum):
    """Which decision the game awaits (derived state would need the whole history)."""

    MAIN = 0  # the active seat's free choice: Actions, Tasks, Other Activities, end the turn
    LOSSES = 1  # the active seat chooses an item for each skull to cover (F6.4-F6.5)
    RAID_AGAIN = 2  # after a failed Raid roll: roll again or stop (F7.4a)
    SETTLE_CONVERT = 3  # a Settle succeeded with 1 crew left: convert it or not (F7.5b.5)
    WINDOW = 4  # rune_timing = any_time: another seat may play or discard Runes (A8)
    GAME_OVER = 5


class EndReason(IntEnum):
    NONE = 0
    FINAL_ROUNDS = 1  # the third Final Round marker's turn ended (F12.3)
    SAGAS_DONE = 2  # the Saga spaces are empty (F12.4)
    ALL_OUT = 3  # every player built 15 Settlements (F12.5)


END_REASON_NAMES = ("", "final_rounds", "sagas_done", "all_out")

# Every field of a PlayerState (its __slots__).
PLAYER_FIELDS: tuple[str, ...] = (
    "loc",
    "crew",
    "cargo",
    "crew_supply",
    "hand",
    "vp",
    "towns",
    "sagas",
    "settlements",
    "out",
)


class PlayerState:
    """One player's Longship board, supply, hand and trophies."""

    __slots__ = PLAYER_FIELDS

    def __init__(self, *, blank: bool = False) -> None:
        if blank:  # for copy(), which sets every field itself
            return
        self.loc = WINTERING  # a location index, or WINTERING (F3.7)
        self.crew = 0  # crew aboard
        self.cargo: list[int] = [0, 0, 0]  # goods aboard by type (ids.GOODS)
        self.crew_supply = CREW_PER_PLAYER
        self.hand: list[int] = []  # Rune indices (board.runes), secret (F5.4)
        self.vp = 0
        self.towns: list[int] = []  # the ports whose town figure this player took (F7.4a)
        self.sagas: list[int] = []  # Saga indices (board.sagas) taken (F11.3)
        self.settlements = 0
        self.out = False  # no crew left to man the ship (F9.4)

    def copy(self) -> PlayerState:
        p = PlayerState(blank=True)
        p.loc = self.loc
        p.crew = self.crew
        p.cargo = self.cargo[:]
        p.crew_supply = self.crew_supply
        p.hand = self.hand[:]
        p.vp = self.vp
        p.towns = self.towns[:]
        p.sagas = self.sagas[:]
        p.settlements = self.settlements
        p.out = self.out
        return p

    def aboard(self) -> int:
        """Items on the Longship board (crew and goods)."""
        c = self.cargo
        return self.crew + c[0] + c[1] + c[2]


# Every field of a GameState (its __slots__).
GAME_STATE_FIELDS: tuple[str, ...] = (
    "board",
    "players",
    "seed",
    "settle_any",
    "any_time",
    "no_conflict",
    "first_player",
    "rng",
    "version",
    "step",
    "turn",
    "turns",
    "age",
    "dial",
    "demand",
    "supply",
    "rune_deck",
    "rune_discard",
    "saga_deck",
    "saga_spaces",
    "saga_removed",
    "saga_discard",
    "markers_holder",
    "markers_placed",
    "town",
    "treasure",
    "goods",
    "settler",
    "seats",
    "prep",
    "sail",
    "tasks_done",
    "skulls_covered",
    "chart",
    "pending_losses",
    "attack_bonus",
    "calm",
    "attack_port",
    "raid_rolls",
    "window",
    "end_reason",
    "events",
)


class GameState:
    """A whole game position. Build one with ``setup.new_game`` or ``scenario.from_scenario``."""

    __slots__ = GAME_STATE_FIELDS

    def __init__(self, board: Board, players: int, seed: int, *, blank: bool = False) -> None:
        self.board = board
        self.players = players
        self.seed = seed
        if blank:  # for copy(), which sets every other field itself
            return
        n_loc = len(board.ids)
        # -- options -----------------------------------------------------------------------
        self.settle_any = False  # A2: True blocks Settle if ANY other region port has a town
        self.any_time = False  # A8: True lets Runes be played in other players' turns
        self.no_conflict = False  # F14.1
        self.first_player = 0
        # -- the table ---------------------------------------------------------------------
        self.rng = SplitMix64(seed)  # every shuffle and every die (F1.7)
        self.version = 0
        self.step: int = Step.MAIN
        self.turn = 0  # the active seat
        self.turns = 0  # turns started so far (the first is 1)
        self.age = 1
        self.dial = DIAL_START  # the zone under the blue hole (F3.3)
        self.demand = FISH  # F3.5
        self.supply: list[int] = [GOODS_PER_TYPE] * 3
        self.rune_deck: list[int] = []  # top = last; secret order
        self.rune_discard: list[int] = []  # face up (F8.3)
        self.saga_deck: list[int] = []  # top = last; face down, Age I on top (F3.4)
        self.saga_spaces: list[int] = [NONE, NONE, NONE]
        self.saga_removed: list[int] = []  # removed unseen at set-up (F3.4)
        self.saga_discard: list[int] = []  # revealed and discarded (F11.4)
        self.markers_holder = NONE  # F11.7: the seat holding the Final Round markers
        self.markers_placed = 0  # F12.2
        self.town: list[int] = [0] * n_loc  # 0 none, 1 small, 3 large (F2.7)
        self.treasure: list[int] = [0] * n_loc  # under each town; secret until raided
        self.goods: list[int] = [NONE] * n_loc  # the goods token in a port (F2.7)
        self.settler: list[int] = [NONE] * n_loc  # the seat whose Settlement it is
        self.seats: list[PlayerState] = [PlayerState() for _ in range(players)]
        # -- the turn under way (reset by turns.end_turn, F10.3) ---------------------------
        self.prep = 0  # F4.3
        self.sail = 0
        self.tasks_done: list[int] = []  # ports where a Task was done this turn (F7.2)
        self.skulls_covered = 0  # bit p: the skull at excess p is covered (F6.4)
        self.chart: list[int] = [0, 0, 0, 0]  # items on the Losses chart (ids.ITEM_NAMES)
        self.pending_losses = 0  # skulls still to cover now (F6.4)
        self.attack_bonus = 0  # added to attack dice (effect attack_bonus)
        self.calm = False  # the next Sail has no weather check (effect calm_weather)
        self.attack_port = NONE  # the port of the Raid or Settle under way
        self.raid_rolls = 0  # rolls made in the Raid under way
        self.window: list[int] = []  # A8: seats still to be asked, the first is asked now
        self.end_reason: int = EndReason.NONE
        self.events: list[Event] | None = None  # set to a list to record events

    # -- cloning and hashing -------------------------------------------------------------

    def copy(self) -> GameState:
        """A cheap deep copy (hand-written, no deepcopy). Events are not copied."""
        s = GameState(self.board, self.players, self.seed, blank=True)
        s.settle_any = self.settle_any
        s.any_time = self.any_time
        s.no_conflict = self.no_conflict
        s.first_player = self.first_player
        s.rng = SplitMix64(self.rng.position)
        s.version = self.version
        s.step = self.step
        s.turn = self.turn
        s.turns = self.turns
        s.age = self.age
        s.dial = self.dial
        s.demand = self.demand
        s.supply = self.supply[:]
        s.rune_deck = self.rune_deck[:]
        s.rune_discard = self.rune_discard[:]
        s.saga_deck = self.saga_deck[:]
        s.saga_spaces = self.saga_spaces[:]
        s.saga_removed = self.saga_removed[:]
        s.saga_discard = self.saga_discard[:]
        s.markers_holder = self.markers_holder
        s.markers_placed = self.markers_placed
        s.town = self.town[:]
        s.treasure = self.treasure[:]
        s.goods = self.goods[:]
        s.settler = self.settler[:]
        s.seats = [p.copy() for p in self.seats]
        s.prep = self.prep
        s.sail = self.sail
        s.tasks_done = self.tasks_done[:]
        s.skulls_covered = self.skulls_covered
        s.chart = self.chart[:]
        s.pending_losses = self.pending_losses
        s.attack_bonus = self.attack_bonus
        s.calm = self.calm
        s.attack_port = self.attack_port
        s.raid_rolls = self.raid_rolls
        s.window = self.window[:]
        s.end_reason = self.end_reason
        s.events = None
        return s

    def canonical(self) -> array[int]:
        """Every field as one flat run of integers (the basis of the hash): the pack's digest,
        the options, the generator and the whole position. Each list is preceded by its
        length, so different states never flatten alike."""
        out: list[int] = [int(self.board.digest[i : i + 8], 16) for i in range(0, 64, 8)]
        add = out.append
        ext = out.extend
        position = self.rng.position
        ext((self.players, self.seed & 0xFFFFFFFF, self.seed >> 32))
        ext((position & 0xFFFFFFFF, position >> 32))
        ext((self.settle_any, self.any_time, self.no_conflict, self.first_player))
        ext((self.version, self.step, self.turn, self.turns, self.age, self.dial, self.demand))
        ext(self.supply)
        for flat in (
            self.rune_deck,
            self.rune_discard,
            self.saga_deck,
            self.saga_spaces,
            self.saga_removed,
            self.saga_discard,
            self.tasks_done,
            self.window,
        ):
            add(len(flat))
            ext(flat)
        ext((self.markers_holder, self.markers_placed))
        ext(self.town)
        ext(self.treasure)
        ext(self.goods)
        ext(self.settler)
        for p in self.seats:
            ext((p.loc, p.crew, p.crew_supply, p.vp, p.settlements, p.out))
            ext(p.cargo)
            for flat in (p.hand, p.towns, p.sagas):
                add(len(flat))
                ext(flat)
        ext((self.prep, self.sail, self.skulls_covered, self.pending_losses, self.attack_bonus))
        ext((self.calm, self.attack_port, self.raid_rolls, self.end_reason))
        ext(self.chart)
        return array("q", out)

    def state_hash(self) -> str:
        """A stable hex digest: equal states hash equal in every process and version."""
        data = self.canonical()
        if sys.byteorder != "little":  # one byte layout on every machine
            data.byteswap()
        return hashlib.blake2b(data.tobytes(), digest_size=16).hexdigest()

    # -- small shared helpers --------------------------------------------------------------

    @property
    def days(self) -> int:
        """Days spent this turn (F4.3)."""
        return self.prep + self.sail

    def capacity(self) -> int:
        """Slots available in the current Age: 5, 6 or 7 (F5.2)."""
        return 4 + self.age

    def occupant(self, loc: int) -> int:
        """The seat whose ship is at ``loc``, else NONE (a port holds one ship, F2.6)."""
        for seat, p in enumerate(self.seats):
            if p.loc == loc:
                return seat
        return NONE

    def roll(self) -> int:
        """One d6 from the game's generator (F1.7, A20)."""
        return self.rng.below(6) + 1

    def emit(self, audience: int, payload: dict[str, Any]) -> None:
        """Record an event for everyone (audience -1) or for one seat only."""
        if self.events is not None:
            self.events.append((audience, payload))

    def gain_vp(self, seat: int, delta: int, reason: str, **details: int | str) -> None:
        """Change a player's VP and record why (one ``vp`` event per source, see ``events``).
        Nothing is recorded for a change of 0."""
        if delta == 0:
            return
        p = self.seats[seat]
        p.vp += delta
        if self.events is not None:
            payload: dict[str, Any] = {
                "type": "vp",
                "seat": seat,
                "delta": delta,
                "vp": p.vp,
                "reason": reason,
            }
            payload.update(details)
            self.events.append((-1, payload))

    def __repr__(self) -> str:
        return (
            f"<FireAndAxeState players={self.players} age={self.age} turn={self.turn} "
            f"step={self.step} version={self.version} hash={self.state_hash()[:8]}>"
        )
