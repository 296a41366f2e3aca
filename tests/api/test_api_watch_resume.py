"""The WatchGame resume contract, as a property over random games and random resume points.

The contract (WatchGameRequest in proto/yggdrasil/v1/game_service.proto): a stream resumed
from ``from_sequence`` first sends a view-only message whose view has ``last_sequence = B``,
the end of the newest group of events at or before ``from_sequence - 1`` (a group: one
claim's or one decision's events; a state, hence a view, exists only between groups; B is
``from_sequence - 1`` itself whenever a client resumes from ``View.last_sequence + 1``), then
every event after B, in order. With include_views, the last event of each group carries the
view after it (``view.last_sequence`` equal to that event's sequence), the others none.

What the test holds the server to, for every stream it opens:

* the first message is the view after exactly B, equal to the view GetView gave when the
  game stood at B (recorded while the game was played, one call at a time);
* then the events B + 1, B + 2, ... with no gap and no repeat, each equal to what a watcher
  that followed the game live received;
* applying those events in order onto the first view gives exactly the next views: every
  attached view is the recorded view at its event's sequence, and the part of a view that
  the events themselves describe (last_sequence, status, seats claimed and their names) is
  reproduced by applying the events (:func:`apply`) to the first view;
* ``last_sequence`` of the views never goes backwards and sequences strictly increase.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

import grpc.aio
import pytest
from api_support import Stub, create_game

from yggdrasil.v1 import fire_and_axe_pb2 as fa
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

SPECTATOR = -1
READ_TIMEOUT_S = 60.0  # a guard against a hang, generous for a loaded machine


@dataclass
class Envelope:
    """The part of a view the events spell out (what :func:`apply` tracks)."""

    last_sequence: int
    state_version: int
    status: int
    seats: list[tuple[bool, str]]

    @classmethod
    def of(cls, view: gp.View) -> Envelope:
        return cls(
            int(view.last_sequence),
            int(view.state_version),
            int(view.status),
            [(s.claimed, s.name) for s in sorted(view.seats, key=lambda s: s.seat)],
        )


def apply(envelope: Envelope, event: gp.Event) -> None:
    """What one event changes in a view, as far as the event tells: the view then ends at
    this event, is at the event's state version, and a claim or a status change shows."""
    envelope.last_sequence = int(event.sequence)
    envelope.state_version = int(event.state_version)
    kind = event.WhichOneof("payload")
    if kind == "seat_claimed":
        envelope.seats[event.seat_claimed.seat] = (True, event.seat_claimed.name)
    elif kind == "status_changed":
        envelope.status = int(event.status_changed.status)


@dataclass
class Played:
    """A game played one call at a time, with what every viewer could see at each step."""

    game_id: str
    players: int
    tokens: dict[int, str] = field(default_factory=dict)
    # viewer -> last_sequence -> the view GetView gave right after the call that ended there
    views: dict[int, dict[int, gp.View]] = field(default_factory=dict)
    # viewer -> sequence -> the event a live watcher (from_sequence 0) received
    events: dict[int, dict[int, gp.Event]] = field(default_factory=dict)
    ends: set[int] = field(default_factory=lambda: {0})  # the last sequence after each call
    live_from: dict[int, int] = field(default_factory=dict)  # viewer -> live watch start
    live: list[asyncio.Task[None]] = field(default_factory=list)

    def base_for(self, from_sequence: int) -> int:
        return max(e for e in self.ends if e <= from_sequence - 1)

    def event(self, viewer: int, sequence: int) -> gp.Event:
        """The event as ``viewer`` received it live; before a seat was claimed (its live
        watcher started then) only claims happened, public events: as a spectator got them."""
        if sequence <= self.live_from[viewer]:
            return self.events[SPECTATOR][sequence]
        return self.events[viewer][sequence]


def viewer_request(played: Played, viewer: int, **fields: Any) -> dict[str, Any]:
    if viewer == SPECTATOR:
        return {"game_id": played.game_id, "spectator": gs.Spectator(), **fields}
    return {"game_id": played.game_id, "seat_token": played.tokens[viewer], **fields}


