"""Machinery of the soak tests (imported as a plain module: tests/ has no packages).

A soak run starts ``python -m server`` as a subprocess on 127.0.0.1 (a free port, kept across
restarts), creates many seeded four-player games and lets every seat play through the SDK
(``clients.sdk.BotClient``: most seats over a PlaySession stream, every fifth over WatchGame,
GetView and SubmitAction; its own reconnects), with a mix of bots (random, jittery, heuristic,
and sluggish ones that now and then think past the game's decision time limit), seats whose
streams the test cuts at random, and one watcher per game that disconnects and resumes from a
sequence number again and again. Optionally the server is restarted (SIGTERM and SIGKILL
mixed) while the games run.

Everything a client receives is recorded (as bytes) and checked once the games are over:
results against an in-process engine replay, stream continuity, and that no seat saw another
seat's secrets. A supervisor polls every unfinished game; a game that stops moving, or a run
past its deadline, fails with a description of every stuck seat and what it was waiting for.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import random
import re
import signal
import sys
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar, cast

import grpc
import grpc.aio
from google.protobuf.message import Message

from clients.blood_rage.bots.heuristic import HeuristicBot
from clients.bots.base import Bot, RandomBot, View
from clients.sdk import BotClient, Result
from engine.blood_rage.determinize import redacted_snapshot
from engine.blood_rage.results import result as engine_result
from engine.blood_rage.state import GameState
from protocol.replay_json import replay_from_response, verify_replay
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

Stub = Any  # GameServiceAsyncStub (the generated stub types its methods loosely)
T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = 4
_READY = re.compile(r"gRPC on [\d.]+:(\d+)")
# What a client sees while the server is down, stopping or coming back.
RECOVERABLE = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
)
# Like the SDK's channels: a pool of their own, quick reconnects to a restarted server.
CHANNEL_OPTIONS = [
    ("grpc.use_local_subchannel_pool", 1),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
]
# The SDK's acknowledged decisions in a four-player game are about 180-220 (the rest are
# timeouts); the restarts are spread over this many per game.
DECISIONS_PER_GAME = 150


def env_int(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    return int(text) if text else default


def env_float(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    return float(text) if text else default


# ============================================================================================
# The API tests' helpers (tests/api/api_support.py), reused: replay and secrecy checks
# ============================================================================================


def _load_api_support() -> ModuleType:
    """``tests/api/api_support.py`` under its own module name (the same module object the API
    tests import when both run in one session)."""
    name = "api_support"
    module = sys.modules.get(name)
    if module is None:
        path = ROOT / "tests" / "api" / "api_support.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


_api = _load_api_support()
card_instances: Callable[[Message], set[int]] = _api.card_instances
text_instances: Callable[[str], set[int]] = _api.text_instances
publicly_shown: Callable[[gp.Event], set[int]] = _api.publicly_shown
others_secrets: Callable[[list[GameState], dict[int, set[int]]], Any] = _api.OthersSecrets
replay_states: Callable[[gs.GetReplayResponse], list[GameState]] = _api.replay_states
message_version: Callable[[Message], int] = _api.message_version


# ============================================================================================
# The server process
# ============================================================================================


class SoakServer:
    """``python -m server`` on 127.0.0.1: port 0 the first time, the same port after each
    restart (so the SDK's clients find it again). Its log lines are scanned for errors."""

    def __init__(self, store: str, data_dir: Path) -> None:
        self.store = store
        self.data_dir = data_dir
        self.port = 0
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.signals: list[str] = []  # restarts, by signal
        self.down_seconds: list[float] = []  # signal sent -> serving again
        self.problems: list[str] = []  # ERROR lines, tracebacks, bad exit codes
        self.warnings: Counter[str] = Counter()  # WARNING events by name
        self.tail: deque[str] = deque(maxlen=40)
        self.restarted_at = 0.0
        self._drain: asyncio.Task[None] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def start(self) -> None:
        command = [
            sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(self.port),
            "--metrics-port", "-1", "--store", self.store, "--data-dir", str(self.data_dir),
            "--snapshot-every", "7", "--log-level", "WARNING",
            # The soak's one client plays every game at once: no per-caller quotas; and it
            # checks each replay against the seed it asked for (a bot lab's seeds deal).
            "--anonymous-quota", "unlimited", "--seed-choice", "anyone",
        ]  # fmt: skip
        process = await asyncio.create_subprocess_exec(
            *command, cwd=ROOT, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
        )
        self.process = process
        assert process.stderr is not None
        while True:
            try:
                raw = await asyncio.wait_for(process.stderr.readline(), 90)
            except TimeoutError:
                process.kill()
                raise AssertionError("the server did not report its port within 90 s") from None
            line = raw.decode(errors="replace").rstrip()
            if not raw:
                code = await process.wait()
                tail = "\n".join(self.tail)
                raise AssertionError(f"the server exited ({code}) before it was ready:\n{tail}")
            self._note(line)
            match = _READY.search(line)
            if match:
                self.port = int(match[1])
                break
        self._drain = asyncio.create_task(self._drain_stderr(process))
        self.starts += 1

    def _note(self, line: str) -> None:
        self.tail.append(line)
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if isinstance(record, dict):
            level = str(record.get("level", "")).lower()
            if level in ("error", "critical"):
                self.problems.append(f"server log: {line}")
            elif level == "warning":
                self.warnings[str(record.get("event", "?"))] += 1
        elif "Traceback" in line or "out of service" in line:
            self.problems.append(f"server stderr: {line}")

    async def _drain_stderr(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        while raw := await process.stderr.readline():
            self._note(raw.decode(errors="replace").rstrip())

    async def stop(self, sig: signal.Signals = signal.SIGTERM) -> int:
        """Send ``sig`` and wait for the process to exit (SIGKILL after 30 s: a failure)."""
        process = self.process
        assert process is not None
        if process.returncode is None:
            process.send_signal(sig)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                self.problems.append(f"the server did not exit within 30 s of {sig.name}")
                process.kill()
                await process.wait()
        if self._drain is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._drain, 10)
        code = process.returncode
        assert code is not None
        if sig == signal.SIGTERM and code != 0:
            self.problems.append(f"the server exited with {code} after SIGTERM")
        return code

    async def restart(self, sig: signal.Signals) -> None:
        started = time.monotonic()
        await self.stop(sig)
        await self.start()
        self.signals.append(sig.name)
        self.down_seconds.append(time.monotonic() - started)
        self.restarted_at = time.monotonic()

    async def close(self) -> None:
        if self.running:
            await self.stop(signal.SIGTERM)


async def call_retrying(rpc: Callable[[], Awaitable[T]], attempts: int = 40) -> T:
    """One RPC, retried while the server is away (restarting)."""
    for attempt in range(attempts):
        try:
            return await rpc()
        except grpc.aio.AioRpcError as error:
            if error.code() not in RECOVERABLE or attempt == attempts - 1:
                raise
        await asyncio.sleep(0.25)
    raise AssertionError("unreachable")


def open_channel(address: str) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)


