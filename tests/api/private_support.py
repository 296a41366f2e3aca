"""What the private-game tests share (issue 27, point 2): a keys file with players, a
stranger and an admin, and channels that carry one of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from clients.connection import open_channel, stub_for
from server.api.identity import hash_key
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

KEYS = {
    "alice": "ygg_alice-key-for-private-games-0123456789",
    "bob": "ygg_bob-key-for-private-games-0123456789ab",
    "mallory": "ygg_mallory-key-for-private-games-01234567",
    "lead": "ygg_lead-key-for-private-games-0123456789a",
}


def keys_file(path: Path) -> Path:
    entries = []
    for name, key in KEYS.items():
        role = "admin" if name == "lead" else "player"
        entries.append(f'[[keys]]\nname = "{name}"\nrole = "{role}"\nsha256 = "{hash_key(key)}"\n')
    path.write_text("\n".join(entries), encoding="utf-8")
    return path


class Caller:
    """A channel to ``address`` as one of KEYS (None: anonymous)."""

    def __init__(self, address: str, who: str | None) -> None:
        self.channel = open_channel(address, api_key=KEYS[who] if who else None)
        self.stub: Any = stub_for(self.channel)

    async def close(self) -> None:
        await self.channel.close()


def private_request(
    players: int = 3,
    *,
    unlisted: bool = True,
    keys: dict[int, str] | None = None,
    codes: tuple[int, ...] = (),
) -> gs.CreateGameRequest:
    reservations = [gs.SeatReservation(seat=s, api_key_name=n) for s, n in (keys or {}).items()]
    reservations += [gs.SeatReservation(seat=s, join_code=True) for s in codes]
    return gs.CreateGameRequest(
        options=gp.GameOptions(player_count=players),
        access=gs.GameAccess(unlisted=unlisted, reservations=reservations),
    )


async def listed_ids(caller: Caller) -> set[str]:
    reply = await caller.stub.ListGames(gs.ListGamesRequest(page_size=500))
    return {g.game_id for g in reply.games}


async def refused(call: Any, request: Any) -> grpc.aio.AioRpcError:
    try:
        await call(request)
    except grpc.aio.AioRpcError as error:
        return error
    raise AssertionError(f"{request} was not refused")
