"""What TLS costs a client (issue 27): ``python -m bench.tls_bench``.

Two servers in one process, one plaintext and one serving TLS (a throwaway certificate), each
with a game to look at. In alternating rounds, so that load from elsewhere falls on both
alike, it measures on each: unary GetView calls on one open channel (the steady cost: record
encryption), and new connections each making one call (the handshake). Each TLS figure is
reported as a ratio to the plaintext one of the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from clients.connection import ClientTls, open_channel, stub_for
from localcluster.certs import Authority
from server.config import ServerConfig
from server.main import RunningServer, start_server
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


@dataclass(frozen=True)
class TlsCost:
    calls_per_s_plain: float
    calls_per_s_tls: float
    connect_ms_plain: float
    connect_ms_tls: float

    def rows(self) -> list[tuple[str, str, str]]:
        return [
            (
                "GetView on an open channel",
                f"{self.calls_per_s_tls:,.0f}/s over TLS, {self.calls_per_s_plain:,.0f}/s plain",
                f"{self.calls_per_s_tls / self.calls_per_s_plain:.2f}x the plaintext rate",
            ),
            (
                "a new connection and its first call",
                f"{self.connect_ms_tls:.1f} ms over TLS, {self.connect_ms_plain:.1f} ms plain",
                f"{self.connect_ms_tls / self.connect_ms_plain:.2f}x the plaintext time",
            ),
        ]


async def _server(**tls: object) -> RunningServer:
    config = ServerConfig(port=0, metrics_port=-1, store="memory", **tls)  # type: ignore[arg-type]
    return await start_server(config, metrics=Metrics(new_registry(process_collectors=False)))


async def _calls(address: str, tls: ClientTls | None, game_id: str, seconds: float) -> float:
    """Unary GetView calls per second on one channel, 8 in flight."""
    async with open_channel(address, tls=tls) as channel:
        stub = stub_for(channel)
        request = gs.GetViewRequest(game_id=game_id)
        await stub.GetView(request)  # connected
        done = 0
        end = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < end:
                await stub.GetView(request)
                done += 1

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(8)))
        return done / (time.perf_counter() - start)


async def _connect_ms(address: str, tls: ClientTls | None, game_id: str, count: int) -> float:
    """Median milliseconds from a new channel to the answer of its first call."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        async with open_channel(address, tls=tls) as channel:
            await stub_for(channel).GetView(gs.GetViewRequest(game_id=game_id))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def measure(rounds: int = 3, seconds: float = 2.0, connections: int = 50) -> TlsCost:
    with tempfile.TemporaryDirectory(prefix="tls-bench-") as tmp:
        authority = Authority("bench CA")
        cert, key = authority.issue("localhost").write(Path(tmp), "server")
        ca = authority.write_ca(Path(tmp) / "ca.pem")
        plain = await _server()
        secure = await _server(tls_cert=cert, tls_key=key)
        try:
            sides = {
                "plain": (f"127.0.0.1:{plain.port}", None),
                "tls": (f"localhost:{secure.port}", ClientTls(ca)),
            }
            games = {}
            for name, (address, tls) in sides.items():
                async with open_channel(address, tls=tls) as channel:
                    created = await stub_for(channel).CreateGame(
                        gs.CreateGameRequest(options=gp.GameOptions(player_count=3))
                    )
                games[name] = created.game_id
            rates: dict[str, list[float]] = {"plain": [], "tls": []}
            connects: dict[str, list[float]] = {"plain": [], "tls": []}
            for _ in range(rounds):
                for name, (address, tls) in sides.items():
                    rates[name].append(await _calls(address, tls, games[name], seconds))
                    connects[name].append(
                        await _connect_ms(address, tls, games[name], connections)
                    )
        finally:
            await plain.shutdown(0)
            await secure.shutdown(0)
    return TlsCost(
        statistics.median(rates["plain"]),
        statistics.median(rates["tls"]),
        statistics.median(connects["plain"]),
        statistics.median(connects["tls"]),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tls_bench", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="per round and side")
    parser.add_argument("--connections", type=int, default=50, help="per round and side")
    args = parser.parse_args(argv)
    configure_logging("WARNING")
    cost = asyncio.run(measure(args.rounds, args.seconds, args.connections))
    for what, figures, ratio in cost.rows():
        print(f"{what:40} {figures:50} {ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
