"""Record the Fire & Axe views the web client's unit tests render (clients/web/test/fixtures/
fae-*.json).

Plays one seeded 2-player game on an in-process server (memory store) with the heuristic bot
on both seats and saves, as protobuf JSON: the catalog (the demo pack); seat 0's view in the
Wintering Zone at the start; the first seat-0 view at sea with a Sail and a Task to choose
from, goods traded and a town taken on the board; a spectator's view of that
moment; the finished game as seat 0; and every event a spectator is sent. Run it again after
an API change and commit the result:

    .venv/bin/python scripts/record_web_fae_fixtures.py
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import grpc.aio
from google.protobuf import json_format
from google.protobuf.message import Message

from clients.fire_and_axe.bots.heuristic import HeuristicBot
from server.config import ServerConfig
from server.main import start_server
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc as gs_grpc

OUT = Path(__file__).resolve().parent.parent / "clients" / "web" / "test" / "fixtures"
SEED = 11


def save(name: str, message: Message) -> None:
    text = json_format.MessageToJson(message, indent=1, sort_keys=True)
    (OUT / f"{name}.json").write_text(text + "\n")
    print(f"record_web_fae_fixtures: {name}.json")


def kinds(view: gp.View) -> set[str]:
    return {a.action.fire_and_axe.WhichOneof("kind") or "" for a in view.legal_actions}


def interesting(view: gp.View) -> bool:
    """At sea with a Sail and a Task to choose, goods and a taken town on the board."""
    fae = view.fire_and_axe
    board = [p for p in fae.ports if p.goods] and any(s.towns for s in fae.seats)
    tasks = kinds(view) & {"trade", "raid", "settle"}
    return bool(board and tasks and "sail" in kinds(view))


async def record() -> None:
    configure_logging("WARNING")
    OUT.mkdir(parents=True, exist_ok=True)
    server = await start_server(
        ServerConfig(port=0, metrics_port=-1, store="memory"),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = gs_grpc.GameServiceStub(channel)
            save("fae-catalog", await stub.GetCatalog(gs.GetCatalogRequest(kind=2)))  # type: ignore[arg-type]
            options = gp.GameOptions(player_count=2, seed=SEED, seat_names=["Astrid", "Bjorn"])
            options.fire_and_axe.SetInParent()
            game_id = (await stub.CreateGame(gs.CreateGameRequest(options=options))).game_id
            tokens = [
                (await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=s))).seat_token
                for s in range(2)
            ]

            async def view_of(seat: int | None, state: bool = False) -> gp.View:
                request = (
                    gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
                    if seat is None
                    else gs.GetViewRequest(
                        game_id=game_id, seat_token=tokens[seat], include_engine_state=state
                    )
                )
                response: gs.GetViewResponse = await stub.GetView(request)
                return response.view

            save("fae-start-seat0", await view_of(0))
            bot = HeuristicBot()
            rng = random.Random(SEED)
            wanted = True
            while True:
                spectator = await view_of(None)
                if spectator.status != gp.GAME_STATUS_IN_PROGRESS:
                    break
                seat = spectator.awaiting_seats[0]
                view = await view_of(seat, state=True)
                if wanted and seat == 0 and interesting(view):
                    wanted = False
                    save("fae-sea-seat0", await view_of(0))
                    save("fae-sea-spectator", spectator)
                engine = json.loads(view.fire_and_axe.engine_state_json)
                choice = bot.choose(
                    {
                        "viewer": seat,
                        "engine_state": engine,
                        "legal_actions": [{"code": a.code} for a in view.legal_actions],
                    },
                    rng,
                )
                await stub.SubmitAction(
                    gs.SubmitActionRequest(
                        game_id=game_id,
                        seat_token=tokens[seat],
                        legal_index=choice,
                        state_version=view.state_version,
                    )
                )
            if wanted:
                raise SystemExit("record_web_fae_fixtures: the game never showed the view wanted")
            save("fae-finished-seat0", await view_of(0))
            stream = stub.WatchGame(
                gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator(), from_sequence=1)
            )
            collected = [m async for m in stream if m.HasField("event")]
            parts = [
                json_format.MessageToJson(m.event, indent=1, sort_keys=True) for m in collected
            ]
            (OUT / "fae-events.json").write_text("[\n" + ",\n".join(parts) + "\n]\n")
            print(f"record_web_fae_fixtures: fae-events.json ({len(parts)} events)")
    finally:
        await server.shutdown(0)


if __name__ == "__main__":
    asyncio.run(record())
