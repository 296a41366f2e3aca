"""``make abuse``: the floods of the red-team pass (issue 13), each bounded in count and time,
against a server in its own process, while a well-behaved client plays on.

For each flood the table says what the flood got (what the server accepted and refused) and
what the well-behaved client saw meanwhile: the median and 99th-percentile latency of its
calls (a ListGames, a spectator GetView and a decision of its own game per round) against its
baseline measured before any flood, and its errors. The run fails (exit status 1) if the
well-behaved client got an error or a flood was not held back as the server promises:

* **game creation**: one anonymous caller creates games as fast as it can; its open-games and
  creation-rate quotas refuse it (RESOURCE_EXHAUSTED naming the limit) while the client with
  an API key creates its games;
* **idle connections**: thousands of TCP connections that never say a word; the client is
  served meanwhile, and the server closes them after its idle time;
* **spectators**: a crowd on the client's game, beyond the per-game limit (the extra ones
  refused), and anonymous streams beyond the anonymous stream quota;
* **slow readers**: streams with a view on every event that never read;
* **oversized fields**: huge names, game ids and scenarios, and bytes that do not parse; all
  refused with a clear code, and no log line longer than a few KB;
* **the cluster** (``bench.abuse_cluster``, issue 26): quota evasion through several nodes,
  forged ``x-forwarded-for`` and forged node metadata against a local cluster (PostgreSQL, 3
  nodes, Envoy).

Figures taken on a busy machine say so little about speed; what each flood was allowed is
the point. ``python -m bench.abuse --help`` for the bounds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import os
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from bench.server_bench import ROOT, GamePlan, plan_games
from clients.connection import key_interceptors
from server.api.connections import raise_file_limit
from yggdrasil.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

__all__ = ["main"]

gs = game_service_pb2
WELL_BEHAVED = "well-behaved"
CROWD = "crowd"
IDLE_S = 5.0


@dataclass
class Probe:
    """What the well-behaved client saw during one phase."""

    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)

    def summary(self, baseline: Probe | None) -> str:
        if not self.latencies:
            return "no call completed"
        p50 = statistics.median(self.latencies) * 1000
        p99 = sorted(self.latencies)[int(0.99 * (len(self.latencies) - 1))] * 1000
        text = f"p50 {p50:.2f} ms, p99 {p99:.2f} ms"
        if baseline is not None and baseline.latencies:
            b50 = statistics.median(baseline.latencies) * 1000
            text += f" ({p50 / b50:.1f}x the baseline p50)"
        errors = ", ".join(f"{n} {code}" for code, n in self.errors.items()) or "no error"
        return f"{text}; {errors}"


@dataclass
class Row:
    flood: str
    did: str
    client: str
    ok: bool
    problems: list[str] = field(default_factory=list)


class Server:
    """``python -m server`` with a keys file, an idle time of IDLE_S and its log in a file."""

    def __init__(self, tmp: Path) -> None:
        self.key = "ygg_" + secrets.token_urlsafe(24)
        self.crowd_key = "ygg_" + secrets.token_urlsafe(24)
        keys = tmp / "keys.toml"

        def entry(name: str, key: str, extra: str) -> str:
            digest = hashlib.sha256(key.encode()).hexdigest()
            return f'[[keys]]\nname = "{name}"\nsha256 = "{digest}"\n{extra}\n'

        keys.write_text(
            entry(WELL_BEHAVED, self.key, 'decision_rate = "unlimited"\n')
            + entry(CROWD, self.crowd_key, 'streams = "unlimited"\n'),
            encoding="utf-8",
        )
        self.log_path = tmp / "server.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", "0", "--metrics-port", "0",
             "--store", "memory", "--log-level", "INFO", "--api-keys", str(keys),
             "--connection-idle-s", str(IDLE_S),
             # The well-behaved client plays games planned from their seeds: a bench lab.
             "--seed-choice", "anyone"],
            cwd=ROOT, stdout=self._log, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.proc.stderr is not None
        line = self.proc.stderr.readline()
        found = re.search(r"gRPC on [\d.]+:(\d+); metrics on http://[\d.]+:(\d+)", line)
        if not found:
            self.stop()
            raise RuntimeError(f"the server did not start: {line!r}")
        self.port, self.metrics_port = int(found[1]), int(found[2])

    def metric(self, name: str) -> float | None:
        body = urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10)
        for raw in body.read().decode().splitlines():
            if raw.startswith(name + " ") or raw.startswith(name + "{"):
                return float(raw.rsplit(" ", 1)[1])
        return None

    def rss_mib(self) -> float:
        text = Path(f"/proc/{self.proc.pid}/status").read_text()
        found = re.search(r"VmRSS:\s+(\d+) kB", text)
        return int(found[1]) / 1024 if found else 0.0

    def longest_log_line(self) -> int:
        self._log.flush()
        with self.log_path.open("rb") as handle:
            return max((len(line) for line in handle), default=0)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._log.close()


def _channel(server: Server, key: str | None = None, own: bool = True) -> grpc.aio.Channel:
    options: list[tuple[str, Any]] = [("grpc.use_local_subchannel_pool", 1)] if own else []
    return grpc.aio.insecure_channel(
        f"127.0.0.1:{server.port}", options=options, interceptors=key_interceptors(key)
    )


class Client:
    """The well-behaved client: a round is a ListGames, a spectator GetView of its game and
    one decision of its own game (a new game when one ends)."""

    def __init__(self, server: Server, plan: GamePlan) -> None:
        self.channel = _channel(server, server.key)
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)
        self.plan = plan
        self.game_id = ""
        self.tokens: list[str] = []
        self.step = 0

    async def new_game(self) -> None:
        options = game_pb2.GameOptions(player_count=4, seed=self.plan.seed)
        created = await self.stub.CreateGame(gs.CreateGameRequest(options=options), timeout=10)
        self.game_id = created.game_id
        self.tokens = [
            (
                await self.stub.JoinGame(
                    gs.JoinGameRequest(game_id=self.game_id, seat=seat), timeout=10
                )
            ).seat_token
            for seat in range(4)
        ]
        self.step = 0

    async def round(self, probe: Probe) -> None:
        calls: list[Callable[[], Awaitable[Any]]] = [
            lambda: self.stub.ListGames(gs.ListGamesRequest(page_size=10), timeout=10),
            lambda: self.stub.GetView(
                gs.GetViewRequest(game_id=self.game_id, spectator=gs.Spectator()), timeout=10
            ),
            self._decide,
        ]
        for call in calls:
            started = time.perf_counter()
            try:
                await call()
            except grpc.aio.AioRpcError as error:
                code = error.code()
                probe.errors[code.name if code else "UNKNOWN"] += 1
                continue
            probe.latencies.append(time.perf_counter() - started)

    async def _decide(self) -> None:
        if self.step >= len(self.plan.steps):
            await self.new_game()
        seat, index, version = self.plan.steps[self.step]
        await self.stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=self.game_id,
                seat_token=self.tokens[seat],
                legal_index=index,
                state_version=version,
                idempotency_key=f"{self.game_id}-{self.step}",
            ),
            timeout=10,
        )
        self.step += 1

    async def during(self, flood: Awaitable[Any], at_most_s: float) -> tuple[Probe, Any]:
        """Play rounds while ``flood`` runs (and at least one round)."""
        probe = Probe()
        task = asyncio.ensure_future(flood)
        deadline = time.monotonic() + at_most_s
        while True:
            await self.round(probe)
            if task.done() or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.01)
        return probe, await task


_LIMITS = {
    "open or in-progress games": "open_games",
    "new games a second": "create_rate",
    "decisions a second": "decision_rate",
    "streams open at once": "streams",
}


def _limit_of(error: grpc.aio.AioRpcError) -> str:
    """Which quota a RESOURCE_EXHAUSTED names (server.api.quotas' messages)."""
    details = error.details() or ""
    return next((name for text, name in _LIMITS.items() if text in details), "no quota")


# -- the floods -----------------------------------------------------------------------------


async def flood_creation(server: Server, client: Client, attempts: int, seconds: float) -> Row:
    async def flood() -> Counter[str]:
        outcome: Counter[str] = Counter()
        channel = _channel(server)  # anonymous
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        deadline = time.monotonic() + seconds
        sent = 0

        async def one() -> None:
            options = game_pb2.GameOptions(player_count=2)
            try:
                await stub.CreateGame(gs.CreateGameRequest(options=options), timeout=10)
                outcome["created"] += 1
            except grpc.aio.AioRpcError as error:
                code = error.code()
                name = code.name if code else "UNKNOWN"
                outcome[f"{name} ({_limit_of(error)})"] += 1

        while sent < attempts and time.monotonic() < deadline:
            batch = min(32, attempts - sent)
            await asyncio.gather(*(one() for _ in range(batch)))
            sent += batch
        await channel.close()
        return outcome

    probe, outcome = await client.during(flood(), seconds + 5)
    # The client with a key creates its games meanwhile: its own quota, not the flood's.
    created_own = 0
    for _ in range(3):
        await client.new_game()
        created_own += 1
    refused = sum(n for k, n in outcome.items() if k.startswith("RESOURCE_EXHAUSTED"))
    did = ", ".join(f"{n} {k}" for k, n in sorted(outcome.items()))
    ok = outcome["created"] <= 100 and refused > 0 and not probe.errors and created_own == 3
    return Row("game creation (one anonymous caller)", did, probe.summary(BASELINE), ok)


async def flood_idle(server: Server, client: Client, count: int, seconds: float) -> Row:
    sockets: list[socket.socket] = []

    async def flood() -> int:
        for _ in range(count):
            sock = socket.socket()
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect(("127.0.0.1", server.port))
            sockets.append(sock)
            if len(sockets) % 500 == 0:
                await asyncio.sleep(0)
        await asyncio.sleep(1.0)
        return len(sockets)

    probe, opened = await client.during(flood(), seconds)
    held = server.metric("yggdrasil_connections_open") or 0
    deadline = time.monotonic() + IDLE_S + 25
    closed = 0
    while time.monotonic() < deadline:
        closed = sum(1 for s in sockets if _closed(s))
        if closed == opened:
            break
        await asyncio.sleep(0.5)
    waited = time.monotonic() - (deadline - IDLE_S - 25)
    for sock in sockets:
        sock.close()
    did = (
        f"{opened} connections opened ({held:.0f} established at once); {closed} closed by the "
        f"server {waited:.0f} s after the last one opened (idle time {IDLE_S:.0f} s)"
    )
    ok = closed == opened and not probe.errors
    return Row("idle connections", did, probe.summary(BASELINE), ok)


def _closed(sock: socket.socket) -> bool:
    try:
        while True:
            if not sock.recv(65536):
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


async def _open_streams(
    stub: Any, request: gs.WatchGameRequest, count: int, read_first: bool = True
) -> tuple[list[Any], Counter[str]]:
    calls = [stub.WatchGame(request) for _ in range(count)]
    outcome: Counter[str] = Counter()
    kept = []
    for call in calls:
        if not read_first:
            kept.append(call)
            continue
        try:
            await asyncio.wait_for(call.read(), 30)
            outcome["open"] += 1
            kept.append(call)
        except grpc.aio.AioRpcError as error:
            code = error.code()
            outcome[code.name if code else "UNKNOWN"] += 1
        except TimeoutError:
            call.cancel()
            outcome["no answer in 30 s"] += 1
    return kept, outcome


async def flood_spectators(server: Server, client: Client, count: int, seconds: float) -> Row:
    channels = [_channel(server, server.crowd_key) for _ in range(-(-count // 100))]
    # Two connections: one holds at most 256 streams at once (max_streams_per_connection).
    anonymous = [_channel(server), _channel(server)]
    request = gs.WatchGameRequest(game_id=client.game_id, spectator=gs.Spectator())
    crowd: list[Any] = []
    outcome: Counter[str] = Counter()
    for i, channel in enumerate(channels):
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        kept, got = await _open_streams(stub, request, min(100, count - 100 * i))
        crowd += kept
        outcome += got
    # Anonymous streams past the anonymous quota (on another game: the crowd fills this one).
    other = await client.stub.CreateGame(
        gs.CreateGameRequest(options=game_pb2.GameOptions(player_count=2)), timeout=10
    )
    anon_request = gs.WatchGameRequest(game_id=other.game_id, spectator=gs.Spectator())
    anon: list[Any] = []
    anon_got: Counter[str] = Counter()
    for channel in anonymous:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        kept, got = await _open_streams(stub, anon_request, 150)
        anon += kept
        anon_got += got
    probe, _ = await client.during(asyncio.sleep(seconds), seconds + 5)
    for call in crowd + anon:
        call.cancel()
    for channel in [*channels, *anonymous]:
        await channel.close()
    did = (
        f"{count} spectators on one game: {outcome['open']} watching, "
        f"{outcome['RESOURCE_EXHAUSTED']} refused (per-game limit); 300 anonymous streams: "
        f"{anon_got['open']} open, {anon_got['RESOURCE_EXHAUSTED']} refused (stream quota)"
    )
    ok = (
        outcome["open"] == min(count, 1000)
        and outcome["RESOURCE_EXHAUSTED"] == max(0, count - 1000)
        and anon_got["open"] == 256
        and not probe.errors
    )
    return Row("spectators", did, probe.summary(BASELINE), ok)


async def flood_slow_readers(server: Server, client: Client, count: int, seconds: float) -> Row:
    channel = _channel(server, server.crowd_key)
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    request = gs.WatchGameRequest(
        game_id=client.game_id, spectator=gs.Spectator(), include_views=True
    )
    before = server.rss_mib()
    slow, _ = await _open_streams(stub, request, count, read_first=False)  # never read
    probe, _ = await client.during(asyncio.sleep(seconds), seconds + 5)
    during = server.rss_mib()
    for call in slow:
        call.cancel()
    await channel.close()
    did = (
        f"{count} streams with a view on every event that never read; server memory "
        f"{before:.0f} MiB before, {during:.0f} MiB with them"
    )
    ok = not probe.errors
    return Row("slow readers", did, probe.summary(BASELINE), ok)


async def flood_oversized(server: Server, client: Client, count: int, seconds: float) -> Row:
    async def flood() -> Counter[str]:
        outcome: Counter[str] = Counter()
        channel = _channel(server)
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        raw = channel.unary_unary(
            "/yggdrasil.v1.GameService/CreateGame",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        requests: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("900 KB name", lambda: stub.JoinGame(
                gs.JoinGameRequest(game_id=client.game_id, player_name="n" * 900_000))),
            ("300 KB game id", lambda: stub.GetView(
                gs.GetViewRequest(game_id="g" * 300_000, spectator=gs.Spectator()))),
            ("2 MB scenario", lambda: stub.CreateGame(
                gs.CreateGameRequest(scenario_json="x" * 2_000_000))),
            ("bytes that do not parse", lambda: raw(b"\xff\xff\xff\xff\x0f\x01")),
        ]  # fmt: skip
        deadline = time.monotonic() + seconds
        for i in range(count):
            if time.monotonic() > deadline:
                break
            name, call = requests[i % len(requests)]
            try:
                await call()
                outcome[f"{name}: OK"] += 1
            except grpc.aio.AioRpcError as error:
                code = error.code()
                outcome[f"{name}: {code.name if code else 'UNKNOWN'}"] += 1
        await channel.close()
        return outcome

    probe, outcome = await client.during(flood(), seconds + 5)
    longest = server.longest_log_line()
    did = "; ".join(f"{n} {k}" for k, n in sorted(outcome.items()))
    did += f"; the longest log line the server wrote: {longest} bytes"
    ok = (
        not any(k.endswith(": OK") or "UNKNOWN" in k or "INTERNAL" in k for k in outcome)
        and longest < 8192
        and not probe.errors
    )
    return Row("oversized fields", did, probe.summary(BASELINE), ok)


BASELINE: Probe | None = None


async def run(args: argparse.Namespace) -> list[Row]:
    global BASELINE
    with tempfile.TemporaryDirectory(prefix="ygg-abuse-") as tmp:
        server = Server(Path(tmp))
        try:
            client = Client(server, plan_games(1)[0])
            await client.new_game()
            BASELINE, _ = await client.during(asyncio.sleep(args.baseline_s), args.baseline_s)
            rows = [Row("(baseline, no flood)", "-", BASELINE.summary(None), not BASELINE.errors)]
            rows.append(await flood_creation(server, client, args.creates, args.seconds))
            rows.append(await flood_idle(server, client, args.idle, args.seconds))
            rows.append(await flood_spectators(server, client, args.spectators, args.seconds))
            rows.append(await flood_slow_readers(server, client, args.slow, args.seconds))
            rows.append(await flood_oversized(server, client, args.oversized, args.seconds))
            await client.channel.close()
        finally:
            server.stop()
    if not args.no_cluster:
        from bench.abuse_cluster import run_cluster  # (it imports this module's rows)

        rows += await run_cluster(args)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.abuse", description=__doc__)
    parser.add_argument("--seconds", type=float, default=6.0, help="each flood at most")
    parser.add_argument("--baseline-s", type=float, default=3.0, help="the baseline's length")
    parser.add_argument("--creates", type=int, default=3000, help="games the flood tries")
    parser.add_argument("--idle", type=int, default=5000, help="idle TCP connections")
    parser.add_argument("--spectators", type=int, default=1200, help="spectators on one game")
    parser.add_argument("--slow", type=int, default=200, help="streams that never read")
    parser.add_argument("--oversized", type=int, default=200, help="oversized requests")
    parser.add_argument(
        "--cluster-creates", type=int, default=60, help="cluster: creates of the quota floods"
    )
    parser.add_argument(
        "--cluster-forgeries", type=int, default=30, help="cluster: calls posing as a node"
    )
    parser.add_argument("--no-cluster", action="store_true", help="skip the cluster section")
    args = parser.parse_args(argv)
    raise_file_limit()  # the idle flood's connections are this process's descriptors too
    rows = asyncio.run(run(args))
    load = os.getloadavg()[0]
    print(
        f"make abuse: {len(rows) - 1} floods against one server and a local cluster "
        f"(machine load {load:.1f})"
    )
    for row in rows:
        mark = "ok  " if row.ok else "FAIL"
        print(f"\n{mark} {row.flood}\n     flood:  {row.did}\n     client: {row.client}")
    failed = [row.flood for row in rows if not row.ok]
    print("\n" + ("make abuse: every flood held back" if not failed else f"FAILED: {failed}"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
