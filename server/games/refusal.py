"""Why the server refuses a request about a game: :class:`Refusal` carries the gRPC status
code and the message the caller gets and, for a decision that does not fit the current state,
a :class:`Mismatch` (the API's VersionMismatch detail); :func:`abort` ends an RPC with it (the
API's servicers and the cluster's relay alike). A refusal always means nothing changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

import grpc
from google.protobuf import any_pb2
from google.rpc import status_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status

from yggdrasil.v1 import game_pb2

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext

__all__ = [
    "MAX_MESSAGE_BYTES",
    "NOT_AWAITED",
    "NOT_IN_PROGRESS",
    "STALE_VERSION",
    "Mismatch",
    "Refusal",
    "abort",
    "clip_message",
    "refusal_status",
]

# A refusal's message travels in a trailer; clients drop trailers past 16 KiB (8 KiB soft).
MAX_MESSAGE_BYTES = 1024


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


def clip_message(text: str) -> str:
    """``text`` cut to MAX_MESSAGE_BYTES of UTF-8 (messages may quote a client's value)."""
    data = text.encode()
    if len(data) <= MAX_MESSAGE_BYTES:
        return text
    return data[: MAX_MESSAGE_BYTES - 3].decode(errors="ignore") + "..."


def refusal_status(refusal: Refusal) -> status_pb2.Status:
    """The refusal as a google.rpc.Status: its code, its clipped message and, for a decision
    that does not fit the current state, a VersionMismatch detail."""
    code = grpc.StatusCode[refusal.code].value[0]
    status = status_pb2.Status(code=code, message=clip_message(refusal.message))
    if refusal.mismatch is not None:
        m = refusal.mismatch
        detail = game_pb2.VersionMismatch(
            reason=game_pb2.VersionMismatch.Reason.ValueType(m.reason),
            submitted_state_version=m.submitted_version,
            current_state_version=m.current_version,
            current_sequence=m.current_sequence,
            awaiting_seats=list(m.awaiting),
            committed_seats=list(m.committed),
        )
        packed = any_pb2.Any()
        packed.Pack(detail)
        status.details.append(packed)
    return status


async def abort(context: AioContext, refusal: Refusal) -> NoReturn:
    """End the RPC with the refusal's code; FAILED_PRECONDITION carries a VersionMismatch."""
    status = refusal_status(refusal)
    if status.details:
        await context.abort_with_status(rpc_status.to_status(status))
    await context.abort(grpc.StatusCode[refusal.code], status.message)
