"""Follow one request through the server and print the path it takes, module by module.

``python scripts/request_path.py`` starts a server in this process (the SQLite store, in a
temporary directory), plays a 3-player game to its action phase, then traces one SubmitAction
and one PlaySession decision with :func:`sys.setprofile`: every call into a module of ours is
a stop, consecutive calls in one module are one stop, and the rules (any ``engine`` module)
count as one module. It prints, per request, the stops in order, how many modules they visit,
and how many times the path comes back to a module it had already left.

A path that reads top-down (the API checks the call, the hosted game checks and applies it
through the rules, the store records it, the events go out) visits each module once or twice;
docs/architecture.md quotes these figures. ``--json`` prints them as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import types
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from server.config import ServerConfig  # noqa: E402
from server.main import open_store, start_server  # noqa: E402
from yggdrasil.v1 import game_pb2 as gp  # noqa: E402
from yggdrasil.v1 import game_service_pb2 as gs  # noqa: E402
from yggdrasil.v1 import game_service_pb2_grpc  # noqa: E402

_OURS = tuple(str(ROOT / p) + "/" for p in ("server", "protocol", "engine"))


def _module_of(code: types.CodeType) -> str | None:
    filename = code.co_filename
    if not filename.startswith(_OURS):
        return None
    relative = Path(filename).relative_to(ROOT).with_suffix("")
    if relative.parts[0] == "engine":
        return "engine (the rules)"
    return ".".join(relative.parts)


@dataclass
class Path_:
    """The modules one request stopped in, in order."""

    request: str
    stops: list[str] = field(default_factory=list)

    @property
    def modules(self) -> int:
        return len(set(self.stops))

    @property
    def returns(self) -> int:
        """Stops in a module the path had already left."""
        seen: set[str] = set()
        count = 0
        for stop in self.stops:
            if stop in seen:
                count += 1
            seen.add(stop)
        return count


class _Tracer:
    def __init__(self) -> None:
        self.path: Path_ | None = None

    def __call__(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if event != "call" or self.path is None:
            return
        module = _module_of(frame.f_code)
        if module is not None and (not self.path.stops or self.path.stops[-1] != module):
            self.path.stops.append(module)

    def start(self, request: str) -> None:
        self.path = Path_(request)
        sys.setprofile(self)

    def stop(self) -> Path_:
        sys.setprofile(None)
        path, self.path = self.path, None
        assert path is not None
        return path


def _quiet() -> None:
    """Logs at WARNING: the INFO line of every decision is not what is being followed."""
    try:
        from server.ops.logs import configure_logging
    except ImportError:  # the layout before server/ was in rooms (to measure it too)
        from server.logs import configure_logging  # type: ignore[import-not-found,no-redef]
    configure_logging("WARNING")


async def _trace() -> list[Path_]:
    _quiet()
    tracer = _Tracer()
    with tempfile.TemporaryDirectory() as tmp:
        config = ServerConfig(port=0, metrics_port=-1, data_dir=Path(tmp), store="sqlite")
        running = await start_server(config, store=open_store(config), owns_store=True)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                options = gp.GameOptions(player_count=3, seed=5)
                game = (await stub.CreateGame(gs.CreateGameRequest(options=options))).game_id
                tokens = [
                    (await stub.JoinGame(gs.JoinGameRequest(game_id=game, seat=s))).seat_token
                    for s in range(3)
                ]

                async def view(seat: int) -> gp.View:
                    request = gs.GetViewRequest(game_id=game, seat_token=tokens[seat])
                    return (await stub.GetView(request)).view

                async def first_awaited() -> tuple[int, gp.View]:
                    spectator = (await stub.GetView(gs.GetViewRequest(game_id=game))).view
                    seat = spectator.awaiting_seats[0]
                    return seat, await view(seat)

                # Play on to a decision outside the draft (the action phase), warm caches.
                while True:
                    seat, v = await first_awaited()
                    if not v.committed_seats and len(v.awaiting_seats) == 1:
                        break
                    for s in v.awaiting_seats:
                        if s in v.committed_seats:
                            continue
                        mine = await view(s)
                        await stub.SubmitAction(
                            gs.SubmitActionRequest(
                                game_id=game,
                                seat_token=tokens[s],
                                legal_index=0,
                                state_version=mine.state_version,
                            )
                        )
                paths = []
                tracer.start("SubmitAction")
                await stub.SubmitAction(
                    gs.SubmitActionRequest(
                        game_id=game,
                        seat_token=tokens[seat],
                        legal_index=0,
                        state_version=v.state_version,
                        idempotency_key="trace-1",
                    )
                )
                paths.append(tracer.stop())
                seat, v = await first_awaited()
                session = stub.PlaySession()
                await session.write(
                    gs.PlaySessionRequest(
                        open=gs.PlayOpen(game_id=game, seat_token=tokens[seat])
                    )
                )
                first = await session.read()
                while not first.legal_actions:
                    first = await session.read()
                hosted = running.games.games[game]  # read below by attribute: no call traced
                tracer.start("PlaySession decision")
                await session.write(
                    gs.PlaySessionRequest(
                        decision=gs.PlayDecision(
                            legal_index=0,
                            state_version=first.state_version,
                            idempotency_key="trace-2",
                        )
                    )
                )
                # The session answers when the seat must decide again; the decision is done
                # once the game's state has moved on.
                while hosted.state.version == first.state_version:
                    await asyncio.sleep(0.001)
                paths.append(tracer.stop())
                await session.done_writing()
                session.cancel()
                return paths
        finally:
            await running.shutdown(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    paths = asyncio.run(_trace())
    if args.json:
        print(
            json.dumps(
                [{**asdict(p), "modules": p.modules, "returns": p.returns} for p in paths],
                indent=1,
            )
        )
        return 0
    for p in paths:
        print(f"{p.request}: {len(p.stops)} stops in {p.modules} modules, {p.returns} returns")
        for i, stop in enumerate(p.stops, 1):
            print(f"  {i:3d} {stop}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
