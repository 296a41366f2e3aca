"""`make web`: the browser client on this machine, in one command.

Starts the gRPC server (`python -m server`, its own process), a static file server for the
built page (clients/web/dist, built by `make web` first) and Envoy in front of both
(deploy/envoy/web.yaml through scripts/envoy_proxy.py), so one URL serves the page and its
gRPC-Web API. Then prints that URL and waits for Ctrl-C, stopping everything it started.

Bot seats: a game created with seats named "bot" (the lobby's "other seats: bots") gets
those seats played by bots run here, each game's own (clients.sdk.play_seat, its heuristic
bot by default, a short pause per decision so that people can follow). Their seat tokens are
kept in <data-dir>/web-bots.json, so after a restart the bots resume the games the server
restored.

    .venv/bin/python scripts/web.py [--port 8080] [--store memory] [--bot random]
        [--bot-delay-ms 400] [--bot-seed N] [--no-bots] [--ready-file FILE]

--ready-file writes {"url": ..., "grpc": ..., "envoy_grpc": ...} once everything serves (the
browser tests read it); --port 0 picks a free port.

Over https (issue 27): ``--tls`` has Envoy serve the page and gRPC-Web over TLS only, with the
certificate and key given (``--tls-cert``, ``--tls-key``: a real one for a page on the open
internet, re-read by Envoy when renewed), or with a throwaway CA and certificate made here,
whose CA file is printed (import it into the browser, or accept the certificate once). The
ready file then also carries ``ca`` and ``spki`` (the certificate's SHA-256 public-key pin,
which the browser tests give Chromium to accept exactly that certificate).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import functools
import json
import random
import secrets
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc.aio

from clients.bots import Bot
from clients.sdk import game_of, make_bot, play_seat
from scripts.envoy_proxy import (
    Envoy,
    EnvoyError,
    TlsFiles,
    local_config,
    otlp_endpoint,
    with_tls,
    write_sds,
)
from scripts.procs import Proc, server_argv, wait_for_address
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc as gs_grpc

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "clients" / "web" / "dist"
BOT_NAME = "bot"  # clients/web/src/components/Lobby.tsx names bot seats so


class QuietHandler(SimpleHTTPRequestHandler):
    """Static files without a log line per request; index.html is never cached, so a
    rebuilt page is picked up on reload (the hashed assets may be)."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        if self.path in ("/", "/index.html"):
            self.send_header("Cache-Control", "no-store")
        super().end_headers()