def stub_for(channel: grpc.aio.Channel) -> Stub:
    return game_service_pb2_grpc.GameServiceStub(channel)


# ============================================================================================
# Bots
# ============================================================================================


class JitterBot:
    """Random, thinking 0-20 ms (in the SDK's worker thread) to vary the interleavings."""

    name = "jitter"

    def choose(self, view: View, rng: random.Random) -> int:
        time.sleep(rng.uniform(0.0, 0.02))
        return rng.randrange(len(view["legal_actions"]))


class SluggishBot:
    """Usually quick, but now and then thinks past the game's decision time limit (so the
    server applies its default and the SDK's late answer is refused as stale)."""

    name = "sluggish"

    def __init__(self, limit_ms: int, chance: float) -> None:
        self.limit_s = limit_ms / 1000.0
        self.chance = chance

    def choose(self, view: View, rng: random.Random) -> int:
        if rng.random() < self.chance:
            time.sleep(self.limit_s * rng.uniform(1.1, 1.6))
        return rng.randrange(len(view["legal_actions"]))


def make_bot(kind: str, limit_ms: int) -> Bot:
    if kind == "random":
        return RandomBot()
    if kind == "jitter":
        return JitterBot()
    if kind == "heuristic":
        return HeuristicBot()
    if kind == "sluggish":
        return SluggishBot(limit_ms, 0.15)
    raise ValueError(kind)


# ============================================================================================
# What a client received
# ============================================================================================


@dataclass
class Received:
    """Everything one client received, serialized, for the checks after the game."""

    messages: list[tuple[str, bytes]] = field(default_factory=list)  # (kind, bytes)
    # Every WatchGame message (PlaySession: every event, or the message if it has none) in
    # order: (stream number, sequence, carries an event, resync).
    stream: list[tuple[int, int, bool, bool]] = field(default_factory=list)
    # Refused decisions: the version seen when refused, the refusal's text.
    errors: list[tuple[int, str]] = field(default_factory=list)
    streams: int = 0  # WatchGame or PlaySession calls opened
    cut: int = 0  # streams the test cut
    last_sequence: int = -1
    last_message_at: float = 0.0

    def add(self, kind: str, message: Message) -> None:
        self.messages.append((kind, message.SerializeToString()))

    def played(self, message: gs.PlaySessionResponse) -> None:
        """A PlaySession message: its events enter the stream record one by one (a message
        without events stands for the stream's head, like a view-only WatchGame message)."""
        self.add("play", message)
        if message.events:
            for event in message.events:
                self.stream.append((self.streams, int(event.sequence), True, False))
        else:
            self.stream.append((self.streams, int(message.sequence), False, message.resync))
        for answer in message.answers:
            if answer.code:
                self.errors.append((int(message.state_version), answer.message))
        self.last_sequence = int(message.sequence)
        self.last_message_at = time.monotonic()

    def watched(self, message: gs.WatchGameResponse) -> None:
        self.add("watch", message)
        self.stream.append(
            (self.streams, int(message.sequence), message.HasField("event"), message.resync)
        )
        self.last_sequence = int(message.sequence)
        self.last_message_at = time.monotonic()

    def describe_stream(self, now: float) -> str:
        if not self.last_message_at:
            return "no stream message yet"
        age = now - self.last_message_at
        return f"last stream message: sequence {self.last_sequence}, {age:.1f} s ago"


def _watch_message(payload: bytes) -> gs.WatchGameResponse:
    message = gs.WatchGameResponse()
    message.ParseFromString(payload)
    return message


def parse(kind: str, payload: bytes) -> Message:
    cls: type[Message] = {
        "watch": gs.WatchGameResponse,
        "view": gs.GetViewResponse,
        "submit": gs.SubmitActionResponse,
        "play": gs.PlaySessionResponse,
    }[kind]
    message = cls()
    message.ParseFromString(payload)
    return message


class _RecordingCall:
    """A WatchGame call whose messages are recorded; with ``cut_chance`` the test cuts the
    stream before a read (cancelled, EOF to the SDK, which then resumes from its sequence)."""

    def __init__(
        self, inner: Any, received: Received, cut_chance: float, rng: random.Random
    ) -> None:
        self._inner = inner
        self._received = received
        self._cut_chance = cut_chance
        self._rng = rng

    async def read(self) -> Any:
        if self._cut_chance and self._rng.random() < self._cut_chance:
            self._inner.cancel()
            self._received.cut += 1
            return grpc.aio.EOF
        message = await self._inner.read()
        if message is not grpc.aio.EOF:
            self._received.watched(message)
        return message

    def cancel(self) -> bool:
        return bool(self._inner.cancel())


