"""Crash test: SIGKILL the server again and again while bots play; nothing acknowledged is lost.

``python -m server`` runs as a separate process on loopback with a data directory. Bots (one
driver per game, random legal decisions through the API, each SubmitAction with an
idempotency key) play many games at once. The server is SIGKILLed at random moments (after a
random number of acknowledged decisions plus a random delay, so requests are in flight) and
restarted on the same data directory, ``YGGDRASIL_CHAOS_KILLS`` times (default 24).
Clients treat UNAVAILABLE and other transport failures as "retry the same request on the new
server": a SubmitAction whose answer was lost is re-sent with the same idempotency key, and
the restarted server recognises it from the durable log (``duplicate=True``) instead of
applying it twice.

At the end every game has finished; every decision a client saw acknowledged is in its game's
durable log exactly once (same version, seat and action); the log holds nothing else; and a
pure engine replay of each log (every decision checked for legality) reaches the final state
hash the server reports.

Run with ``make chaos`` (or ``pytest -m chaos -s tests/durability``); bounded to a few minutes.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
import grpc.aio
import pytest
from durable_support import Server

from engine.blood_rage import flow
from engine.blood_rage.actions import Action
from engine.blood_rage.setup import new_game
from protocol.blood_rage import actions as br_actions
from protocol.replay_json import replay_from_response, verify_replay
from server.stores.sqlite import SqliteStore
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

pytestmark = pytest.mark.chaos

KILLS = int(os.environ.get("YGGDRASIL_CHAOS_KILLS", "24"))
GAMES = int(os.environ.get("YGGDRASIL_CHAOS_GAMES", "24"))
SEED = int(os.environ.get("YGGDRASIL_CHAOS_SEED", str(int(time.time()))))
BUDGET_S = 420.0
# What a client sees when the server dies under it or is not back yet.
TRANSIENT = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
}
T = TypeVar("T")


@dataclass
class Stats:
    acked: int = 0
    duplicates: int = 0  # answers recognised as retries of an applied decision
    retries: Counter[str] = field(default_factory=Counter)
    refused: int = 0


@dataclass
class Acked:
    key: str
    seat: int
    version: int  # the state version the decision was applied on
    code: int


async def call(server: Server, stats: Stats, rpc: Callable[[Any], Awaitable[T]]) -> T:
    """Run one RPC against whichever server is up, retrying transport failures."""
    while True:
        await server.up.wait()
        try:
            return await rpc(server.stub)
        except grpc.aio.AioRpcError as e:
            if e.code() not in TRANSIENT:
                raise
            stats.retries[e.code().name] += 1
        await asyncio.sleep(0.02)


async def drive(
    server: Server,
    stats: Stats,
    game_id: str,
    tokens: list[str],
    rng: random.Random,
    acked: list[Acked],
    on_ack: Callable[[], None],
) -> None:
    """Play one game to its end with random legal decisions."""
    spectator = gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
    n = 0
    while True:
        view = (await call(server, stats, lambda s: s.GetView(spectator, timeout=10))).view
        if view.status == gp.GAME_STATUS_FINISHED:
            return
        waiting = [s for s in view.awaiting_seats if s not in view.committed_seats]
        seat = rng.choice(waiting)
        mine_request = gs.GetViewRequest(game_id=game_id, seat_token=tokens[seat])
        mine = (await call(server, stats, lambda s, r=mine_request: s.GetView(r, timeout=10))).view
        if not mine.legal_actions:
            continue
        choice = rng.choice(list(mine.legal_actions))
        n += 1
        request = gs.SubmitActionRequest(
            game_id=game_id,
            seat_token=tokens[seat],
            action=choice.action,
            state_version=mine.state_version,
            idempotency_key=f"{game_id}/{n}",
        )
        try:
            reply = await call(server, stats, lambda s, r=request: s.SubmitAction(r, timeout=10))
        except grpc.aio.AioRpcError as e:
            if e.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            stats.refused += 1  # not applied (a retry that was would answer duplicate)
            continue
        stats.acked += 1
        stats.duplicates += int(reply.duplicate)
        code = br_actions.action_from_pb(choice.action).code()
        acked.append(Acked(request.idempotency_key, seat, reply.state_version - 1, code))
        on_ack()


async def _setup(server: Server, rng: random.Random) -> list[tuple[str, int, list[str]]]:
    games = []
    for i in range(GAMES):
        players = 2 + i % 4
        created = await server.stub.CreateGame(
            gs.CreateGameRequest(
                options=gp.GameOptions(player_count=players, seed=rng.randrange(2**63))
            )
        )
        tokens = []
        for seat in range(players):
            joined = await server.stub.JoinGame(
                gs.JoinGameRequest(game_id=created.game_id, seat=seat, player_name=f"bot{seat}")
            )
            tokens.append(joined.seat_token)
        games.append((created.game_id, players, tokens))
    return games


async def _chaos(data_dir: Path) -> dict[str, Any]:
    rng = random.Random(SEED)
    server = Server(data_dir)
    stats = Stats()
    await server.start()
    games = await _setup(server, rng)  # before the kills: a lost JoinGame answer loses a token
    acked: dict[str, list[Acked]] = {game_id: [] for game_id, _, _ in games}
    kills = 0
    trigger = asyncio.Event()
    countdown = [rng.randint(30, 110)]

    def on_ack() -> None:
        countdown[0] -= 1
        if countdown[0] <= 0:
            trigger.set()

    done = False

    async def killer() -> None:
        nonlocal kills
        while kills < KILLS:
            await trigger.wait()
            trigger.clear()
            if done:
                return
            await asyncio.sleep(rng.uniform(0.0, 0.05))  # land among requests in flight
            await server.kill()
            kills += 1
            await server.start()
            countdown[0] = rng.randint(30, 110)

    drivers = [
        asyncio.create_task(
            drive(server, stats, gid, tokens, random.Random(rng.random()), acked[gid], on_ack)
        )
        for gid, _, tokens in games
    ]
    killing = asyncio.create_task(killer())
    started = time.perf_counter()
    await asyncio.gather(*drivers)
    play_seconds = time.perf_counter() - started
    done = True
    trigger.set()
    await killing  # never cancelled half-way through a restart
    if not server.up.is_set():  # killed as the last game ended: bring it back
        await server.start()
    replays = {}
    for game_id, _, _ in games:
        view = (
            await server.stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
        ).view
        assert view.status == gp.GAME_STATUS_FINISHED
        replays[game_id] = await server.stub.GetReplay(gs.GetReplayRequest(game_id=game_id))
    await server.stop()

    # Every acknowledged decision is in the durable log exactly once, and nothing else is.
    store = SqliteStore(data_dir / "games.sqlite3")
    checked = 0
    for game_id, players, _ in games:
        stored = store.load_game(game_id)
        assert stored is not None and stored.finished_unix_ms is not None
        log = stored.actions
        keys = Counter(e.idempotency_key for e in log)
        assert all(count == 1 for count in keys.values()), f"{game_id}: a key applied twice"
        by_key = {e.idempotency_key: e for e in log}
        for ack in acked[game_id]:
            entry = by_key.get(ack.key)
            assert entry is not None, f"{game_id}: acknowledged {ack.key} is not in the log"
            assert (entry.version, entry.seat, entry.code) == (
                ack.version,
                ack.seat,
                ack.code,
            ), f"{game_id}: {ack.key} logged differently from its acknowledgement"
            checked += 1
        assert len(log) == len(acked[game_id]), f"{game_id}: the log holds unacknowledged work"
        assert [e.version for e in log] == list(range(len(log)))
        # A pure engine replay of the log reaches the final state the server reports.
        settings = stored.settings
        state = new_game(players, int(settings["seed"]))
        for entry in log:
            flow.apply(state, entry.seat, Action.from_code(entry.code))
        assert state.state_hash() == log[-1].state_hash == replays[game_id].final_state_hash
        assert verify_replay(replay_from_response(replays[game_id], game_id)).ok
    return {
        "seed": SEED,
        "kills": kills,
        "server_starts": server.starts,
        "mean_restart_s": round(sum(server.start_seconds) / len(server.start_seconds), 2),
        "games": len(games),
        "actions_checked": checked,
        "duplicates_recognised": stats.duplicates,
        "refused": stats.refused,
        "transport_retries": dict(stats.retries),
        "play_seconds": round(play_seconds, 1),
    }


async def test_sigkill_the_server_again_and_again(tmp_path: Path) -> None:
    summary = await asyncio.wait_for(_chaos(tmp_path), timeout=BUDGET_S)
    print("\nchaos:", summary)
    assert summary["kills"] == KILLS, "the games ended before every planned kill"
    assert summary["actions_checked"] > 0