def serve_static(directory: Path) -> ThreadingHTTPServer:
    """An HTTP server for ``directory`` on a free loopback port, in a daemon thread."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, name="static", daemon=True).start()
    return httpd


class PacedBot:
    """A bot that waits ``delay_s`` before each decision (in the SDK's worker thread), so a
    person sees the bots' moves one by one."""

    def __init__(self, inner: Bot, delay_s: float) -> None:
        self.inner = inner
        self.delay_s = delay_s
        self.name = inner.name

    def choose(self, view: dict[str, Any], rng: random.Random) -> int:
        if self.delay_s:
            time.sleep(self.delay_s)
        return self.inner.choose(view, rng)


@dataclass
class BotSeats:
    """Plays every free seat named "bot" of the server's open games, and resumes the seats
    it holds (tokens in ``token_file``) of games still in progress."""

    address: str
    bot_spec: str
    delay_s: float
    token_file: Path | None
    seed: int | None = None  # seeds each bot's choices with (seed, seat): repeatable tests
    tasks: dict[tuple[str, int], asyncio.Task[Any]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)  # "game/seat" -> token

    def load(self) -> None:
        if self.token_file and self.token_file.exists():
            with contextlib.suppress(ValueError, OSError):
                self.tokens = dict(json.loads(self.token_file.read_text()))

    def save(self) -> None:
        if self.token_file:
            self.token_file.write_text(json.dumps(self.tokens, indent=1))

    def start(self, game_id: str, seat: int, token: str | None) -> None:
        key = (game_id, seat)
        if key in self.tasks:
            return
        if token is None:
            token = self.new_token()
            self.tokens[f"{game_id}/{seat}"] = token
            self.save()
        self.tasks[key] = asyncio.create_task(self._play(game_id, seat, token))

    async def _bot(self, game_id: str) -> PacedBot:
        """The game's own bot of ``bot_spec`` (its heuristic when the game has no such
        strategy: ``ismcts`` is Blood Rage's)."""
        game = await game_of(self.address, game_id)
        try:
            inner = make_bot(self.bot_spec, game)
        except ValueError:
            inner = make_bot("heuristic", game)
        return PacedBot(inner, self.delay_s)

    async def _play(self, game_id: str, seat: int, token: str) -> None:
        try:
            bot = await self._bot(game_id)
        except (grpc.aio.AioRpcError, ValueError) as error:
            print(f"web: no bot for {game_id} seat {seat}: {error!r}", file=sys.stderr)
            return
        async with grpc.aio.insecure_channel(self.address) as channel:
            stub = gs_grpc.GameServiceStub(channel)
            with contextlib.suppress(grpc.aio.AioRpcError):
                # Claim with our own token first (retry-safe), then let the SDK play it.
                await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat,
                                                       seat_token=token), timeout=10)
        try:
            rng = random.Random() if self.seed is None else random.Random(self.seed * 10 + seat)
            await play_seat(self.address, game_id, bot, token=token, rng=rng)
        except Exception as error:  # a bot's failure must not stop the others
            print(f"web: bot for {game_id} seat {seat} stopped: {error!r}", file=sys.stderr)
        finally:
            self.tokens.pop(f"{game_id}/{seat}", None)
            self.save()

    @staticmethod
    def new_token() -> str:
        return secrets.token_urlsafe(32)

    async def run(self) -> None:
        self.load()
        for saved, token in list(self.tokens.items()):
            game_id, _, seat_text = saved.partition("/")
            self.start(game_id, int(seat_text), token)
        async with grpc.aio.insecure_channel(self.address) as channel:
            stub = gs_grpc.GameServiceStub(channel)
            while True:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    reply = await stub.ListGames(
                        gs.ListGamesRequest(status=gp.GAME_STATUS_OPEN, page_size=200), timeout=10
                    )
                    for game in reply.games:
                        for info in game.seats:
                            if not info.claimed and info.name.lower().startswith(BOT_NAME):
                                self.start(game.game_id, info.seat, None)
                for running, task in list(self.tasks.items()):
                    if task.done():
                        del self.tasks[running]
                await asyncio.sleep(0.5)


async def serve(args: argparse.Namespace, work: Path) -> None:
    """Start everything, print the URL, run the bots until cancelled."""
    if not (DIST / "index.html").exists():
        raise RuntimeError(f"{DIST}/index.html not found: build the page first (make web does)")
    store = ["--store", "memory"] if args.store == "memory" else ["--data-dir", str(args.data_dir)]
    server = Proc("server", server_argv(*store), work)
    httpd: ThreadingHTTPServer | None = None
    envoy: Envoy | None = None
    try:
        address = await asyncio.to_thread(wait_for_address, server, 120)
        host, _, port = address.rpartition(":")
        httpd = serve_static(DIST)
        config = local_config(
            upstreams=[(host, int(port))],
            page=("127.0.0.1", httpd.server_address[1]),
            listen=(args.host, args.port),
            otlp_endpoint=otlp_endpoint(),  # the server inherits the variable too
        )
        tls: dict[str, str] = {}
        if args.tls:
            config, tls = with_page_tls(config, args, work)
        envoy = await asyncio.to_thread(Envoy(config, log_dir=work).start)
        scheme = "https" if args.tls else "http"
        shown = args.host if args.host != "0.0.0.0" else "127.0.0.1"
        if args.tls and shown == "127.0.0.1":
            shown = "localhost"  # the name the throwaway certificate carries first
        url = f"{scheme}://{shown}:{envoy.port}/"
        if args.ready_file:
            args.ready_file.write_text(json.dumps(
                {"url": url, "grpc": address, "envoy_grpc": envoy.address, "logs": str(work),
                 **tls}
            ))
        if "ca" in tls:
            print(f"web: https with a throwaway CA: {tls['ca']} (import it into the browser, "
                  "or pass --tls-cert/--tls-key)", flush=True)
        print(f"web: open {url}  (gRPC server {address}, Envoy {envoy.address}; Ctrl-C stops)",
              flush=True)
        if not args.bots:
            await asyncio.Event().wait()
        token_file = None if args.store == "memory" else args.data_dir / "web-bots.json"
        bots = BotSeats(address, args.bot, args.bot_delay_ms / 1000.0, token_file, args.bot_seed)
        await bots.run()
    finally:
        if envoy is not None:
            envoy.stop()
        if httpd is not None:
            httpd.shutdown()
        server.stop()


