"""Tournament runner: let bots play many games against each other on a Yggdrasil server.

    python -m clients.tournament random heuristic --games 20 --players 2 3 --spawn-server
    python -m clients.tournament random heuristic --game fire_and_axe --games 4 --spawn-server
    yggdrasil-tournament heuristic ismcts:50 'cmd:python -m clients.sdk --bot random' \\
        --server 127.0.0.1:50051 --games 12 --players 3 --time-limit-ms 2000 --out runs/t1

``--game`` picks the game (registry name; default Blood Rage), played on its default options.
Bots: ``random`` and the game's own strategies (Blood Rage: ``heuristic``,
``ismcts[:budget_ms]``, ``duct[:budget_ms]``; Fire & Axe: ``heuristic``) play in process
through the SDK
(``clients.sdk.play_seat``: one PlaySession stream per seat, or ``--transport unary`` for the
frontends' calls); ``cmd:<shell command>`` is an external bot, started once per seat
with ``--server ADDR --game ID --seat K`` appended, that joins and plays through the API itself.
Every seat of a tournament game is reserved behind a join code (nobody else can take it
between CreateGame and the bots' joins); an external bot gets its seat's code in
``$YGGDRASIL_JOIN_CODE`` and sends it as JoinGameRequest.join_code (``python -m clients.sdk``
and the CLI's bot read it by themselves).

For every player count, ``--games`` games are played; game g of a count seats
``bots[(g + i) % len(bots)]`` at seat i, so every bot plays every seat equally often over each
run of len(bots) games. Game n of the run asks for seed ``--seed`` + n: that seed deals it on a
spawned server and with a tournament or admin key (``--api-key``); with any other identity
the server mixes it with its own randomness (a seed reveals every hidden card), and
results.json records the seed each game was dealt from. Every replay is saved as
``OUT/<game_id>.json`` (the JSON replay form of ``protocol.replay_json``), the summary as
``OUT/results.json``, with the complete games per
second of wall time (the runner's process drives every in-process seat; the server is another
process unless the tournament was pointed at one in this process).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import shlex
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
import grpc.aio
from openskill.models import PlackettLuce
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from clients.connection import (
    API_KEY_ENV,
    JOIN_CODE_ENV,
    MAX_CALLS_PER_CHANNEL,
    RETRYABLE,
    ChannelPool,
    ClientTls,
    add_tls_arguments,
    default_api_key,
    error_text,
    follow,
    never_sent,
    tls_from_args,
)
from clients.sdk import TRANSPORTS, make_bot, play_seat
from engine import registry
from protocol.replay_json import dumps, replay_from_response
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

__all__ = [
    "BotSpec",
    "BotStats",
    "GameRecord",
    "games_per_second",
    "lineups",
    "main",
    "parse_bot",
    "run_tournament",
    "summarize",
]

_LISTENING = re.compile(r"gRPC on (\S+):(\d+)")
T = TypeVar("T")


# ============================================================================================
# Pure parts: bots, seating, statistics
# ============================================================================================


@dataclass(frozen=True)
class BotSpec:
    label: str  # unique name in the tables
    spec: str  # as given: random, heuristic, ismcts:50, cmd:...

    @property
    def command(self) -> str | None:
        return self.spec[4:] if self.spec.startswith("cmd:") else None


def parse_bot(spec: str, taken: Sequence[str] = (), game: str = registry.DEFAULT) -> BotSpec:
    """Check a bot spec of ``game`` (ValueError if unknown) and give it a label not in
    ``taken``."""
    spec = spec.strip()
    if spec.startswith("cmd:"):
        command = spec[4:].strip()
        if not command:
            raise ValueError("cmd: needs a command")
        base = "cmd:" + (command if len(command) <= 24 else command[:23] + "…")
    else:
        make_bot(spec, game)
        base = spec.lower()
    label, n = base, 2
    while label in taken:
        label, n = f"{base}#{n}", n + 1
    return BotSpec(label, spec)


def lineups(n_bots: int, players: int, games: int) -> list[list[int]]:
    """For each game, the bot index of each seat: game g seats bot (g + i) % n_bots at i."""
    return [[(g + i) % n_bots for i in range(players)] for g in range(games)]


@dataclass
class GameRecord:
    game_id: str
    players: int
    seed: int
    bots: list[str]  # label per seat
    scores: list[int]
    ranks: list[int]  # 1 = best, ties shared
    winners: list[int]
    seconds: float
    replay: str = ""  # file name
    error: str = ""  # why the game did not finish (then scores etc. are empty)
    # Seats whose bot failed while the game went on (only with a decision time limit: the
    # server then took the bot's remaining decisions by its defaults, and the game counts).
    failed_seats: list[str] = field(default_factory=list)


@dataclass
class BotStats:
    bot: str
    games: int = 0  # seats played in finished games
    wins: float = 0.0  # a shared win counts 1/k
    win_rate: float = 0.0
    mean_score: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0
    ordinal: float = 0.0


def summarize(records: Sequence[GameRecord], labels: Sequence[str]) -> list[BotStats]:
    """Per bot: seats played, wins (1/k for a k-way shared win), win rate, mean score (the
    game's: Blood Rage's Glory), and
    OpenSkill Plackett-Luce ratings from the ranks (a bot seated twice in one game counts
    with its best rank there). Sorted by ordinal, best first."""
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    stats = {label: BotStats(label) for label in labels}
    scores: dict[str, int] = dict.fromkeys(labels, 0)
    for record in records:
        if record.error or not record.ranks:
            continue
        share = 1.0 / len(record.winners) if record.winners else 0.0
        best: dict[str, int] = {}
        for seat, label in enumerate(record.bots):
            stats[label].games += 1
            scores[label] += record.scores[seat]
            if seat in record.winners:
                stats[label].wins += share
            best[label] = min(best.get(label, 1 << 30), record.ranks[seat])
        if len(best) < 2:
            continue  # nothing to rate: one bot against itself
        teams = list(best)
        rated = model.rate([[ratings[t]] for t in teams], ranks=[float(best[t]) for t in teams])
        for label, team in zip(teams, rated, strict=True):
            ratings[label] = team[0]
    for label, s in stats.items():
        s.win_rate = s.wins / s.games if s.games else 0.0
        s.mean_score = scores[label] / s.games if s.games else 0.0
        s.mu, s.sigma = ratings[label].mu, ratings[label].sigma
        s.ordinal = ratings[label].ordinal()
    return sorted(stats.values(), key=lambda s: -s.ordinal)


def results_table(stats: Sequence[BotStats], title: str = "Results") -> Table:
    table = Table(title=title)
    for column in (
        "bot",
        "games",
        "wins",
        "win rate",
        "mean score",
        "OpenSkill mu ± sigma",
        "ordinal",
    ):
        bot = column == "bot"
        table.add_column(column, justify="left" if bot else "right", no_wrap=bot)
    for s in stats:
        table.add_row(
            s.bot,
            str(s.games),
            f"{s.wins:.2f}".rstrip("0").rstrip("."),
            f"{100 * s.win_rate:.1f}%",
            f"{s.mean_score:.1f}",
            f"{s.mu:.2f} ± {s.sigma:.2f}",
            f"{s.ordinal:.2f}",
        )
    return table


# ============================================================================================
# Running games
# ============================================================================================


@dataclass
class Settings:
    bots: list[BotSpec]
    players: list[int]
    games: int
    address: str
    out: Path
    time_limit_ms: int = 0
    concurrency: int = 4
    seed: int = 0
    transport: str = "session"  # how in-process bots talk to the server (clients.sdk)
    seconds: float = 0.0  # wall time of the games, once played
    api_key: str | None = None  # sent with every call (external bots get it as $YGGDRASIL_API_KEY)
    # Calls one channel carries at once (clients.connection.ChannelPool): the runner's own
    # calls and its in-process seats' streams share channels, each below the server's
    # per-connection limit.
    calls_per_channel: int = MAX_CALLS_PER_CHANNEL
    tls: ClientTls | None = None  # the channels' TLS (external bots get it in the environment)
    game: str = registry.DEFAULT  # which game (engine.registry), on its default options


def _tls_env(tls: ClientTls | None) -> dict[str, str]:
    """The environment that gives an external bot the same TLS (clients.connection.default_tls)."""
    if tls is None:
        return {}
    env = {"YGGDRASIL_TLS": "1"}
    for name, path in (
        ("YGGDRASIL_CA_FILE", tls.ca_file),
        ("YGGDRASIL_CLIENT_CERT", tls.cert_file),
        ("YGGDRASIL_CLIENT_KEY", tls.key_file),
    ):
        if path is not None:
            env[name] = str(path.resolve())
    return env


async def _external_seat(
    command: str,
    address: str,
    game_id: str,
    seat: int,
    api_key: str | None = None,
    tls: ClientTls | None = None,
    join_code: str = "",
) -> None:
    line = f"{command} --server {shlex.quote(address)} --game {shlex.quote(game_id)} --seat {seat}"
    # `python` in the command is this interpreter (the venv's), whatever PATH says.
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    if api_key:
        env[API_KEY_ENV] = api_key
    env.update(_tls_env(tls))
    if join_code:  # the seat's join code: kept out of the command line, which others can see
        env[JOIN_CODE_ENV] = join_code
    process = await asyncio.create_subprocess_shell(
        line, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, env=env
    )
    try:
        _, err = await process.communicate()
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        raise
    if process.returncode != 0:
        tail = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise RuntimeError(f"external bot exited with {process.returncode}: {tail[0]}")


# Calls sent again after a transient failure, and the pause before the first retry (doubling).
RETRIES = 8
RETRY_BACKOFF_S = 0.1


async def _call(
    pool: ChannelPool, rpc: Callable[[Any], Awaitable[T]], *, idempotent: bool = True
) -> T:
    """``rpc(stub)`` on a slot of ``pool``, sent again after a transient failure: any one for
    an idempotent call (a read, a JoinGame with its own token), for another (CreateGame) only
    one that certainly never reached the server (a refused stream: ``never_sent``)."""
    for attempt in range(RETRIES + 1):
        try:
            async with pool.call() as stub:
                return await rpc(stub)
        except grpc.aio.AioRpcError as error:
            retry = never_sent(error) or (idempotent and error.code() in RETRYABLE)
            if not retry or attempt == RETRIES:
                raise
        await asyncio.sleep(RETRY_BACKOFF_S * 2**attempt)
    raise AssertionError("unreachable")


async def play_one(
    settings: Settings, pool: ChannelPool, players: int, seed: int, lineup: list[int]
) -> GameRecord:
    """Create one game, play its seats concurrently, fetch and save the result and replay. A
    game that fails (at any step, its creation too) is a record with its error, never an
    exception: one game does not end a tournament."""
    labels = [settings.bots[b].label for b in lineup]
    t0 = time.monotonic()
    record = GameRecord("", players, seed, labels, [], [], [], 0.0)
    try:
        await _play_one(settings, pool, record, lineup)
    except (grpc.aio.AioRpcError, RuntimeError, ValueError, OSError) as exc:
        record.error = _first_line(exc)
    record.seconds = round(time.monotonic() - t0, 3)
    return record


async def _play_one(
    settings: Settings, pool: ChannelPool, record: GameRecord, lineup: list[int]
) -> None:
    options = gp.GameOptions(
        player_count=record.players,
        seed=record.seed,
        decision_time_limit_ms=settings.time_limit_ms,
        seat_names=record.bots,
    )
    # The game's payload field is named after it (game.proto); set, it chooses the game.
    getattr(options, settings.game).SetInParent()
    # Every seat is reserved behind a join code that only its bot is given: nobody can take a
    # seat between CreateGame and the bots' joins (issue 27).
    access = gs.GameAccess(
        reservations=[
            gs.SeatReservation(seat=seat, join_code=True) for seat in range(record.players)
        ]
    )
    request = gs.CreateGameRequest(options=options, access=access)
    created = await _call(pool, lambda stub: stub.CreateGame(request), idempotent=False)
    game_id = record.game_id = str(created.game_id)
    labels = record.bots
    codes = {c.seat: c.join_code for c in created.join_codes}
    seats: list[Coroutine[Any, Any, object]] = []
    for seat, index in enumerate(lineup):
        spec = settings.bots[index]
        if spec.command is not None:
            seats.append(
                _external_seat(
                    spec.command,
                    settings.address,
                    game_id,
                    seat,
                    settings.api_key,
                    settings.tls,
                    codes.get(seat, ""),
                )
            )
        else:
            rng = random.Random(f"{record.seed}/{seat}")
            bot = make_bot(spec.spec, settings.game)
            seats.append(
                play_seat(
                    settings.address,
                    game_id,
                    bot,
                    seat=seat,
                    name=spec.label,
                    rng=rng,
                    transport=settings.transport,
                    api_key=settings.api_key,
                    channels=pool,
                    join_code=codes.get(seat, ""),
                )
            )
    tasks = [asyncio.create_task(seat) for seat in seats]
    try:
        if settings.time_limit_ms > 0:
            record.failed_seats = await _play_to_the_end(pool, game_id, tasks, labels, codes)
        else:
            await asyncio.gather(*tasks)
    finally:  # a seat failed with no clock to replace it, or we are cancelled: stop them all
        await _cancel(tasks)
    result_request = gs.GetResultRequest(game_id=game_id)
    result = (await _call(pool, lambda stub: stub.GetResult(result_request))).result
    ordered = sorted(result.seats, key=lambda s: s.seat)
    record.scores = [int(s.score) for s in ordered]
    record.ranks = [int(s.rank) for s in ordered]
    record.winners = sorted(result.winners)
    replay_request = gs.GetReplayRequest(game_id=game_id)
    replay = await _call(pool, lambda stub: stub.GetReplay(replay_request))
    if replay.options.HasField("seed"):
        # The seed the game was dealt from: the asked one with a tournament or admin key
        # (or a spawned server), else the server's randomness mixed with it.
        record.seed = int(replay.options.seed)
    path = settings.out / f"{game_id}.json"
    path.write_text(dumps(replay_from_response(replay, game_id)), encoding="utf-8")
    record.replay = path.name


# After the game has ended, how long a seat's bot gets to notice and exit before it is stopped.
SEAT_EXIT_GRACE_S = 10.0


async def _cancel(tasks: list[asyncio.Task[Any]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _play_to_the_end(
    pool: ChannelPool,
    game_id: str,
    tasks: list[asyncio.Task[Any]],
    labels: list[str],
    codes: dict[int, str] | None = None,
) -> list[str]:
    """Wait for the game to end, whatever its seats' bots do; returns the seats whose bot
    failed. With a decision time limit the server decides for a seat whose bot crashed or
    hung, so the game ends and counts: a bot that fails keeps its result (it cannot void a
    game it was losing), and the others are not punished for it. A bot that failed before it
    claimed its seat gets the seat claimed for it, or the game would never start."""
    ended = asyncio.create_task(_until_over(pool, game_id))
    seat_of = {task: seat for seat, task in enumerate(tasks)}
    running = set(tasks)
    try:
        while not ended.done():
            done, _ = await asyncio.wait({ended, *running}, return_when=asyncio.FIRST_COMPLETED)
            for task in done - {ended}:
                running.discard(task)
                if task.exception() is not None:
                    seat = seat_of[task]
                    code = (codes or {}).get(seat, "")
                    await _claim_if_free(pool, game_id, seat, labels[seat], code)
        ended.result()
    finally:
        ended.cancel()
    _, late = await asyncio.wait(tasks, timeout=SEAT_EXIT_GRACE_S)
    await _cancel(list(late))
    failed = []
    for seat, task in enumerate(tasks):
        if task in late:
            failed.append(f"seat {seat} ({labels[seat]}): still running after the game ended")
        elif (error := task.exception()) is not None:
            failed.append(f"seat {seat} ({labels[seat]}): {_first_line(error)}")
    return failed


async def _until_over(pool: ChannelPool, game_id: str) -> None:
    async with pool.call() as stub:  # the stream holds its slot until the game is over
        async for _ in follow(stub, game_id, include_views=False):
            pass


async def _claim_if_free(
    pool: ChannelPool, game_id: str, seat: int, label: str, code: str = ""
) -> None:
    # A token of ours makes a resent claim safe (the same seat back, never another); the
    # seat's join code opens it (every seat of a tournament game is reserved).
    request = gs.JoinGameRequest(
        game_id=game_id,
        seat=seat,
        player_name=label,
        seat_token=secrets.token_urlsafe(32),
        join_code=code,
    )
    try:
        await _call(pool, lambda stub: stub.JoinGame(request))
    except grpc.aio.AioRpcError as exc:
        if exc.code() != grpc.StatusCode.ALREADY_EXISTS:  # claimed by the bot: nothing to do
            raise


def _first_line(error: BaseException) -> str:
    if isinstance(error, grpc.aio.AioRpcError):
        return error_text(error)  # "RESOURCE_EXHAUSTED: the server hosts 3 games already"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def plan(settings: Settings) -> list[tuple[int, int, list[int]]]:
    """(players, seed, lineup) of every game, in order."""
    games = []
    n = 0
    for players in settings.players:
        for lineup in lineups(len(settings.bots), players, settings.games):
            games.append((players, settings.seed + n, lineup))
            n += 1
    return games


async def run_tournament(settings: Settings, console: Console | None = None) -> list[GameRecord]:
    console = console or Console(stderr=True)
    settings.out.mkdir(parents=True, exist_ok=True)
    games = plan(settings)
    records: list[GameRecord | None] = [None] * len(games)
    gate = asyncio.Semaphore(max(1, settings.concurrency))
    pool = ChannelPool(
        settings.address,
        api_key=settings.api_key,
        per_channel=settings.calls_per_channel,
        tls=settings.tls,
    )
    progress = Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=False,
    )

    async def worker(i: int, task: Any) -> None:
        players, seed, lineup = games[i]
        async with gate:
            try:
                records[i] = await play_one(settings, pool, players, seed, lineup)
            except Exception as exc:  # (play_one records its own errors: this is a bug's)
                records[i] = GameRecord(
                    "", players, seed, [settings.bots[b].label for b in lineup], [], [], [],
                    0.0, error=f"{type(exc).__name__}: {_first_line(exc)}",
                )  # fmt: skip
        record = records[i]
        assert record is not None
        note = f"last: {record.game_id} " + ("ERROR " + record.error if record.error else "")
        progress.update(task, advance=1, description=note)

    started = time.monotonic()
    try:
        with progress:
            task = progress.add_task("", total=len(games))
            await asyncio.gather(*(worker(i, task) for i in range(len(games))))
    finally:
        settings.seconds = time.monotonic() - started
        await pool.close()
    return [r for r in records if r is not None]


def games_per_second(settings: Settings, records: Sequence[GameRecord]) -> float:
    """Complete games per second of wall time (each game from its creation to its saved
    replay, ``concurrency`` at once)."""
    done = sum(1 for r in records if not r.error)
    return done / settings.seconds if settings.seconds > 0 else 0.0


def write_results(settings: Settings, records: list[GameRecord], stats: list[BotStats]) -> Path:
    path = settings.out / "results.json"
    document = {
        "server": settings.address,
        "game": settings.game,
        "bots": {b.label: b.spec for b in settings.bots},
        "players": settings.players,
        "games_per_player_count": settings.games,
        "time_limit_ms": settings.time_limit_ms,
        "seed": settings.seed,
        "transport": settings.transport,
        "concurrency": settings.concurrency,
        "seconds": round(settings.seconds, 3),
        "games_per_second": round(games_per_second(settings, records), 3),
        "rating_model": "openskill PlackettLuce (ranks)",
        "standings": [asdict(s) for s in stats],
        "games": [asdict(r) for r in records],
    }
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return path


# ============================================================================================
# A server of our own
# ============================================================================================


class SpawnedServer:
    """``python -m server --port 0 --store memory --metrics-port -1`` as a subprocess (its only
    client is this run: anonymous callers get no quota, and the run's seeds deal its games)."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.address = ""
        self._drain: asyncio.Task[None] | None = None

    async def start(self, timeout_s: float = 30.0) -> str:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server", "--port", "0", "--store", "memory",
            "--metrics-port", "-1", "--log-level", "WARNING", "--anonymous-quota", "unlimited",
            "--seed-choice", "anyone",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert self.process.stderr is not None
        stderr = self.process.stderr
        deadline = time.monotonic() + timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError("the spawned server did not report its port in time")
            line = (await asyncio.wait_for(stderr.readline(), remaining)).decode(errors="replace")
            if not line:
                raise RuntimeError(f"the spawned server exited ({await self.process.wait()})")
            match = _LISTENING.search(line)
            if match:
                self.address = f"{match.group(1)}:{match.group(2)}"
                break

        async def drain() -> None:
            while await stderr.readline():
                pass

        self._drain = asyncio.create_task(drain())
        return self.address

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), 10)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self._drain is not None:
            self._drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._drain


