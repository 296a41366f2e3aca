"""Take one seat of a game and play random legal actions until the game is over.

A minimal bot on the generated Python stubs (yggdrasil.v1), used by `make ts-example` to fill
the seats beside the TypeScript example client:

    .venv/bin/python scripts/py_random_seat.py --target 127.0.0.1:50051 --game-id ID [--seat N]

Loop: GetView -> if this seat has legal actions, SubmitAction(legal_index, state_version, fresh
idempotency key); otherwise wait for the next WatchGame message (a wake-up signal only; GetView
is the source of truth, with a 1 s poll as fallback). FAILED_PRECONDITION (stale version, not
awaited) means "look again"; UNAVAILABLE (the server restarting) means "send it again".
Exit status: 0 when the game is FINISHED (the result is printed), 1 on an error, an ABORTED
game or --timeout.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import grpc

from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc as gs_grpc

RPC_TIMEOUT_S = 10.0


class Notifier:
    """Counts WatchGame messages in a background thread; reconnects when the stream breaks."""

    def __init__(self, stub: gs_grpc.GameServiceStub, game_id: str, seat_token: str) -> None:
        self._stub = stub
        self._request = gs.WatchGameRequest(game_id=game_id, seat_token=seat_token)
        self._cond = threading.Condition()
        self._count = 0
        self._stopped = False
        self._call: grpc.RpcContext | None = None
        self._thread = threading.Thread(target=self._run, name="watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def mark(self) -> int:
        with self._cond:
            return self._count

    def wait(self, mark: int, max_s: float) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self._count > mark or self._stopped, timeout=max_s)

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._call is not None:
            self._call.cancel()

    def _bump(self) -> None:
        with self._cond:
            self._count += 1
            self._cond.notify_all()

    def _run(self) -> None:
        while not self._stopped:
            try:
                call = self._stub.WatchGame(self._request)
                self._call = call
                for _ in call:
                    self._bump()
            except grpc.RpcError as err:
                if not self._stopped and err.code() != grpc.StatusCode.CANCELLED:
                    print(
                        f"[py_random_seat] WatchGame: {err.code().name}; reconnecting",
                        file=sys.stderr,
                    )
            self._bump()
            time.sleep(0.2)


class _Details(
    collections.namedtuple(
        "_Details",
        ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression"),
    ),
    grpc.ClientCallDetails,
):
    pass


class _BearerKey(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[misc]
    """Sends ``authorization: Bearer <key>`` ($YGGDRASIL_API_KEY) with every call."""

    def __init__(self, key: str) -> None:
        self._pair = ("authorization", f"Bearer {key}")

    def _details(self, d: Any) -> _Details:
        metadata = [*(d.metadata or ()), self._pair]
        return _Details(
            d.method, d.timeout, metadata, d.credentials, d.wait_for_ready, d.compression
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)


# A server shutting down ends calls in flight CANCELLED (past its grace period) and refuses new
# ones UNAVAILABLE until it is back.
TRANSIENT = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
)


def retrying(method: Any, request: Any, deadline: float) -> Any:
    """``method(request)``, sent again after a pause while it fails transiently (the server
    restarting) and the deadline allows; safe for reads and for SubmitAction (its idempotency
    key keeps a retry from applying it twice)."""
    attempt = 0
    while True:
        try:
            return method(request, timeout=RPC_TIMEOUT_S)
        except grpc.RpcError as err:
            if err.code() not in TRANSIENT or time.monotonic() > deadline:
                raise
            attempt += 1
            time.sleep(min(2.0, 0.1 * 2 ** min(attempt, 5)))


def play(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    deadline = time.monotonic() + args.timeout
    with (
        grpc.secure_channel(
            args.target, grpc.ssl_channel_credentials(Path(args.ca_file).read_bytes())
        )
        if args.ca_file
        else grpc.insecure_channel(args.target)
    ) as plain:
        key = os.environ.get("YGGDRASIL_API_KEY", "").strip()
        channel = grpc.intercept_channel(plain, _BearerKey(key)) if key else plain
        stub = gs_grpc.GameServiceStub(channel)
        join = gs.JoinGameRequest(
            game_id=args.game_id, player_name=args.name, join_code=args.join_code
        )
        if args.seat is not None:
            join.seat = args.seat
        joined = stub.JoinGame(join, timeout=RPC_TIMEOUT_S)
        seat, token = joined.seat, joined.seat_token
        tag = f"[py_random_seat {seat}]"
        print(f"{tag} joined game {args.game_id}", file=sys.stderr)
        notifier = Notifier(stub, args.game_id, token)
        notifier.start()
        decisions = refusals = 0
        try:
            while True:
                if time.monotonic() > deadline:
                    print(f"{tag} timeout after {args.timeout} s", file=sys.stderr)
                    return 1
                mark = notifier.mark
                view = retrying(
                    stub.GetView,
                    gs.GetViewRequest(game_id=args.game_id, seat_token=token),
                    deadline,
                ).view
                if view.status == gp.GAME_STATUS_FINISHED:
                    winners = ", ".join(str(w) for w in view.result.winners)
                    scores = " ".join(f"{s.seat}:{s.score}" for s in view.result.seats)
                    print(
                        f"{tag} finished: {decisions} decisions ({refusals} refused); "
                        f"winners {winners}; scores {scores}"
                    )
                    return 0
                if view.status == gp.GAME_STATUS_ABORTED:
                    print(f"{tag} the game was aborted", file=sys.stderr)
                    return 1
                if not view.legal_actions:
                    notifier.wait(mark, 1.0)
                    continue
                choice = rng.choice(list(view.legal_actions))
                request = gs.SubmitActionRequest(
                    game_id=args.game_id,
                    seat_token=token,
                    legal_index=choice.index,
                    state_version=view.state_version,
                    idempotency_key=str(uuid.uuid4()),
                )
                try:
                    retrying(stub.SubmitAction, request, deadline)
                    decisions += 1
                except grpc.RpcError as err:
                    if err.code() != grpc.StatusCode.FAILED_PRECONDITION:
                        raise
                    refusals += 1  # stale version / not awaited: look again
        finally:
            notifier.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--target", default="127.0.0.1:50051", help="server HOST:PORT")
    parser.add_argument("--game-id", required=True, help="the game to join")
    parser.add_argument("--seat", type=int, default=None, help="seat (default: lowest free)")
    parser.add_argument("--name", default="py-random-seat", help="player name")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random choices")
    parser.add_argument("--timeout", type=float, default=600.0, help="give up after SECONDS")
    parser.add_argument("--ca-file", default="", help="TLS: check the server with this CA")
    parser.add_argument(
        "--join-code",
        default=os.environ.get("YGGDRASIL_JOIN_CODE", ""),
        help="join code of a reserved seat (default $YGGDRASIL_JOIN_CODE)",
    )
    args = parser.parse_args(argv)
    try:
        return play(args)
    except grpc.RpcError as err:
        print(f"py_random_seat: {err.code().name}: {err.details()}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