class _RecordingSession:
    """A PlaySession call whose messages are recorded; with ``cut_chance`` the test cuts the
    stream before a read (cancelled, EOF to the SDK, which then opens the session again from
    its sequence and resends its unanswered decisions)."""

    def __init__(self, inner: Any, client: SoakClient) -> None:
        self._inner = inner
        self._client = client
        self._cut = False

    async def write(self, request: gs.PlaySessionRequest) -> None:
        if request.WhichOneof("kind") == "decision":
            self._client.set_phase(f"PlaySession: sending a decision on version "
                                   f"{request.decision.state_version}")  # fmt: skip
        await self._inner.write(request)

    async def read(self) -> Any:
        client = self._client
        received = client.received
        if self._cut:
            return grpc.aio.EOF
        if client.cut_chance and client.cut_rng.random() < client.cut_chance:
            self._cut = True
            self._inner.cancel()
            received.cut += 1
            return grpc.aio.EOF
        client.set_phase("PlaySession: waiting for the server to ask for a decision")
        message = await self._inner.read()
        if message is not grpc.aio.EOF:
            received.played(message)
        return message

    async def code(self) -> Any:
        return await self._inner.code()

    def cancel(self) -> bool:
        return bool(self._inner.cancel())


class _RecordingStub:
    def __init__(
        self, inner: Any, received: Received, cut_chance: float, rng: random.Random
    ) -> None:
        self._inner = inner
        self._received = received
        self._cut_chance = cut_chance
        self._rng = rng

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def GetView(self, request: gs.GetViewRequest, **kwargs: Any) -> gs.GetViewResponse:
        reply: gs.GetViewResponse = await self._inner.GetView(request, **kwargs)
        self._received.add("view", reply)
        return reply

    async def SubmitAction(
        self, request: gs.SubmitActionRequest, **kwargs: Any
    ) -> gs.SubmitActionResponse:
        try:
            reply: gs.SubmitActionResponse = await self._inner.SubmitAction(request, **kwargs)
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                self._received.errors.append((request.state_version, error.details() or ""))
            raise
        self._received.add("submit", reply)
        return reply

    def WatchGame(self, request: gs.WatchGameRequest, **kwargs: Any) -> _RecordingCall:
        self._received.streams += 1
        call = self._inner.WatchGame(request, **kwargs)
        return _RecordingCall(call, self._received, self._cut_chance, self._rng)


# ============================================================================================
# A seat: the SDK's BotClient, traced
# ============================================================================================


class _Traced:
    """The bot, noting in its client when it is thinking."""

    def __init__(self, bot: Bot, client: SoakClient) -> None:
        self.bot = bot
        self.client = client
        self.name = bot.name

    def choose(self, view: View, rng: random.Random) -> int:
        self.client.set_phase(f"bot {self.name} choosing on version {view['version']}")
        return self.bot.choose(view, rng)


class SoakClient(BotClient):
    """``clients.sdk.BotClient`` unchanged in how it plays; it records what it receives and
    notes what it is doing (for the report of a stuck game)."""

    def __init__(
        self,
        address: str,
        game_id: str,
        bot: Bot,
        *,
        seat: int,
        rng: random.Random,
        cut_chance: float,
        transport: str,
    ) -> None:
        super().__init__(
            address, game_id, bot, seat=seat, name=bot.name, rng=rng, transport=transport
        )
        self.bot = _Traced(bot, self)
        self.kind = bot.name
        self.received = Received()
        self.cut_chance = cut_chance
        self.cut_rng = random.Random(rng.random())
        self.phase = "not started"
        self.phase_since = time.monotonic()
        self.failed_in = ""

    def set_phase(self, phase: str) -> None:
        self.phase = phase
        self.phase_since = time.monotonic()

    def _connect(self) -> Any:
        if self._stub is None:
            inner = super()._connect()
            recording = _RecordingStub(inner, self.received, self.cut_chance, self.cut_rng)
            self._stub = cast(Any, recording)
        return self._stub

    def _open_session(self, stub: Any) -> Any:
        self.received.streams += 1
        self.set_phase(
            f"PlaySession: opening from sequence {self._next_sequence}, resending "
            f"{len(self._unanswered)} decision(s)"
        )
        return _RecordingSession(super()._open_session(stub), self)

    async def _join(self, stub: Any) -> None:
        self.set_phase("JoinGame")
        await super()._join(stub)

    async def _get_view(self, stub: Any) -> gp.View:
        self.set_phase("GetView")
        return await super()._get_view(stub)

    async def _send_pending(self, stub: Any) -> None:
        version = self._pending.state_version if self._pending is not None else -1
        self.set_phase(f"SubmitAction on version {version}")
        await super()._send_pending(stub)

    async def _wait_for_change(self, stub: Any) -> None:
        self.set_phase("WatchGame: waiting for a view with its turn")
        await super()._wait_for_change(stub)

    async def _disconnect(self) -> None:
        if not self.phase.startswith("disconnected"):
            self.set_phase(f"disconnected, backing off (after: {self.phase})")
        await super()._disconnect()

    async def run(self) -> Result:
        try:
            result = await super().run()
        except BaseException as error:
            self.failed_in = f"{self.phase} (for {time.monotonic() - self.phase_since:.1f} s)"
            self.set_phase(f"failed: {error!r}")
            raise
        self.set_phase("finished")
        return result

    def describe(self, now: float) -> str:
        r = self.received
        return (
            f"{self.transport}: {self.phase} for {now - self.phase_since:.1f} s; next stream "
            f"from sequence "
            f"{self._next_sequence}, newest version handled {self._known_version}; "
            f"{r.describe_stream(now)}; decisions {self.decisions}, stale {self.stale}, "
            f"reconnects {self.reconnects}, streams {r.streams} ({r.cut} cut by the test)"
        )


# ============================================================================================
# A watcher that disconnects and resumes
# ============================================================================================


