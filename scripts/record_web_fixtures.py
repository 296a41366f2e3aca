"""Record the views the web client's unit tests render (clients/web/test/fixtures/*.json).

Plays one seeded 3-player game with seeded random choices on an in-process server (memory
store, a one-hour decision clock so views carry deadlines) and saves, as protobuf JSON:
the catalog; seat 0's and a spectator's view at the start of the draft; the first seat view
that may invade and march with figures on the board; the first one choosing a battle card;
the first one answering a prompt; the finished game as seat 0; and every event a spectator
is sent. Run it again after an API change and commit the result:

    .venv/bin/python scripts/record_web_fixtures.py
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import grpc.aio
from google.protobuf import json_format
from google.protobuf.message import Message

from server.config import ServerConfig
from server.main import start_server
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc as gs_grpc

OUT = Path(__file__).resolve().parent.parent / "clients" / "web" / "test" / "fixtures"
PLAYERS = 3
SEED = 5
CHOICES_SEED = 11


def save(name: str, message: Message) -> None:
    text = json_format.MessageToJson(message, indent=1, sort_keys=True)
    (OUT / f"{name}.json").write_text(text + "\n")
    print(f"record_web_fixtures: {name}.json")


def kinds(view: gp.View) -> set[str]:
    return {a.action.blood_rage.WhichOneof("kind") or "" for a in view.legal_actions}


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
            save("catalog", await stub.GetCatalog(gs.GetCatalogRequest()))
            options = gp.GameOptions(
                player_count=PLAYERS, seed=SEED, decision_time_limit_ms=3_600_000,
                seat_names=["Astrid", "Bjorn", "Cora"],
            )
            game_id = (await stub.CreateGame(gs.CreateGameRequest(options=options))).game_id
            tokens = []
            for seat in range(PLAYERS):
                reply = await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat))
                tokens.append(reply.seat_token)

            async def view_of(seat: int | None) -> gp.View:
                request = (
                    gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
                    if seat is None
                    else gs.GetViewRequest(game_id=game_id, seat_token=tokens[seat])
                )
                response: gs.GetViewResponse = await stub.GetView(request)
                return response.view

            save("draft-seat0", await view_of(0))
            save("draft-spectator", await view_of(None))
            wanted = {"action-seat", "battle-cards-seat", "prompt-seat"}
            rng = random.Random(CHOICES_SEED)
            while True:
                spectator = await view_of(None)
                if spectator.status != gp.GAME_STATUS_IN_PROGRESS:
                    break
                for seat in sorted(set(spectator.awaiting_seats) - set(spectator.committed_seats)):
                    view = await view_of(seat)
                    if not view.legal_actions:
                        continue
                    on_board = sum(
                        f.location == br.FIGURE_LOCATION_BOARD
                        for c in view.blood_rage.clans for f in c.figures
                    )
                    if "action-seat" in wanted and {"invade", "march"} <= kinds(view) \
                            and on_board >= 4:
                        wanted.discard("action-seat")
                        save("action-seat", view)
                    step = view.blood_rage.step
                    if "battle-cards-seat" in wanted and step == br.STEP_BATTLE_CARDS:
                        wanted.discard("battle-cards-seat")
                        save("battle-cards-seat", view)
                    if "prompt-seat" in wanted and view.blood_rage.HasField("prompt"):
                        wanted.discard("prompt-seat")
                        save("prompt-seat", view)
                    await stub.SubmitAction(gs.SubmitActionRequest(
                        game_id=game_id, seat_token=tokens[seat],
                        legal_index=rng.randrange(len(view.legal_actions)),
                        state_version=view.state_version,
                    ))
                    break
            if wanted:
                raise SystemExit(f"record_web_fixtures: this game never showed {sorted(wanted)}")
            save("finished-seat0", await view_of(0))
            stream = stub.WatchGame(gs.WatchGameRequest(
                game_id=game_id, spectator=gs.Spectator(), from_sequence=1))
            collected = [message async for message in stream if message.HasField("event")]
            save_events(collected)
    finally:
        await server.shutdown(0)


def save_events(messages: list[gs.WatchGameResponse]) -> None:
    """Every WatchGame message with an event, as a JSON list."""
    parts = [json_format.MessageToJson(m.event, indent=1, sort_keys=True) for m in messages]
    (OUT / "events.json").write_text("[\n" + ",\n".join(parts) + "\n]\n")
    print(f"record_web_fixtures: events.json ({len(parts)} events)")


if __name__ == "__main__":
    asyncio.run(record())