async def record_views(stub: Stub, played: Played) -> None:
    """The views of every viewer now (the test is the only caller: nothing moves meanwhile)."""
    latest = -1
    for viewer in [SPECTATOR, *played.tokens]:
        reply = await stub.GetView(gs.GetViewRequest(**viewer_request(played, viewer)))
        view = reply.view
        played.views.setdefault(viewer, {})[int(view.last_sequence)] = view
        assert latest in (-1, view.last_sequence)
        latest = int(view.last_sequence)
    played.ends.add(latest)


def follow_live(stub: Stub, played: Played, viewer: int) -> None:
    """A watcher from now on (from_sequence 0), keeping every event it receives."""
    call = stub.WatchGame(gs.WatchGameRequest(**viewer_request(played, viewer)))
    received = played.events.setdefault(viewer, {})

    async def run() -> None:
        async for message in call:
            if not message.HasField("event"):  # its first message: what it joined at
                played.live_from[viewer] = int(message.sequence)
            else:
                assert message.sequence not in received
                received[int(message.sequence)] = message.event

    played.live.append(asyncio.ensure_future(run()))


async def more_decisions(stub: Stub, played: Played, rng: random.Random, count: int) -> None:
    """Up to ``count`` random legal decisions of random awaited seats, one call at a time."""
    for _ in range(count):
        spectator = played.views[SPECTATOR][max(played.views[SPECTATOR])]
        if spectator.status == gp.GAME_STATUS_FINISHED:
            return
        seat = rng.choice(
            [s for s in spectator.awaiting_seats if s not in spectator.committed_seats]
        )
        view = played.views[seat][int(spectator.last_sequence)]
        await stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=played.game_id,
                seat_token=played.tokens[seat],
                legal_index=rng.randrange(len(view.legal_actions)),
                state_version=view.state_version,
            )
        )
        await record_views(stub, played)


async def play(stub: Stub, seed: int, decisions: int, game: str = "blood_rage") -> Played:
    rng = random.Random(seed)
    players = rng.randint(2, 5)
    payload = (
        {"fire_and_axe": fa.FireAndAxeOptions()} if game == "fire_and_axe" else {}
    )  # every game's streams keep the same contract
    played = Played(await create_game(stub, players, seed=seed, **payload), players)
    follow_live(stub, played, SPECTATOR)
    await record_views(stub, played)
    for seat in rng.sample(range(players), players):  # claims in a random order
        name = rng.choice(["", f"p{seat}-{rng.randrange(100)}"])
        reply = await stub.JoinGame(
            gs.JoinGameRequest(game_id=played.game_id, seat=seat, player_name=name)
        )
        played.tokens[seat] = reply.seat_token
        follow_live(stub, played, seat)
        await record_views(stub, played)
    await more_decisions(stub, played, rng, decisions)
    return played


async def wait_for_live(played: Played) -> None:
    latest = max(played.ends)
    for _ in range(int(READ_TIMEOUT_S / 0.01)):
        if all(
            max(events, default=0) >= latest
            or (viewer != SPECTATOR and viewer not in played.tokens)
            for viewer, events in played.events.items()
        ):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the live watchers did not receive every event")


