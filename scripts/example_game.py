"""End-to-end check of an example client in another language (`make ts-example`,
`make go-example`).

Starts the Python server on a free port (memory store when the server has one, else a
temporary data directory), creates a 4-player game, lets Python seats
(scripts/py_random_seat.py) and the example client play it with random legal actions, then
checks with GetResult that the game finished. For the TypeScript example the server requires
an API key, which every client sends (``$YGGDRASIL_API_KEY``), keeps its games on disk, and is
restarted mid-game (SIGTERM, then the same port and store; ``--restart-at``): its WatchGame
and PlaySession streams end UNAVAILABLE with where to resume, and every seat must reconnect,
resume there and finish the game. The examples:

    ts  clients/ts/dist/example/random_bot.js (built by `npm run build` in clients/ts), in two
        seats: one the frontends' way (GetView, SubmitAction, WatchGame), one over PlaySession
        (--session)
    go  build/go/random_bot (built by `scripts/gen_stubs.sh build-go`), which also cuts its
        own WatchGame stream now and then and checks the resume contract

With ``--tls`` the server speaks only TLS, with a certificate of a CA made for the run, and
every seat (the Python ones and the example) checks it against that CA (``--ca-file``); the
game's seats are all reserved behind join codes (issue 27), each seat's client is given its
own and joins with it. ``make ts-example`` and ``make go-example`` run that way.

Every process it starts is stopped on the way out, also on failure or Ctrl-C; their output
is shown when something goes wrong.

    .venv/bin/python scripts/example_game.py ts|go [--timeout 300] [--seed 7]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc

from scripts.procs import Proc, wait_for_address
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc as gs_grpc

ROOT = Path(__file__).resolve().parent.parent
# How each example is started, and how it is built when missing.
EXAMPLES = {
    "ts": (
        ["node", str(ROOT / "clients" / "ts" / "dist" / "example" / "random_bot.js")],
        "cd clients/ts && npm run build",
    ),
    "go": (
        [str(ROOT / "build" / "go" / "random_bot")],
        "scripts/gen_stubs.sh build-go",
    ),
}
SEAT_SCRIPT = ROOT / "scripts" / "py_random_seat.py"
PLAYERS = 4
# The extra options of each seat an example plays (the last seats of the game).
EXAMPLE_SEATS = {"ts": [[], ["--session"]], "go": [[]]}


def server_argv(data_dir: Path, durable: bool = False) -> list[str]:
    argv = [
        sys.executable,
        "-m",
        "server",
        "--port",
        "0",
        "--metrics-port",
        "-1",
        "--data-dir",
        str(data_dir),
        "--log-level",
        "WARNING",
    ]
    help_text = subprocess.run(
        [sys.executable, "-m", "server", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    if "--store" in help_text and not durable:
        argv += ["--store", "memory"]
    return argv


def example_argv(
    args: argparse.Namespace,
    target: str,
    game_id: str,
    seat: int,
    extra: list[str],
    secure: Sequence[str] = (),
) -> list[str]:
    """The example's command line for one seat (both take the same options)."""
    command, build = EXAMPLES[args.example]
    if not Path(command[-1]).exists():
        raise RuntimeError(f"{command[-1]} not found: build it first ({build})")
    options = {
        "target": target,
        "game-id": game_id,
        "seat": str(seat),
        "name": f"{args.example}-bot" + "".join(f"-{x.lstrip('-')}" for x in extra),
        "seed": str(args.seed + seat),
        "timeout": str(int(args.timeout)) if args.example == "ts" else f"{int(args.timeout)}s",
    }
    if args.example == "go":
        options["cut"] = "25"  # cut its stream after one in 25 messages and resume
    return (
        command
        + [part for name, value in options.items() for part in ("--" + name, value)]
        + extra
        + list(secure)
    )


def with_tls(argv: list[str], tmp: Path) -> tuple[list[str], Path]:
    """The server's command line serving TLS with a certificate of a CA made for this run,
    and that CA's file (what every client checks the server with)."""
    from localcluster.certs import Authority

    authority = Authority("example CA")
    cert, key = authority.issue("localhost").write(tmp / "tls", "server")
    return [*argv, "--tls-cert", str(cert), "--tls-key", str(key)], authority.write_ca(
        tmp / "tls" / "ca.pem"
    )