# ============================================================================================
# Command line
# ============================================================================================


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="yggdrasil-tournament",
        description="Play bots against each other on a Yggdrasil server and rate them.",
    )
    parser.add_argument(
        "bots",
        nargs="+",
        help="random, the game's own (heuristic; Blood Rage also ismcts[:budget_ms] and "
        "duct[:budget_ms]) or 'cmd:<command>' (gets --server ADDR --game ID --seat K appended)",
    )
    parser.add_argument(
        "--game",
        default=registry.DEFAULT,
        choices=[g.name for g in registry.GAMES],
        help=f"which game (default {registry.DEFAULT})",
    )
    parser.add_argument("--games", type=int, default=10, help="games per player count")
    parser.add_argument(
        "--players", type=int, nargs="+", default=None, help="player counts 2-5 (default: the "
        "number of bots, within 2..5)",
    )  # fmt: skip
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--server", help="host:port of a running server")
    where.add_argument("--spawn-server", action="store_true", help="start a throwaway server")
    parser.add_argument("--time-limit-ms", type=int, default=0, help="decision time limit")
    parser.add_argument("--concurrency", type=int, default=4, help="games played at once")
    parser.add_argument(
        "--calls-per-channel",
        type=int,
        default=MAX_CALLS_PER_CHANNEL,
        help="calls and streams one connection carries at once; more open more connections "
        f"(default {MAX_CALLS_PER_CHANNEL}: below the server's --max-streams-per-connection)",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the first game")
    parser.add_argument("--out", type=Path, default=Path("tournament-out"), help="output dir")
    parser.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default="session",
        help="how the in-process bots play: session (one PlaySession stream per seat, the "
        "default) or unary (WatchGame, GetView and SubmitAction, as frontends do)",
    )
    parser.add_argument(
        "--api-key",
        default=None,
        help=f"API key sent to the server, also given to cmd: bots as ${API_KEY_ENV} "
        f"(default ${API_KEY_ENV}; prefer the variable: flags are visible to other users)",
    )
    add_tls_arguments(parser)
    return parser


