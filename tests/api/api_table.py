"""A scenario game played seat by seat through the gRPC API (imported as a plain module).

Tests of rules and event contents build a position with ``CreateGame(scenario_json=...)``,
claim every seat, and act by the labels of the legal actions a seat's view offers, as a
frontend would. Every event each decision returns (filtered for the deciding seat) is kept in
order, and the public ones can be read back by kind.
"""

from __future__ import annotations

import json
from typing import Any

from api_support import ADMIN_TOKEN, Stub, join_all, seat_view, spectator_view

from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


class Table:
    """One hosted scenario game and every seat's token."""

    def __init__(self, stub: Stub, game_id: str, tokens: list[str]) -> None:
        self.stub = stub
        self.game_id = game_id
        self.tokens = tokens
        self.events: list[gp.Event] = []

    @classmethod
    async def create(cls, stub: Stub, scenario: dict[str, Any]) -> Table:
        reply = await stub.CreateGame(
            gs.CreateGameRequest(scenario_json=json.dumps(scenario), admin_token=ADMIN_TOKEN)
        )
        tokens = await join_all(stub, reply.game_id, int(scenario["players"]))
        return cls(stub, reply.game_id, tokens)

    async def view(self, seat: int | None = None) -> gp.View:
        if seat is None:
            return await spectator_view(self.stub, self.game_id)
        return await seat_view(self.stub, self.game_id, self.tokens[seat])

    async def labels(self, seat: int) -> list[str]:
        return [a.label for a in (await self.view(seat)).legal_actions]

    async def act(self, seat: int, label: str) -> list[gp.Event]:
        """The seat takes the first legal action whose label starts with ``label``; returns
        the events of that decision (as the seat sees them)."""
        view = await self.view(seat)
        matches = [a for a in view.legal_actions if a.label.startswith(label)]
        legal = [a.label for a in view.legal_actions]
        assert matches, f"seat {seat} may not {label!r}; legal: {legal}"
        reply = await self.stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=self.game_id,
                seat_token=self.tokens[seat],
                legal_index=matches[0].index,
                state_version=view.state_version,
            )
        )
        self.events.extend(reply.events)
        return list(reply.events)

    async def decline_calls(self) -> None:
        """Every seat asked to answer the Call to Battle declines."""
        while True:
            view = await self.view()
            if view.blood_rage.step != br.STEP_CALL_TO_BATTLE:
                return
            await self.act(view.awaiting_seats[0], "decline")

    def of_kind(self, kind: str) -> list[Any]:
        """The Blood Rage events of one kind (``glory_changed``, ``ragnarok``, …), in order."""
        return [
            getattr(e.blood_rage, kind)
            for e in self.events
            if e.WhichOneof("payload") == "blood_rage" and e.blood_rage.WhichOneof("kind") == kind
        ]