class ResumingWatcher:
    """Reads the game's events from sequence 1 to GameEnded over many WatchGame calls: after
    a random number of messages it hangs up, pauses (sometimes long enough to fall behind),
    sometimes drops its channel too, and resumes from the next sequence it has not seen.

    A ``patient`` watcher (the recorder: a spectator without views) never hangs up by itself;
    it only resumes when the server goes away, as quickly as it can. The events it read live
    must equal those read again after the game (rebuilt from the store after a restart)."""

    def __init__(
        self,
        address: str,
        game_id: str,
        seat: int | None,
        token: Callable[[], str | None],
        include_views: bool,
        rng: random.Random,
        *,
        patient: bool = False,
    ) -> None:
        self.patient = patient
        self.address = address
        self.game_id = game_id
        self.seat = seat
        self.token = token
        self.include_views = include_views
        self.rng = rng
        self.received = Received()
        self.next_sequence = 1
        self.resumes = 0
        self.early_ends = 0  # streams the server ended before GameEnded
        self.ended_at = 0.0  # when it read GameEnded
        self.phase = "not started"
        self.phase_since = time.monotonic()

    @property
    def label(self) -> str:
        if self.patient:
            return "recorder"
        return "spectator watcher" if self.seat is None else f"seat {self.seat} watcher"

    def set_phase(self, phase: str) -> None:
        self.phase = phase
        self.phase_since = time.monotonic()

    async def _request(self) -> gs.WatchGameRequest:
        request = gs.WatchGameRequest(
            game_id=self.game_id,
            from_sequence=self.next_sequence,
            include_views=self.include_views,
        )
        if self.seat is None:
            request.spectator.SetInParent()
            return request
        self.set_phase("waiting for the seat's token")
        while (token := self.token()) is None:
            await asyncio.sleep(0.05)
        request.seat_token = token
        return request

    async def run(self) -> None:
        channel: grpc.aio.Channel | None = None
        failures = 0
        try:
            while True:
                request = await self._request()
                if channel is None:
                    channel = open_channel(self.address)
                call = stub_for(channel).WatchGame(request)
                self.received.streams += 1
                budget = 1 << 30 if self.patient else self.rng.randint(5, 150)
                ended = False
                try:
                    while budget > 0:
                        self.set_phase(f"WatchGame read, resumed from {request.from_sequence}")
                        message = await call.read()
                        if message is grpc.aio.EOF:
                            self.early_ends += 1
                            failures += 1
                            break
                        failures = 0
                        self.received.watched(message)
                        if message.HasField("event") or message.resync:
                            self.next_sequence = int(message.sequence) + 1
                        if message.event.WhichOneof("payload") == "game_ended":
                            ended = True
                            self.ended_at = time.monotonic()
                            break
                        budget -= 1
                except grpc.aio.AioRpcError as error:
                    if error.code() not in RECOVERABLE:
                        raise
                    failures += 1
                finally:
                    call.cancel()
                if ended:
                    self.set_phase("finished")
                    return
                if failures > 60:
                    raise AssertionError(f"{self.label}: 60 failed WatchGame calls in a row")
                self.resumes += 1
                if failures:  # the server is away: back off, on a fresh channel
                    await channel.close()
                    channel = None
                    self.set_phase(f"backing off ({failures} failures)")
                    await asyncio.sleep(min(0.5 if self.patient else 1.0, 0.05 * 2**failures))
                    continue
                pause = self.rng.random()
                self.set_phase("paused between streams")
                if pause < 0.5:
                    await asyncio.sleep(0)
                elif pause < 0.85:
                    await asyncio.sleep(self.rng.uniform(0.0, 0.2))
                else:
                    await asyncio.sleep(self.rng.uniform(0.3, 1.5))
                if self.rng.random() < 0.25:
                    await channel.close()
                    channel = None
        except BaseException as error:
            if not isinstance(error, asyncio.CancelledError):
                self.set_phase(f"failed: {error!r}")
            raise
        finally:
            if channel is not None:
                await channel.close()

    def describe(self, now: float) -> str:
        return (
            f"{self.phase} for {now - self.phase_since:.1f} s; next sequence "
            f"{self.next_sequence}; {self.received.describe_stream(now)}; "
            f"{self.received.streams} streams"
        )


# ============================================================================================
# Plans and runs
# ============================================================================================


@dataclass(frozen=True)
class SoakConfig:
    name: str
    games: int
    seed: int
    store: str  # memory | sqlite
    restarts: int = 0
    min_restart_gap_s: float = 1.0
    time_limit_ms: int = 800
    time_limit_every: int = 3  # every n-th game has the decision time limit
    deadline_s: float = 600.0  # for the whole run of games
    stall_s: float = 90.0  # a game that does not move for this long is stuck
    max_timeout_run: int = 8  # consecutive timed-out decisions of one seat


@dataclass(frozen=True)
class GamePlan:
    index: int
    seed: int
    time_limit_ms: int
    bots: tuple[str, ...]
    cuts: tuple[float, ...]  # per seat: chance that the test cuts its stream before a read
    transports: tuple[str, ...]  # per seat: how its SDK client plays (session or unary)
    watcher_seat: int | None  # None: a spectator
    watcher_views: bool