def with_api_key(argv: list[str], tmp: Path) -> tuple[list[str], str]:
    """The server's command line requiring an API key, and a key it accepts (the TypeScript
    example and the Python seats send it from $YGGDRASIL_API_KEY)."""
    key = "ygg_example-" + secrets.token_urlsafe(24)
    digest = hashlib.sha256(key.encode()).hexdigest()
    keys = tmp / "keys.toml"
    keys.write_text(f'[[keys]]\nname = "example"\nsha256 = "{digest}"\n', encoding="utf-8")
    return [*argv, "--api-keys", str(keys), "--require-api-key", "on"], key


def run(args: argparse.Namespace, tmp: Path, procs: list[Proc]) -> int:
    name = f"{args.example}-example"
    started = time.monotonic()
    restart_at = args.restart_at if args.example == "ts" else 0
    argv = server_argv(tmp / "data", durable=restart_at > 0)
    env = None
    metadata: tuple[tuple[str, str], ...] = ()
    if args.example == "ts":
        argv, key = with_api_key(argv, tmp)
        env = dict(os.environ, YGGDRASIL_API_KEY=key)
        metadata = (("authorization", f"Bearer {key}"),)
    ca: Path | None = None
    if args.tls:
        argv, ca = with_tls(argv, tmp)
    server_command = argv
    server = Proc("server", server_command, tmp)
    procs.append(server)
    target = wait_for_address(server, 60)
    print(f"{name}: server on {target} ({' '.join(argv[3:])})")
    if ca is not None:  # by the certificate's name (Node warns about an IP as a TLS name)
        target = "localhost:" + target.rsplit(":", 1)[1]

    channel = (
        grpc.secure_channel(target, grpc.ssl_channel_credentials(ca.read_bytes()))
        if ca is not None
        else grpc.insecure_channel(target)
    )
    with channel:
        stub = gs_grpc.GameServiceStub(channel)
        options = gp.GameOptions(player_count=PLAYERS, seed=args.seed)
        access = gs.GameAccess()
        if args.tls:  # every seat reserved: each client joins with its seat's code
            access.reservations.extend(
                gs.SeatReservation(seat=seat, join_code=True) for seat in range(PLAYERS)
            )
        created = stub.CreateGame(
            gs.CreateGameRequest(options=options, access=access), timeout=10, metadata=metadata
        )
        game_id = created.game_id
        codes = {c.seat: c.join_code for c in created.join_codes}

        def secure(seat: int, glued: bool = False) -> list[str]:
            if ca is None:
                return []
            # A code may begin with "-" (URL-safe base64): argparse would take it for an
            # option, so the Python seat gets it glued to its flag (Go and TS read on).
            code = [f"--join-code={codes[seat]}"] if glued else ["--join-code", codes[seat]]
            return ["--ca-file", str(ca), *code]

        print(
            f"{name}: created game {game_id} ({PLAYERS} seats, seed {args.seed}"
            + (", TLS, every seat behind a join code)" if ca is not None else ")")
        )

        players: list[Proc] = []
        examples = EXAMPLE_SEATS[args.example]
        for seat in range(PLAYERS - len(examples)):
            players.append(
                Proc(
                    f"py-seat-{seat}",
                    [
                        sys.executable,
                        str(SEAT_SCRIPT),
                        "--target",
                        target,
                        "--game-id",
                        game_id,
                        "--seat",
                        str(seat),
                        "--name",
                        f"py-{seat}",
                        "--seed",
                        str(args.seed + seat),
                        "--timeout",
                        str(args.timeout),
                        *secure(seat, glued=True),
                    ],
                    tmp,
                    env,
                )
            )
        for i, extra in enumerate(examples):
            seat = PLAYERS - len(examples) + i
            argv = example_argv(args, target, game_id, seat, extra, secure(seat))
            players.append(Proc(f"{args.example}-bot-{seat}", argv, tmp, env))
        procs.extend(players)

        deadline = time.monotonic() + args.timeout
        pending = list(players)
        while pending:
            if restart_at and _state_version(stub, game_id, metadata) >= restart_at:
                # Mid-game, the server shuts down (SIGTERM: streams end UNAVAILABLE with where
                # to resume) and comes back on the same port with the same store; every
                # client must reconnect, resume and finish the game.
                server.stop(grace_s=30)
                again = [*server_command, "--port", target.rsplit(":", 1)[1]]
                server = Proc("server-restarted", again, tmp)
                procs.append(server)
                wait_for_address(server, 60)
                print(f"{name}: server restarted at state version >= {restart_at}")
                restart_at = 0
            for proc in list(pending):
                code = proc.popen.poll()
                if code is None:
                    continue
                pending.remove(proc)
                if code != 0:
                    raise RuntimeError(f"{proc.name} exited with status {code}")
            if pending and time.monotonic() > deadline:
                names = ", ".join(p.name for p in pending)
                raise RuntimeError(f"timeout: {names} still running after {args.timeout:.0f} s")
            time.sleep(0.1)

        result = stub.GetResult(
            gs.GetResultRequest(game_id=game_id), timeout=10, metadata=metadata
        ).result
        view = stub.GetView(
            gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()),
            timeout=10,
            metadata=metadata,
        ).view
        if view.status != gp.GAME_STATUS_FINISHED:
            raise RuntimeError(f"game status is {gp.GameStatus.Name(view.status)}, not FINISHED")

    for proc in players[-len(examples) :]:
        print(proc.output().rstrip())
        if args.restart_at and args.example == "ts" and "shutting down" not in proc.output():
            raise RuntimeError(f"{proc.name} never saw the server shut down")
    scores = ", ".join(f"{s.name} {s.score}" for s in result.seats)
    print(
        f"{name}: game {game_id} FINISHED at state version {view.state_version}"
        f" in {time.monotonic() - started:.1f} s; winners {list(result.winners)}; {scores}"
    )
    return 0


