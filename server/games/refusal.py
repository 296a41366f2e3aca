"""Why the server refuses a request about a game: :class:`Refusal` carries the gRPC status
code and the message the caller gets (``server.api.checks`` turns it into the RPC's error
status) and, for a decision that does not fit the current state, a :class:`Mismatch` (the
API's VersionMismatch detail). A refusal always means nothing changed.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NOT_AWAITED", "NOT_IN_PROGRESS", "STALE_VERSION", "Mismatch", "Refusal"]


class Refusal(Exception):
    """A request the game refuses; ``code`` is a grpc.StatusCode name. Nothing changed."""

    def __init__(self, code: str, message: str, mismatch: Mismatch | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.mismatch = mismatch


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Why a decision cannot apply to the current state (VersionMismatch in the API)."""

    reason: int  # 1 stale version, 2 not awaited, 3 not in progress (proto numbers)
    submitted_version: int
    current_version: int
    current_sequence: int
    awaiting: tuple[int, ...]  # as View.awaiting_seats: ascending, committed seats included
    committed: tuple[int, ...]  # as View.committed_seats


STALE_VERSION = 1
NOT_AWAITED = 2
NOT_IN_PROGRESS = 3