def make_plans(config: SoakConfig) -> list[GamePlan]:
    rng = random.Random(config.seed)
    plans = []
    for g in range(config.games):
        limit = config.time_limit_ms if g % config.time_limit_every == 0 else 0
        bots = []
        cuts = []
        # Most seats play over PlaySession (the SDK's default); every fifth the frontends' way.
        transports = tuple("unary" if (g + s) % 5 == 4 else "session" for s in range(PLAYERS))
        for s in range(PLAYERS):
            k = (g + s) % 7
            if limit and s == g % PLAYERS:
                bots.append("sluggish")
            elif k in (1, 4):
                bots.append("jitter")
            elif k == 5 and g % 2:
                bots.append("heuristic")
            else:
                bots.append("random")
            cuts.append(0.03 if (g + 2 * s) % 5 == 0 else 0.0)
        plans.append(
            GamePlan(
                index=g,
                seed=rng.randrange(1, 2**62),
                time_limit_ms=limit,
                bots=tuple(bots),
                cuts=tuple(cuts),
                transports=transports,
                watcher_seat=None if g % 2 == 0 else (g // 2) % PLAYERS,
                watcher_views=g % 4 != 0,
            )
        )
    return plans


@dataclass
class GameRun:
    plan: GamePlan
    game_id: str
    clients: list[SoakClient]
    watcher: ResumingWatcher
    recorder: ResumingWatcher
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)  # seats, watcher, recorder
    server_view: gp.View | None = None
    poll_error: str = ""
    last_change: tuple[int, int, int] = (-1, -1, -1)  # version, status, last sequence
    changed_at: float = field(default_factory=time.monotonic)

    @property
    def done(self) -> bool:
        return all(t.done() for t in self.tasks)

    def title(self) -> str:
        p = self.plan
        limit = f"{p.time_limit_ms} ms limit" if p.time_limit_ms else "no time limit"
        return f"game {p.index} (id {self.game_id}, seed {p.seed}, {limit}, bots {list(p.bots)})"

    def describe(self, now: float) -> str:
        lines = [self.title()]
        view = self.server_view
        if view is None:
            lines.append(f"  server: not polled yet {self.poll_error}")
        else:
            stuck_for = now - self.changed_at
            lines.append(
                f"  server: {gp.GameStatus.Name(view.status)}, version {view.state_version}, "
                f"last sequence {view.last_sequence}, awaiting {list(view.awaiting_seats)}, "
                f"committed {list(view.committed_seats)}, unchanged for {stuck_for:.1f} s"
                + (f" (last poll failed: {self.poll_error})" if self.poll_error else "")
            )
        awaited = set()
        if view is not None:
            awaited = {s for s in view.awaiting_seats if s not in view.committed_seats}
        for seat, client in enumerate(self.clients):
            mark = "  <- the server waits for this seat" if seat in awaited else ""
            state = "done" if self.tasks[seat].done() else client.describe(now)
            lines.append(f"  seat {seat} ({client.kind}): {state}{mark}")
        for task, watcher in zip(self.tasks[PLAYERS:], (self.watcher, self.recorder), strict=True):
            state = "done" if task.done() else watcher.describe(now)
            lines.append(f"  {watcher.label}: {state}")
        return "\n".join(lines)


class SoakFailure(AssertionError):
    pass


def _token_of(client: SoakClient | None) -> Callable[[], str | None]:
    """The seat token a watcher of ``client``'s seat uses, once the SDK has joined."""
    return lambda: None if client is None else client.token


async def _poll(runs: list[GameRun], stub: Stub) -> None:
    async def one(run: GameRun) -> None:
        try:
            reply = await stub.GetView(
                gs.GetViewRequest(game_id=run.game_id, spectator=gs.Spectator()), timeout=10
            )
        except grpc.aio.AioRpcError as error:
            code = error.code()
            run.poll_error = f"{code.name if code else '?'}: {error.details()}"
            return
        view = reply.view
        run.server_view = view
        run.poll_error = ""
        key = (int(view.state_version), int(view.status), int(view.last_sequence))
        if key != run.last_change:
            run.last_change = key
            run.changed_at = time.monotonic()

    await asyncio.gather(*(one(r) for r in runs if not r.done))


async def _cancel(tasks: list[asyncio.Task[Any]]) -> None:
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=20)


async def _finished_game_gone(task: asyncio.Task[Any], run: GameRun, stub: Stub) -> bool:
    """Did a seat fail with NOT_FOUND although its game had finished (GetResult answers)?
    (Before 9333c3a a restarted server served finished games to GetResult and GetReplay only,
    and a seat whose game ended just before a restart failed so.)"""
    error = task.exception()
    if not isinstance(error, grpc.aio.AioRpcError) or error.code() != grpc.StatusCode.NOT_FOUND:
        return False
    try:
        await call_retrying(
            lambda: stub.GetResult(gs.GetResultRequest(game_id=run.game_id), timeout=10)
        )
    except grpc.aio.AioRpcError:
        return False
    return True


async def supervise(
    config: SoakConfig,
    runs: list[GameRun],
    server: SoakServer,
    extra: list[asyncio.Task[Any]],
) -> float:
    """Wait for every game's clients and watchers; fail early (with a report) on an error, a
    game that does not move for ``stall_s`` or a run past ``deadline_s``. Returns seconds."""
    started = time.monotonic()
    owner: dict[asyncio.Task[Any], str] = {}
    seat_of: dict[asyncio.Task[Any], tuple[GameRun, int]] = {}
    for run in runs:
        for seat, task in enumerate(run.tasks[:PLAYERS]):
            owner[task] = f"{run.title()} seat {seat} ({run.clients[seat].kind})"
            seat_of[task] = (run, seat)
        owner[run.tasks[PLAYERS]] = f"{run.title()} {run.watcher.label}"
        owner[run.tasks[PLAYERS + 1]] = f"{run.title()} {run.recorder.label}"
    for task in extra:
        owner[task] = task.get_name()
    tasks = list(owner)
    channel = open_channel(server.address)
    stub = stub_for(channel)
    try:
        while True:
            _, pending = await asyncio.wait(tasks, timeout=2.0, return_when=asyncio.FIRST_EXCEPTION)
            now = time.monotonic()
            failed = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
            lines = []
            for task in failed:
                lines.append(f"- {owner[task]}: {task.exception()!r}")
                if task in seat_of:
                    run, seat = seat_of[task]
                    lines.append(f"  it was: {run.clients[seat].failed_in}")
                    if await _finished_game_gone(task, run, stub):
                        ago = now - server.restarted_at if server.restarted_at else -1.0
                        lines.append(
                            "  its game had FINISHED (GetResult answers); the last restart "
                            f"({server.signals[-1] if server.signals else 'none'}) was "
                            f"{ago:.1f} s before this report"
                        )
            if lines:
                lines[:0] = [f"{config.name}: a client failed (seed {config.seed}):"]
                lines += ["", "every unfinished game:"]
                lines += [r.describe(now) for r in runs if not r.done]
                await _cancel(tasks)
                raise SoakFailure("\n".join(lines))
            games_pending = [t for t in pending if t not in extra]
            if not games_pending:
                return now - started
            await _poll(runs, stub)
            now = time.monotonic()
            stuck = [r for r in runs if not r.done and now - r.changed_at > config.stall_s]
            late = now - started > config.deadline_s
            if stuck or late:
                why = (
                    f"{len(stuck)} game(s) did not move for {config.stall_s:.0f} s"
                    if stuck
                    else f"the games did not finish within {config.deadline_s:.0f} s"
                )
                unfinished = [r for r in runs if not r.done]
                lines = [
                    f"{config.name}: {why} (seed {config.seed}); {len(unfinished)} of "
                    f"{len(runs)} games unfinished:"
                ]
                lines += [r.describe(now) for r in (stuck or unfinished)]
                await _cancel(tasks)
                raise SoakFailure("\n".join(lines))
    finally:
        await channel.close()