async def _main(args: argparse.Namespace, bots: list[BotSpec], players: list[int]) -> int:
    console = Console()
    spawned: SpawnedServer | None = None
    try:
        if args.spawn_server:
            spawned = SpawnedServer()
            address = await spawned.start()
            console.print(f"spawned server on {address}")
        else:
            address = args.server
        settings = Settings(
            bots=bots,
            players=players,
            games=args.games,
            address=address,
            out=args.out,
            time_limit_ms=args.time_limit_ms,
            concurrency=args.concurrency,
            seed=args.seed if args.seed is not None else random.randrange(1 << 31),
            transport=args.transport,
            api_key=args.api_key if args.api_key is not None else default_api_key(),
            calls_per_channel=args.calls_per_channel,
            # (a spawned server is plaintext, on loopback)
            tls=None if args.spawn_server else tls_from_args(args),
            game=args.game,
        )
        records = await run_tournament(settings, Console(stderr=True))
    finally:
        if spawned is not None:
            await spawned.stop()
    stats = summarize(records, [b.label for b in bots])
    failed = [r for r in records if r.error]
    title = f"{len(records) - len(failed)} {args.game} games, players {' '.join(map(str, players))}"
    console.print(results_table(stats, title))
    console.print(
        f"{len(records) - len(failed)} games in {settings.seconds:.1f} s: "
        f"{games_per_second(settings, records):.2f} games/s ({settings.concurrency} at once, "
        f"{settings.transport} transport)"
    )
    path = write_results(settings, records, stats)
    console.print(f"replays and {path.name} in {settings.out}/")
    for record in failed:
        name = record.game_id or "(not created)"
        console.print(f"[red]game {name} failed: {record.error}[/red]", markup=True)
    for record in records:
        for seat in record.failed_seats:
            console.print(
                f"[yellow]game {record.game_id}: {seat}; the server decided for it[/yellow]"
            )
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    bots: list[BotSpec] = []
    for spec in args.bots:
        try:
            bots.append(parse_bot(spec, [b.label for b in bots], args.game))
        except ValueError as exc:
            parser.error(str(exc))
    players = args.players or [min(5, max(2, len(bots)))]
    if any(not 2 <= p <= 5 for p in players):
        parser.error("--players must be between 2 and 5")
    if args.games < 1 or args.concurrency < 1 or args.time_limit_ms < 0:
        parser.error("--games and --concurrency must be positive, --time-limit-ms >= 0")
    if args.calls_per_channel < 1:
        parser.error("--calls-per-channel must be positive")
    try:
        return asyncio.run(_main(args, bots, players))
    except (RuntimeError, OSError, grpc.aio.AioRpcError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