async def check_resume(
    stub: Stub, played: Played, viewer: int, from_sequence: int, include_views: bool
) -> int:
    """Open a stream resumed from ``from_sequence`` and hold it to the contract up to the
    game's latest event; returns the number of messages checked."""
    latest = max(played.ends)
    call = stub.WatchGame(
        gs.WatchGameRequest(
            **viewer_request(
                played, viewer, from_sequence=from_sequence, include_views=include_views
            )
        )
    )
    where = f"viewer {viewer}, from_sequence {from_sequence}, include_views {include_views}"
    try:
        first = await asyncio.wait_for(call.read(), READ_TIMEOUT_S)
        assert first is not grpc.aio.EOF, where
        base = played.base_for(from_sequence)
        assert not first.resync and not first.HasField("event"), where
        assert first.HasField("view"), where
        assert first.sequence == first.view.last_sequence == base, (
            f"{where}: the first view ends at {first.view.last_sequence} (message sequence "
            f"{first.sequence}), the newest group end at or before {from_sequence - 1} is {base}"
        )
        truth = played.views[viewer].get(base)
        if truth is not None:  # a seat's view from before it was claimed was never recorded
            assert first.view == truth, f"{where}: the first view is not the view at {base}"
        model = Envelope.of(first.view)
        last_seen = int(first.view.last_sequence)
        sequence = int(first.sequence)
        checked = 1
        while sequence < latest:
            message = await asyncio.wait_for(call.read(), READ_TIMEOUT_S)
            assert message is not grpc.aio.EOF, f"{where}: the stream ended at {sequence}"
            assert message.sequence == sequence + 1, (
                f"{where}: message {message.sequence} after {sequence} (a gap or a repeat)"
            )
            sequence = int(message.sequence)
            assert message.HasField("event") and not message.resync, where
            assert message.event == played.event(viewer, sequence), (
                f"{where}: event {sequence} differs from the one sent live"
            )
            apply(model, message.event)
            ends_group = sequence in played.ends
            assert message.HasField("view") == (include_views and ends_group), (
                f"{where}: event {sequence} (group end: {ends_group}) view attached: "
                f"{message.HasField('view')}"
            )
            if message.HasField("view"):
                view = message.view
                assert view.last_sequence >= last_seen, f"{where}: last_sequence went back"
                last_seen = int(view.last_sequence)
                assert view.last_sequence == sequence, (
                    f"{where}: the view attached to event {sequence} ends at {view.last_sequence}"
                )
                then = played.views[viewer].get(sequence)
                assert then is None or view == then, (
                    f"{where}: the view attached to event {sequence} is not the view then"
                )
                assert Envelope.of(view) == model, (
                    f"{where}: applying events {base + 1}..{sequence} onto the first view "
                    f"gives {model}, the view at {sequence} says {Envelope.of(view)}"
                )
            checked += 1
        # Whatever the stream showed, the events applied onto the first view end where the
        # game is now.
        now = played.views[viewer][latest]
        assert Envelope.of(now) == model, f"{where}: {model} after every event, now {now}"
        return checked
    finally:
        call.cancel()


def resume_points(played: Played, rng: random.Random, count: int) -> list[int]:
    """Random points, and the edges: the first event, just after the last, group ends."""
    latest = max(played.ends)
    ends = sorted(played.ends)
    points = {1, latest + 1}
    points |= {rng.randint(1, latest + 1) for _ in range(count)}
    points |= {rng.choice(ends) + 1 for _ in range(count // 2)}
    return sorted(points)


async def check_random_resumes(stub: Stub, played: Played, rng: random.Random, count: int) -> int:
    await wait_for_live(played)
    checked = 0
    viewers = [SPECTATOR, *played.tokens]
    for point in resume_points(played, rng, count):
        viewer = rng.choice(viewers)
        checked += await check_resume(stub, played, viewer, point, rng.random() < 0.7)
    return checked


@pytest.mark.parametrize(
    ("game", "seed"),
    [*(("blood_rage", s) for s in (1, 2, 3, 4)), ("fire_and_axe", 5), ("fire_and_axe", 6)],
)
async def test_resumed_streams_apply_onto_their_first_view(
    stub: Stub, game: str, seed: int
) -> None:
    """Random games, resumed at random points while they go on and once they are over."""
    rng = random.Random(1000 + seed)
    played = await play(stub, seed, decisions=rng.randint(30, 60), game=game)
    checked = await check_random_resumes(stub, played, rng, 12)
    assert checked > 50
    # More of the same game, then resume again (the earlier resume points now lie further
    # back: their views are replayed from the log).
    await more_decisions(stub, played, rng, 40)
    checked = await check_random_resumes(stub, played, rng, 12)
    assert checked > 50
    for task in played.live:
        task.cancel()