async def restarter(
    config: SoakConfig, server: SoakServer, runs: list[GameRun], stop: asyncio.Event
) -> None:
    """Restart the server ``config.restarts`` times while the games run, SIGTERM and SIGKILL
    mixed (both kinds as soon as there are two restarts). Restart k < n (of n) comes once the
    SDK clients have had about k / n of ``DECISIONS_PER_GAME`` decisions per game
    acknowledged (so it does not depend on the machine's speed); the last one once the first
    eighth of the games are over (so some games finished before it and are served from the
    store after it); each at least ``min_restart_gap_s`` after the previous one. A restart is never
    cut half-way."""
    rng = random.Random(config.seed ^ 0x5EED)
    kinds = [signal.SIGKILL, signal.SIGTERM] * config.restarts
    kinds = kinds[: config.restarts]
    rng.shuffle(kinds)
    total = DECISIONS_PER_GAME * len(runs)
    over = max(1, len(runs) // 8)

    def due(k: int, target: float) -> bool:
        if k == config.restarts:
            return sum(1 for r in runs if r.done) >= over
        return sum(c.decisions for r in runs for c in r.clients) >= target

    for k, sig in enumerate(kinds, start=1):
        target = total * (k + rng.uniform(-0.3, 0.3)) / config.restarts
        earliest = time.monotonic() + config.min_restart_gap_s
        while not due(k, target) or time.monotonic() < earliest:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.05)
            if stop.is_set() or all(r.done for r in runs):
                return
        await asyncio.sleep(rng.uniform(0.0, 0.05))  # land among requests in flight
        await server.restart(sig)


# ============================================================================================
# The run
# ============================================================================================


@dataclass
class Counts:
    games: int = 0
    actions: int = 0  # decisions in the replays
    sdk_decisions: int = 0  # accepted submits of the SDK clients
    timeouts: int = 0  # decisions the server applied after a time limit ran out
    timeouts_of_prompt_seats: int = 0  # ... for seats other than the sluggish ones
    stale: int = 0  # SDK submits refused as stale
    sdk_reconnects: int = 0
    streams_cut: int = 0
    watcher_resumes: int = 0
    watcher_early_ends: int = 0
    games_over_before_a_restart: int = 0  # served from the store afterwards
    messages_checked: int = 0
    engine_states_checked: int = 0
    longest_timeout_run: int = 0


async def run_soak(config: SoakConfig, data_dir: Path) -> dict[str, Any]:
    """Play ``config.games`` games through the SDK, restarting the server if asked; check
    everything; return a summary (SoakFailure with a report on any problem)."""
    loop = asyncio.get_running_loop()
    # Every seat's bot runs in the default executor (asyncio.to_thread): one worker each, so
    # a sluggish bot asleep past its time limit does not hold up the other seats' choices.
    loop.set_default_executor(ThreadPoolExecutor(max_workers=config.games * PLAYERS + 8))
    server = SoakServer(config.store, data_dir)
    await server.start()
    plans = make_plans(config)
    runs: list[GameRun] = []
    stop = asyncio.Event()
    extra: list[asyncio.Task[Any]] = []
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = stub_for(channel)
            for plan in plans:
                options = gp.GameOptions(
                    player_count=PLAYERS,
                    seed=plan.seed,
                    decision_time_limit_ms=plan.time_limit_ms,
                    seat_names=list(plan.bots),
                )
                created = await stub.CreateGame(gs.CreateGameRequest(options=options))
                game_id = str(created.game_id)
                rng = random.Random(plan.seed)
                clients = [
                    SoakClient(
                        server.address,
                        game_id,
                        make_bot(plan.bots[s], plan.time_limit_ms),
                        seat=s,
                        rng=random.Random(rng.random()),
                        cut_chance=plan.cuts[s],
                        transport=plan.transports[s],
                    )
                    for s in range(PLAYERS)
                ]
                watched = None if plan.watcher_seat is None else clients[plan.watcher_seat]
                watcher = ResumingWatcher(
                    server.address,
                    game_id,
                    plan.watcher_seat,
                    _token_of(watched),
                    plan.watcher_views,
                    random.Random(rng.random()),
                )
                recorder = ResumingWatcher(
                    server.address, game_id, None, _token_of(None), False, rng, patient=True
                )
                runs.append(GameRun(plan, game_id, clients, watcher, recorder))
        for run in runs:
            run.tasks = [asyncio.create_task(c.run()) for c in run.clients]
            run.tasks.append(asyncio.create_task(run.watcher.run()))
            run.tasks.append(asyncio.create_task(run.recorder.run()))
        if config.restarts:
            extra.append(
                asyncio.create_task(restarter(config, server, runs, stop), name="the restarter")
            )
        seconds = await supervise(config, runs, server, extra)
        stop.set()
        for task in extra:
            await asyncio.wait_for(task, 60)
        if not server.running:
            await server.start()
        counts, problems = await check_runs(config, runs, server.address, server.restarted_at)
    except BaseException:
        stop.set()
        await _cancel(extra)
        raise
    finally:
        with contextlib.suppress(Exception):
            await server.close()
    problems += server.problems
    summary: dict[str, Any] = {
        "seed": config.seed,
        "play_seconds": round(seconds, 1),
        **counts.__dict__,
        "time_limited_games": sum(1 for p in plans if p.time_limit_ms),
        "restarts": dict(Counter(server.signals)),
        "mean_restart_s": (
            round(sum(server.down_seconds) / len(server.down_seconds), 2)
            if server.down_seconds
            else 0
        ),
        "server_warnings": dict(server.warnings),
    }
    if config.restarts and len(server.signals) < config.restarts:
        problems.append(
            f"only {len(server.signals)} of {config.restarts} restarts happened while games "
            f"were running (more games, or fewer restarts)"
        )
    if summary["time_limited_games"] and not counts.timeouts:
        problems.append("no decision timed out in the time-limited games")
    if problems:
        head = f"{config.name}: {len(problems)} problem(s) (seed {config.seed}); summary {summary}"
        raise SoakFailure("\n".join([head, *problems[:60]]))
    return summary