def with_page_tls(
    config: dict[str, Any], args: argparse.Namespace, work: Path
) -> tuple[dict[str, Any], dict[str, str]]:
    """Envoy's configuration serving the page and gRPC-Web over TLS (the server behind it is
    on loopback), and what the ready file says of it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization

    facts: dict[str, str] = {}
    if args.tls_cert is not None:
        cert, key = args.tls_cert.resolve(), args.tls_key.resolve()
    else:
        from localcluster.certs import Authority

        authority = Authority("Yggdrasil web (throwaway) CA")
        names = ["localhost", *([args.host] if args.host not in ("127.0.0.1", "0.0.0.0") else [])]
        issued = authority.issue(names[0], dns=names, client=False)
        cert, key = issued.write(work / "tls", "page")
        facts["ca"] = str(authority.write_ca(work / "tls" / "ca.pem"))
    public = x509.load_pem_x509_certificate(cert.read_bytes()).public_key()
    der = public.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    digest = hashes.Hash(hashes.SHA256())
    digest.update(der)
    facts["spki"] = base64.b64encode(digest.finalize()).decode()
    sds = write_sds(TlsFiles(str(cert), str(key)), work / "sds")
    return with_tls(config, str(sds), upstream=False), facts


def main() -> int:
    parser = argparse.ArgumentParser(prog="scripts/web.py", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="Envoy's listen address")
    parser.add_argument("--port", type=int, default=8080, help="Envoy's port (0: a free one)")
    parser.add_argument("--store", choices=["sqlite", "memory"], default="sqlite",
                        help="the server's game store (default sqlite in --data-dir)")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "data" / "web",
                        help="the server's data directory (default data/web)")
    parser.add_argument("--bots", action=argparse.BooleanOptionalAction, default=True,
                        help="play seats named 'bot' (default on)")
    parser.add_argument("--bot", default="heuristic", help="random, heuristic or ismcts[:ms]")
    parser.add_argument("--bot-delay-ms", type=int, default=400, help="bots' pause per decision")
    parser.add_argument("--bot-seed", type=int, default=None,
                        help="seed the bots' choices (default: unseeded)")
    parser.add_argument("--ready-file", type=Path, default=None,
                        help="write the URL and addresses here as JSON once serving")
    parser.add_argument("--tls", action="store_true",
                        help="serve the page and gRPC-Web over https (see the module doc)")
    parser.add_argument("--tls-cert", type=Path, default=None,
                        help="the page's PEM certificate (default with --tls: a throwaway one)")
    parser.add_argument("--tls-key", type=Path, default=None, help="the key of --tls-cert")
    args = parser.parse_args()
    if (args.tls_cert is None) != (args.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    args.tls = args.tls or args.tls_cert is not None
    if args.store == "sqlite":
        args.data_dir.mkdir(parents=True, exist_ok=True)

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    # Ctrl-C stops everything even when a shell started this in the background (which would
    # otherwise leave SIGINT ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with tempfile.TemporaryDirectory(prefix="ygg-web-") as tmp:
        try:
            asyncio.run(serve(args, Path(tmp)))
        except KeyboardInterrupt:
            print("web: stopped", flush=True)
        except (RuntimeError, EnvoyError, OSError) as error:
            print(f"web: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
