"""Decision time limits of one game: each awaited seat's deadline and the one timer set for
the earliest (what the server decides for a seat whose time ran out is the rules'
``default_action``).

A game with a ``decision_time_limit_ms`` gives every seat it starts to wait for a full turn;
a seat still awaited keeps its deadline while others decide (a simultaneous round). Deadlines
are kept both on the game's :class:`~server.games.decision_clock.DecisionClock` (to fire) and in
Unix ms (what views show, and what a cluster's store keeps so that a new owner's clocks go on
counting). The hosted game (``server.games.game.Game``) decides when deadlines change and
applies the default decision under its lock when the timer fires.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.games.decision_clock import DecisionClock, Timer

__all__ = ["Deadline", "SeatDeadlines"]


# A seat's deadline: (the decision clock's time, Unix ms).
Deadline = tuple[float, int]


class SeatDeadlines:
    """The deadlines of one game's awaited seats and the timer of the earliest."""

    def __init__(self, clock: DecisionClock) -> None:
        self.clock = clock
        self.by_seat: dict[int, Deadline] = {}
        self._timer: Timer | None = None
        self._on_due: Callable[[], None] | None = None

    def unix_ms(self, seat: int) -> int:
        """When ``seat``'s decision times out (Unix ms); 0 if it has no deadline."""
        deadline = self.by_seat.get(seat)
        return deadline[1] if deadline is not None else 0

    def shown_to(self, viewer: int) -> int:
        """The deadline a view of ``viewer`` shows (Unix ms): its own, else the earliest of
        the seats awaited (0 if none)."""
        if not self.by_seat:
            return 0
        own = self.by_seat.get(viewer)
        return own[1] if own is not None else min(d[1] for d in self.by_seat.values())

    def plan(self, waiting: Sequence[int], acted: int | None, limit_ms: int) -> dict[int, Deadline]:
        """The deadlines once the ``waiting`` seats are awaited: every newly awaited seat (and
        the seat that just acted) gets a fresh one, the others keep theirs."""
        now = self.clock.now()
        wall_ms = self.clock.wall_ms()
        plan = {s: d for s, d in self.by_seat.items() if s in waiting and s != acted}
        for s in waiting:
            if s not in plan:
                plan[s] = (now + limit_ms / 1000.0, wall_ms + limit_ms)
        return plan

    def install(self, plan: dict[int, Deadline], on_due: Callable[[], None]) -> None:
        """Make ``plan`` the deadlines, with ``on_due`` called once the earliest falls."""
        self.stop()
        self.by_seat = plan
        if plan:
            first = min(d[0] for d in plan.values())
            self._on_due = on_due
            self._timer = self.clock.call_later(max(0.0, first - self.clock.now()), self._fire)

    def carry_over(self, deadlines_ms: dict[int, int]) -> None:
        """Take deadlines as a previous owner stored them (seat -> Unix ms), on this clock."""
        now = self.clock.now()
        wall_ms = self.clock.wall_ms()
        self.by_seat = {s: (now + (d - wall_ms) / 1000.0, d) for s, d in deadlines_ms.items()}

    def due(self, waiting: Sequence[int]) -> list[int]:
        """The ``waiting`` seats whose time has run out, in ``waiting``'s order."""
        now = self.clock.now()
        by_seat = self.by_seat
        return [s for s in waiting if s in by_seat and by_seat[s][0] <= now]

    def drop(self, seat: int) -> None:
        self.by_seat.pop(seat, None)

    def stop(self) -> None:
        """Cancel the timer (the deadlines stay as they are)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        on_due = self._on_due
        if on_due is not None:
            on_due()