# ============================================================================================
# The checks
# ============================================================================================


def stream_problems(
    who: str,
    stream: list[tuple[int, int, bool, bool]],
    *,
    from_start: bool,
    last_sequence: int,
    to_end: bool,
) -> list[str]:
    """Sequence numbers across all of a client's WatchGame streams: events gapless and
    without duplicates; a view-only message (a stream's first) at the last sequence seen, or
    before it when the stream was cut inside a decision's events (they then come again, after
    that view: the resume contract of WatchGameRequest); no resync (the server keeps 100 000
    events)."""
    problems = []
    expected: int | None = None
    for number, sequence, has_event, resync in stream:
        if resync:
            problems.append(f"{who}: stream {number} resynced at sequence {sequence}")
            expected = sequence + 1
        elif has_event:
            if expected is None:
                expected = 1 if from_start else sequence
            if sequence != expected:
                what = "a gap" if sequence > expected else "a duplicate"
                problems.append(
                    f"{who}: stream {number} sent event {sequence} when {expected} was next "
                    f"({what})"
                )
            expected = max(expected, sequence + 1)
        elif expected is None:
            expected = sequence + 1
        elif sequence > expected - 1:
            problems.append(
                f"{who}: stream {number} opened at sequence {sequence} but the last event seen "
                f"was {expected - 1}"
            )
        else:  # resumed inside a decision's events: its view before, then all of them again
            expected = sequence + 1
    seen_to = (expected or 1) - 1
    if seen_to > last_sequence:
        problems.append(f"{who}: saw sequence {seen_to} beyond the game's last {last_sequence}")
    if to_end and seen_to != last_sequence:
        problems.append(f"{who}: ended at sequence {seen_to}, the game's last is {last_sequence}")
    return problems


def _longest_run(flags: list[bool]) -> int:
    best = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        best = max(best, run)
    return best


def _public_cards(events: list[gs.WatchGameResponse]) -> dict[int, set[int]]:
    """Cards shown to everyone (battle reveals, quest reveals, public plays), by version."""
    shown: dict[int, set[int]] = {}
    for message in events:
        shown.setdefault(int(message.event.state_version), set()).update(
            publicly_shown(message.event)
        )
    return shown


async def _spectator_events(stub: Stub, game_id: str) -> list[gs.WatchGameResponse]:
    async def read() -> list[gs.WatchGameResponse]:
        call = stub.WatchGame(
            gs.WatchGameRequest(game_id=game_id, from_sequence=1, spectator=gs.Spectator())
        )
        try:
            return [m async for m in call]
        finally:
            call.cancel()

    return await call_retrying(lambda: asyncio.wait_for(read(), 60))


