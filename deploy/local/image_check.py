"""``make image-check``: the server image starts and answers, as an operator would find it.

Runs the image built by ``make image`` on its own (SQLite store in its /data volume, gRPC and
/metrics published on free ports of 127.0.0.1), then checks from outside: health SERVING
within START_LIMIT_S of ``podman run``, a game created and viewed over gRPC, the project's
version in ``Ping``'s answer and in /metrics (yggdrasil_build_info), the process not root,
the image's HEALTHCHECK passing, and a SIGTERM stop that drains and exits 0. The container
and its volume are removed at the end, whatever happened."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import urllib.request

import grpc
from stack import (
    CheckFailed,
    Steps,
    image_exists,
    podman,
    project_version,
    require_tools,
    server_image,
    until,
)

from clients.connection import open_channel, stub_for
from server.probe import check
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1.diagnostics_service_pb2 import PingRequest
from yggdrasil.v1.diagnostics_service_pb2_grpc import DiagnosticsServiceStub

# The bound on the time from `run` to SERVING (an empty store; a large one takes
# longer to restore, which is what the HEALTHCHECK's start period is for).
START_LIMIT_S = 5.0
NAME = "yggdrasil-image-check"


def published(port: int) -> str:
    """The 127.0.0.1 address podman picked for the container's ``port``."""
    mapping = podman("port", NAME, f"{port}/tcp")  # e.g. 127.0.0.1:41234
    return mapping.splitlines()[0].strip()


def create_and_view(address: str) -> str:
    """One CreateGame and one GetView over gRPC, as a client would, and the version Ping
    reports; the new game's id."""

    async def call() -> str:
        channel = open_channel(address)
        try:
            pong = await DiagnosticsServiceStub(channel).Ping(PingRequest(), timeout=5)
            if pong.server_version != project_version():
                raise CheckFailed(f"Ping says version {pong.server_version!r}")
            stub = stub_for(channel)
            created = await stub.CreateGame(
                gs.CreateGameRequest(options=gp.GameOptions(player_count=3, seed=1)), timeout=5
            )
            view = await stub.GetView(
                gs.GetViewRequest(game_id=created.game_id, spectator=gs.Spectator()), timeout=5
            )
            if view.view.status != gp.GAME_STATUS_OPEN:
                raise CheckFailed(f"a new game's status is {view.view.status}")
            return str(created.game_id)
        finally:
            await channel.close()

    return asyncio.run(call())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default=server_image())
    args = parser.parse_args(argv)
    require_tools("podman")
    image: str = args.image
    if not image_exists(image):
        raise CheckFailed(f"no image {image}: run make image")
    steps = Steps("image-check")
    podman("rm", "-f", "-v", NAME, check=False)
    try:
        with steps.step(f"{image} starts and serves") as notes:
            start = time.monotonic()
            podman(
                "run", "-d", "--name", NAME, "-p", "127.0.0.1::50051", "-p", "127.0.0.1::9464",
                "--read-only", "--tmpfs", "/tmp", image,
            )  # fmt: skip
            grpc_address = published(50051)
            until(
                lambda: check(grpc_address, "yggdrasil.v1.GameService", 1.0).serving,
                timeout=30,
                interval=0.1,
                what=f"{grpc_address} SERVING",
            )
            seconds = time.monotonic() - start
            notes.append(f"SERVING {seconds:.1f} s after podman run (limit {START_LIMIT_S} s)")
            if seconds > START_LIMIT_S:
                raise CheckFailed(f"the server took {seconds:.1f} s to serve")
        with steps.step("a client creates and views a game; Ping gives the version") as notes:
            notes.append(f"game {create_and_view(grpc_address)}, version {project_version()}")
        with steps.step("/metrics is served, with yggdrasil_build_info") as notes:
            metrics_url = f"http://{published(9464)}/metrics"
            with urllib.request.urlopen(metrics_url, timeout=5) as answer:
                text = answer.read().decode()
            build = f'yggdrasil_build_info{{version="{project_version()}"}} 1.0'
            if "yggdrasil_games_hosted" not in text or build not in text:
                raise CheckFailed(f"{metrics_url} lacks yggdrasil_games_hosted or {build}")
            notes.append(metrics_url)
        with steps.step("not root; the image's HEALTHCHECK passes") as notes:
            uid = podman("exec", NAME, "id", "-u")
            if uid == "0":
                raise CheckFailed("the server runs as root")
            healthcheck = podman("inspect", "--format", "{{json .Config.Healthcheck}}", NAME)
            if "server.probe" not in healthcheck:
                raise CheckFailed(f"the image has no probe HEALTHCHECK: {healthcheck}")
            podman("healthcheck", "run", NAME)
            notes.append(f"uid {uid}")
        with steps.step("SIGTERM drains and exits 0") as notes:
            podman("stop", "--time", "30", NAME, timeout=60)
            code = podman("inspect", "--format", "{{.State.ExitCode}}", NAME)
            if code != "0":
                raise CheckFailed(f"the server exited {code} on SIGTERM")
            notes.append("exit 0")
    except (CheckFailed, grpc.RpcError):
        print(podman("logs", "--tail", "30", NAME, check=False), file=sys.stderr)
        raise
    finally:
        podman("rm", "-f", "-v", NAME, check=False)
    steps.summary()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CheckFailed as failure:
        print(f"image-check: FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
