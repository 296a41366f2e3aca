"""Every open stream of the server, by game: limits, a metric, and a clean end at shutdown.

A game's watchers are bounded so that no crowd of spectators can take a game (or the server)
from its players: at most ``max_spectators`` spectator streams per game (``--max-spectators-
per-game``, default 1,000), and at most ``MAX_STREAMS_PER_SEAT`` streams per seat, counted
apart, so spectators can never crowd out the seats of the game. Over a limit, WatchGame is
RESOURCE_EXHAUSTED naming it. (Each caller's own streams are bounded by its quota,
``server.api.quotas``.)

At shutdown every game is closed, which ends its streams with UNAVAILABLE and where to
resume; :meth:`StreamBook.ended` lets the shutdown wait for them to have said so before the
gRPC server cancels what is left.

``yggdrasil_game_streams`` (a gauge histogram, read at scrape time) shows how many games have
how many streams open, and ``yggdrasil_game_streams_max`` the most on any one game.

A crowd of streams that leaves frees its memory, but the C allocator keeps the freed pages:
a thousand spectators that came and went left the process 20-25 MB larger. So once many
streams have closed, :func:`return_freed_memory` asks glibc to hand free pages back to the
system (``malloc_trim``; elsewhere it does nothing), from a worker thread, at most every
``TRIM_EVERY_S`` seconds (:meth:`StreamBook.trim_forever`).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from collections import Counter
from collections.abc import Callable, Iterator

from prometheus_client.core import GaugeHistogramMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector, CollectorRegistry

from server.games.game import Game
from server.games.refusal import Refusal

__all__ = [
    "DEFAULT_MAX_SPECTATORS",
    "MAX_STREAMS_PER_SEAT",
    "STREAM_BUCKETS",
    "StreamBook",
    "StreamSlot",
    "return_freed_memory",
]

DEFAULT_MAX_SPECTATORS = 1000
MAX_STREAMS_PER_SEAT = 16
SPECTATOR = -1
STREAM_BUCKETS = (1, 10, 100, 1000, 10_000)
# Trim after this many streams closed, looking at most every TRIM_EVERY_S seconds.
TRIM_AFTER_CLOSED = 100
TRIM_EVERY_S = 10.0


def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


_TRIM = _malloc_trim()


def return_freed_memory() -> bool:
    """Hand the C heap's free pages back to the system (glibc only); whether it could."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


class StreamBook:
    """Open streams per game and per viewer (a seat, or SPECTATOR)."""

    def __init__(self, max_spectators: int = DEFAULT_MAX_SPECTATORS) -> None:
        self.max_spectators = max_spectators
        self._by_game: dict[str, Counter[int]] = {}
        self.total = 0
        self.closed_since_trim = 0
        self._none_open = asyncio.Event()
        self._none_open.set()

    def count(self, game_id: str, viewer: int | None = None) -> int:
        """Streams open on a game (of one viewer, if given)."""
        counts = self._by_game.get(game_id)
        if counts is None:
            return 0
        return sum(counts.values()) if viewer is None else counts[viewer]

    def open(self, game: Game, viewer: int) -> StreamSlot:
        """Count one stream of ``viewer`` on a game until the slot is released;
        RESOURCE_EXHAUSTED (nothing counted) if the game has as many as it may."""
        game_id = game.id
        counts = self._by_game.setdefault(game_id, Counter())
        if viewer == SPECTATOR and counts[viewer] >= self.max_spectators:
            self._forget_if_empty(game_id)
            raise Refusal(
                "RESOURCE_EXHAUSTED",
                f"this game has {self.max_spectators} spectator streams open already (the "
                "server's limit per game); try again later",
            )
        if viewer != SPECTATOR and counts[viewer] >= MAX_STREAMS_PER_SEAT:
            self._forget_if_empty(game_id)
            raise Refusal(
                "RESOURCE_EXHAUSTED",
                f"seat {viewer} has {MAX_STREAMS_PER_SEAT} streams open on this game already; "
                "close one first",
            )
        counts[viewer] += 1
        self.total += 1
        self._none_open.clear()
        game.streams_open += 1
        return StreamSlot(self, game, viewer)

    def _close(self, game: Game, viewer: int) -> None:
        game.streams_open -= 1
        if game.streams_open <= 0:
            game.compact()  # a game that is over and watched no more keeps little
        game_id = game.id
        counts = self._by_game.get(game_id)
        if counts is not None:
            counts[viewer] -= 1
            if counts[viewer] <= 0:
                del counts[viewer]
            self._forget_if_empty(game_id)
        self.total -= 1
        self.closed_since_trim += 1
        if self.total <= 0:
            self._none_open.set()

    def _forget_if_empty(self, game_id: str) -> None:
        counts = self._by_game.get(game_id)
        if counts is not None and not counts:
            del self._by_game[game_id]

    async def trim_forever(self, every_s: float = TRIM_EVERY_S) -> None:
        """Return freed memory to the system after many streams closed (see the module doc)."""
        while True:
            await asyncio.sleep(every_s)
            if self.closed_since_trim >= TRIM_AFTER_CLOSED:
                self.closed_since_trim = 0
                await asyncio.to_thread(return_freed_memory)

    async def ended(self) -> None:
        """Return once no stream is open."""
        await self._none_open.wait()

    def per_game(self) -> list[int]:
        """How many streams each game with any open has."""
        return [sum(c.values()) for c in self._by_game.values()]

    def register_metrics(self, registry: CollectorRegistry) -> None:
        registry.register(_StreamCollector(self))


class StreamSlot:
    """One counted stream; :meth:`release` once (idempotent)."""

    __slots__ = ("_book", "_game", "_viewer")

    def __init__(self, book: StreamBook, game: Game, viewer: int) -> None:
        self._book: StreamBook | None = book
        self._game = game
        self._viewer = viewer

    def release(self) -> None:
        book, self._book = self._book, None
        if book is not None:
            book._close(self._game, self._viewer)


class _StreamCollector(Collector):
    def __init__(self, book: StreamBook) -> None:
        self.book = book

    def collect(self) -> Iterator[GaugeHistogramMetricFamily | GaugeMetricFamily]:
        per_game = self.book.per_game()
        buckets = [(str(b), float(sum(1 for n in per_game if n <= b))) for b in STREAM_BUCKETS]
        buckets.append(("+Inf", float(len(per_game))))
        yield GaugeHistogramMetricFamily(
            "yggdrasil_game_streams",
            "Games by the number of streams (WatchGame, PlaySession) open on them.",
            buckets=buckets,
            gsum_value=float(sum(per_game)),
        )
        yield GaugeMetricFamily(
            "yggdrasil_game_streams_max",
            "The most streams open on any one game.",
            value=float(max(per_game, default=0)),
        )
        yield GaugeMetricFamily(
            "yggdrasil_spectators_per_game_limit",
            "Spectator streams one game may have open at once (--max-spectators-per-game).",
            value=float(self.book.max_spectators),
        )