async def check_game(
    run: GameRun, stub: Stub, config: SoakConfig, counts: Counts, server_restarted_at: float
) -> list[str]:
    title = run.title()
    problems: list[str] = []
    game_id = run.game_id
    results: list[Result] = [t.result() for t in run.tasks[:PLAYERS]]
    reply = await call_retrying(lambda: stub.GetResult(gs.GetResultRequest(game_id=game_id)))
    replay = await call_retrying(lambda: stub.GetReplay(gs.GetReplayRequest(game_id=game_id)))
    recorder = run.recorder
    recorded = [_watch_message(payload) for _, payload in recorder.received.messages]
    live = {int(m.sequence): m for m in recorded if m.HasField("event")}
    view = (
        await call_retrying(
            lambda: stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
        )
    ).view
    events = await _spectator_events(stub, game_id)
    last_sequence = int(view.last_sequence)
    if recorder.ended_at and recorder.ended_at < server_restarted_at:
        counts.games_over_before_a_restart += 1
    spectator_stream = [(1, int(m.sequence), m.HasField("event"), m.resync) for m in events]
    problems += stream_problems(
        f"{title} spectator read after the game",
        spectator_stream,
        from_start=True,
        last_sequence=last_sequence,
        to_end=True,
    )
    # Events as streamed live are the same later (rebuilt from the store after a restart).
    for later in events:
        before = live.get(int(later.sequence))
        if before is not None and before.event != later.event:
            problems.append(
                f"{title}: event {later.sequence} read after the game differs from the one the "
                f"recorder read live"
            )
    if len(live) != (n := sum(1 for m in events if m.HasField("event"))):
        problems.append(f"{title}: the recorder read {len(live)} events, the game has {n}")

    # -- the result is what the engine makes of the log ---------------------------------
    if replay.options.seed != run.plan.seed:
        problems.append(f"{title}: the replay's seed is {replay.options.seed}")
    states = replay_states(replay)
    final = states[-1]
    outcome = engine_result(final)
    if outcome is None:
        return [f"{title}: the engine replay of the log does not finish the game"]
    if final.state_hash() != replay.final_state_hash:
        problems.append(f"{title}: engine replay hash {final.state_hash()} != the server's")
    glory, ranks, winners = list(outcome.scores), list(outcome.ranks), list(outcome.winners)
    seats = sorted(reply.result.seats, key=lambda s: s.seat)
    server_result = (
        [s.score for s in seats],
        [s.rank for s in seats],
        sorted(reply.result.winners),
    )
    if server_result != (glory, ranks, winners):
        problems.append(f"{title}: GetResult {server_result} != engine {(glory, ranks, winners)}")
    check = verify_replay(replay_from_response(replay, game_id))
    if not check.ok:
        problems.append(f"{title}: the replay does not verify: {check.problems}")
    by_timeout = [s for s in replay.steps if s.by_timeout]
    timed_out_events = [m for m in events if m.event.WhichOneof("payload") == "timed_out"]
    if len(timed_out_events) != len(by_timeout):
        problems.append(
            f"{title}: {len(timed_out_events)} DecisionTimedOut events for "
            f"{len(by_timeout)} decisions applied by timeout"
        )
    if by_timeout and not run.plan.time_limit_ms:
        problems.append(f"{title}: {len(by_timeout)} timeouts without a time limit")
    for seat, result in enumerate(results):
        who = f"{title} seat {seat} ({run.clients[seat].kind})"
        own = [s for s in replay.steps if s.seat == seat]
        chosen = sum(1 for s in own if not s.by_timeout)
        got = (result.status, result.scores, result.ranks, result.winners)
        if got != ("FINISHED", glory, ranks, winners):
            problems.append(f"{who}: the SDK's result {got} != engine {(glory, ranks, winners)}")
        if chosen != result.decisions:
            problems.append(f"{who}: {result.decisions} submits acknowledged, {chosen} in the log")
        if run.clients[seat].kind != "sluggish":
            counts.timeouts_of_prompt_seats += sum(1 for s in own if s.by_timeout)
        longest = _longest_run([s.by_timeout for s in own])
        counts.longest_timeout_run = max(counts.longest_timeout_run, longest)
        if longest > config.max_timeout_run:
            problems.append(
                f"{who}: {longest} decisions in a row applied by timeout (a seat that waits "
                f"for its turn without seeing it?)"
            )
    # -- every stream gapless, without duplicates ---------------------------------------
    for seat, client in enumerate(run.clients):
        problems += stream_problems(
            f"{title} seat {seat}",
            client.received.stream,
            from_start=False,
            last_sequence=last_sequence,
            to_end=False,
        )
    watcher = run.watcher
    for reader in (watcher, recorder):
        problems += stream_problems(
            f"{title} {reader.label}",
            reader.received.stream,
            from_start=True,
            last_sequence=last_sequence,
            to_end=True,
        )
    if watcher.received.streams < 2 and last_sequence > 150:
        problems.append(f"{title} {watcher.label}: never resumed")
    if watcher.early_ends and not config.restarts:
        problems.append(f"{title} {watcher.label}: {watcher.early_ends} streams ended early")

    # -- nobody saw what they may not see -----------------------------------------------
    secrets_of_others = others_secrets(states, _public_cards(events)).hidden_from

    receivers: list[tuple[str, int | None, Received]] = [
        (f"seat {s} ({c.kind})", s, c.received) for s, c in enumerate(run.clients)
    ]
    receivers.append((watcher.label, watcher.seat, watcher.received))
    for who, viewer, received in receivers:
        for kind, payload in received.messages:
            message = parse(kind, payload)
            if isinstance(message, gs.PlaySessionResponse):
                # Each event at its own version; the rest (request to decide, view,
                # answers) at the message's.
                for event in message.events:
                    version = int(event.state_version)
                    leaked = card_instances(event) & secrets_of_others(viewer, version)
                    if leaked:
                        problems.append(
                            f"{title} {who}: a PlaySession event at version {version} names "
                            f"cards {sorted(leaked)} private to another seat"
                        )
                message.ClearField("events")
            version = message_version(message)
            if not 0 <= version < len(states):
                problems.append(f"{title} {who}: a {kind} message at version {version}")
                continue
            leaked = card_instances(message) & secrets_of_others(viewer, version)
            if leaked:
                problems.append(
                    f"{title} {who}: a {kind} message at version {version} names cards "
                    f"{sorted(leaked)} private to another seat"
                )
            counts.messages_checked += 1
            if (
                isinstance(message, gs.GetViewResponse | gs.PlaySessionResponse)
                and viewer is not None
            ):
                text = message.view.blood_rage.engine_state_json
                if text:
                    expected = json.loads(json.dumps(redacted_snapshot(states[version], viewer)))
                    if json.loads(text) != expected:
                        problems.append(
                            f"{title} {who}: the engine state of its view at version {version} "
                            f"is not the engine's redacted snapshot for the viewer"
                        )
                    counts.engine_states_checked += 1
        for version, text in received.errors:
            if 0 <= version < len(states) and text_instances(text) & secrets_of_others(
                viewer, version
            ):
                problems.append(f"{title} {who}: a refusal names another seat's card: {text}")

    counts.games += 1
    counts.actions += len(replay.steps)
    counts.timeouts += len(by_timeout)
    counts.sdk_decisions += sum(c.decisions for c in run.clients)
    counts.stale += sum(c.stale for c in run.clients)
    counts.sdk_reconnects += sum(c.reconnects for c in run.clients)
    counts.streams_cut += sum(c.received.cut for c in run.clients)
    counts.watcher_resumes += watcher.resumes
    counts.watcher_early_ends += watcher.early_ends
    return problems


async def check_runs(
    config: SoakConfig, runs: list[GameRun], address: str, restarted_at: float
) -> tuple[Counts, list[str]]:
    counts = Counts()
    problems: list[str] = []
    async with open_channel(address) as channel:
        stub = stub_for(channel)
        for run in runs:
            problems += await check_game(run, stub, config, counts, restarted_at)
            # What was recorded is no longer needed.
            for client in run.clients:
                client.received.messages.clear()
            run.watcher.received.messages.clear()
            run.recorder.received.messages.clear()
    return counts, problems