def _state_version(stub: gs_grpc.GameServiceStub, game_id: str, metadata: Any) -> int:
    view = stub.GetView(
        gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()),
        timeout=10,
        metadata=metadata,
    ).view
    return int(view.state_version)


def main() -> int:
    parser = argparse.ArgumentParser(description="End-to-end run of an example client.")
    parser.add_argument("example", choices=sorted(EXAMPLES), help="which example client")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds for the game")
    parser.add_argument("--seed", type=int, default=7, help="game seed (and bots' seeds)")
    parser.add_argument(
        "--restart-at",
        type=int,
        default=40,
        help="ts: restart the server (SIGTERM, same port and store) once the game reaches this "
        "state version; the example seats must resume (0: no restart)",
    )
    parser.add_argument(
        "--tls",
        action="store_true",
        help="the server speaks TLS (a CA made for the run) and every seat is reserved behind a "
        "join code its client is given",
    )
    args = parser.parse_args()

    # Turn SIGTERM into an exception so that the clean-up below runs.
    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    procs: list[Proc] = []
    status = 1
    with tempfile.TemporaryDirectory(prefix=f"ygg-{args.example}-example-") as tmp_name:
        tmp = Path(tmp_name)
        try:
            status = run(args, tmp, procs)
        except (RuntimeError, grpc.RpcError, KeyboardInterrupt, OSError) as err:
            if isinstance(err, grpc.RpcError):
                message = f"{err.code().name}: {err.details()}"
            else:
                message = str(err) or type(err).__name__
            print(f"{args.example}-example: FAILED: {message}", file=sys.stderr)
            status = 1
        finally:
            stoppers = [threading.Thread(target=p.stop) for p in reversed(procs)]
            for t in stoppers:
                t.start()
            for t in stoppers:
                t.join()
            if status != 0:
                for proc in procs:
                    tail = "\n".join(line[:300] for line in proc.output().splitlines()[-30:])
                    print(
                        f"---- {proc.name} (exit {proc.popen.returncode}), last lines:\n{tail}",
                        file=sys.stderr,
                    )
    return status


if __name__ == "__main__":
    sys.exit(main())
