"""JSON logging, redaction and the access-log interceptor."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import grpc
import grpc.aio
import pytest
import structlog

from server.ops.logs import (
    REDACTED,
    AccessLogInterceptor,
    configure_logging,
    log_action_applied,
)
from server.ops.metrics import Metrics, MetricsInterceptor
from tests.server.serving import serving

Lines = Callable[[], list[dict[str, Any]]]
SERVICE = "test.Game"


def test_json_line_fields(captured: tuple[io.StringIO, Lines]) -> None:
    _, lines = captured
    structlog.get_logger().bind(game_id="g7").info("game_created", players=4)
    (line,) = lines()
    assert line["event"] == "game_created"
    assert line["level"] == "info"
    assert line["game_id"] == "g7"
    assert line["players"] == 4
    stamp = datetime.fromisoformat(line["timestamp"].replace("Z", "+00:00"))
    assert stamp.utcoffset() == timedelta(0)


def test_secrets_are_redacted_at_any_depth(captured: tuple[io.StringIO, Lines]) -> None:
    buffer, lines = captured
    secret = "tok-SHOULD-NOT-APPEAR"
    structlog.get_logger().warning(
        "oops",
        token=secret,
        seat_token=secret,
        Admin_Token=secret,
        reconnect_token=secret,
        hand=["card-SHOULD-NOT-APPEAR"],
        pack=[1, 2],
        kept_card="kc",
        quests=["q"],
        battle_card="bc",
        request={"seat": 1, "seat_token": secret, "moves": [{"pack": "p"}]},
        tokenizer="kept",
        seat=3,
    )
    assert "SHOULD-NOT-APPEAR" not in buffer.getvalue()
    (line,) = lines()
    for key in (
        "token",
        "seat_token",
        "Admin_Token",
        "reconnect_token",
        "hand",
        "pack",
        "kept_card",
        "quests",
        "battle_card",
    ):
        assert line[key] == REDACTED, key
    assert line["request"] == {"seat": 1, "seat_token": REDACTED, "moves": [{"pack": REDACTED}]}
    assert line["tokenizer"] == "kept"
    assert line["seat"] == 3


def test_level_filter_and_bad_level(captured: tuple[io.StringIO, Lines]) -> None:
    buffer, lines = captured
    configure_logging("warning", buffer)
    log = structlog.get_logger()
    log.info("hidden")
    log.error("shown")
    assert [line["event"] for line in lines()] == ["shown"]
    with pytest.raises(ValueError, match="chatty"):
        configure_logging("chatty", buffer)


def test_stdlib_records_become_json(captured: tuple[io.StringIO, Lines]) -> None:
    _, lines = captured
    structlog.contextvars.bind_contextvars(request_id="abc123")
    try:
        raise KeyError("kaput")
    except KeyError:
        logging.getLogger("grpc._server").exception("failed %s", "here")
    (line,) = lines()
    assert line["event"] == "failed here"
    assert line["level"] == "error"
    assert line["logger"] == "grpc._server"
    assert line["request_id"] == "abc123"
    assert "KeyError" in line["exception"]
    assert "timestamp" in line


def test_log_action_applied(captured: tuple[io.StringIO, Lines]) -> None:
    _, lines = captured
    log_action_applied(structlog.get_logger(), "g1", 2, "march", "accepted", 0.123456, 17)
    (line,) = lines()
    assert line["event"] == "action_applied"
    assert {
        k: line[k] for k in ("game_id", "seat", "kind", "outcome", "latency_ms", "version")
    } == {
        "game_id": "g1",
        "seat": 2,
        "kind": "march",
        "outcome": "accepted",
        "latency_ms": 0.123,
        "version": 17,
    }


# --- the interceptor over a real server --------------------------------------


def _decode(data: bytes) -> SimpleNamespace:
    return SimpleNamespace(**json.loads(data))


async def _act(request: SimpleNamespace, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    log = structlog.get_logger()
    log.info("inside", seat_token=request.token)
    await asyncio.sleep(0.01)  # let concurrent RPCs interleave
    log_action_applied(log, request.game_id, request.seat, "march", "accepted", 1.0, 3)
    return b"{}"


async def _missing(request: SimpleNamespace, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    await context.abort(grpc.StatusCode.NOT_FOUND, "no such game")


async def _broken(request: SimpleNamespace, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    raise RuntimeError("bug")


def _serving(metrics: Metrics) -> AbstractAsyncContextManager[grpc.aio.Channel]:
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
        name: grpc.unary_unary_rpc_method_handler(fn, request_deserializer=_decode)
        for name, fn in (("Act", _act), ("Missing", _missing), ("Broken", _broken))
    }
    service = grpc.method_handlers_generic_handler(SERVICE, handlers)
    return serving([AccessLogInterceptor(), MetricsInterceptor(metrics)], service)


def _encode(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


def _raw(data: bytes) -> bytes:
    return data


def _unary(
    channel: grpc.aio.Channel, method: str
) -> grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]:
    return channel.unary_unary(f"/{SERVICE}/{method}", _raw, _raw)


@pytest.mark.asyncio
async def test_access_log_and_request_context(captured: tuple[io.StringIO, Lines]) -> None:
    buffer, lines = captured
    metrics = Metrics(registry=None)
    secret = "seat-token-SHOULD-NOT-APPEAR"
    async with _serving(metrics) as channel:
        act = _unary(channel, "Act")
        await asyncio.gather(
            act(_encode(game_id="g1", seat=2, token=secret)),
            act(_encode(game_id="g2", seat=0, token=secret)),
        )
        with pytest.raises(grpc.aio.AioRpcError):
            await _unary(channel, "Missing")(_encode(other=1))
        with pytest.raises(grpc.aio.AioRpcError):
            await _unary(channel, "Broken")(_encode(game_id="g3"))

    assert "SHOULD-NOT-APPEAR" not in buffer.getvalue()
    ours = [line for line in lines() if "logger" not in line]  # skip stdlib records
    rpc = [line for line in ours if line["event"] == "rpc"]
    assert len(rpc) == 4
    by_game = {line.get("game_id"): line for line in rpc}

    for game_id, seat in (("g1", 2), ("g2", 0)):
        access = by_game[game_id]
        assert access["method"] == "Act"
        assert access["code"] == "OK"
        assert access["level"] == "debug"  # access lines are DEBUG unless asked for
        assert access["seat"] == seat
        assert isinstance(access["latency_ms"], float) and access["latency_ms"] >= 10
        assert access["peer"].startswith("ipv4:127.0.0.1:")
        assert re.fullmatch(r"[0-9a-f]{12}", access["request_id"])
        # Lines logged inside the handler carry the same request context.
        inner = [
            line
            for line in ours
            if line["event"] in ("inside", "action_applied")
            and line.get("request_id") == access["request_id"]
        ]
        assert [line["event"] for line in inner] == ["inside", "action_applied"]
        for line in inner:
            assert line["game_id"] == game_id and line["seat"] == seat
            assert line["method"] == "Act"
        assert inner[0]["seat_token"] == REDACTED
    assert by_game["g1"]["request_id"] != by_game["g2"]["request_id"]

    missing = by_game[None]
    assert missing["method"] == "Missing" and missing["code"] == "NOT_FOUND"
    assert "seat" not in missing
    broken = by_game["g3"]
    assert broken["code"] == "UNKNOWN" and broken["level"] == "error"
    # Both interceptors saw the same outcomes.
    count = metrics.registry.get_sample_value
    assert count("yggdrasil_rpc_duration_seconds_count", {"method": "Act", "code": "OK"}) == 2
    assert (
        count("yggdrasil_rpc_duration_seconds_count", {"method": "Missing", "code": "NOT_FOUND"})
        == 1
    )


class _FakeContext:
    def code(self) -> None:
        return None

    def peer(self) -> str:
        return "ipv4:127.0.0.1:1"

    def time_remaining(self) -> None:
        return None


@pytest.mark.asyncio
async def test_context_is_unbound_after_the_rpc(captured: tuple[io.StringIO, Lines]) -> None:
    _, lines = captured
    structlog.contextvars.bind_contextvars(outer="kept")

    async def behaviour(request: Any, context: Any) -> str:
        structlog.get_logger().info("inside")
        return "done"

    inner: grpc.RpcMethodHandler[Any, Any] = grpc.unary_unary_rpc_method_handler(behaviour)

    async def continuation(details: Any) -> Any:
        return inner

    interceptor = AccessLogInterceptor(quiet_methods={"Ping"})
    details = SimpleNamespace(method="/x.Y/Ping", invocation_metadata=())
    handler = await interceptor.intercept_service(continuation, details)
    assert handler is not None and handler is not inner
    # The wrapped handler is cached while the inner one is unchanged.
    assert await interceptor.intercept_service(continuation, details) is handler
    assert handler.unary_unary is not None
    context: Any = _FakeContext()
    result = await handler.unary_unary(SimpleNamespace(game_id="g9"), context)
    assert result == "done"
    assert structlog.contextvars.get_contextvars() == {"outer": "kept"}
    inside, access = [line for line in lines() if "logger" not in line]  # skip stdlib
    assert inside["game_id"] == "g9" and inside["outer"] == "kept"
    assert access["event"] == "rpc" and access["level"] == "debug"  # quiet method


@pytest.mark.asyncio
async def test_access_level_info_keeps_quiet_methods_at_debug(
    captured: tuple[io.StringIO, Lines],
) -> None:
    _, lines = captured

    async def behaviour(request: Any, context: Any) -> str:
        return "done"

    inner: grpc.RpcMethodHandler[Any, Any] = grpc.unary_unary_rpc_method_handler(behaviour)

    async def continuation(details: Any) -> Any:
        return inner

    interceptor = AccessLogInterceptor(quiet_methods={"Ping"}, level=logging.INFO)
    for method in ("Ping", "Act"):
        details = SimpleNamespace(method=f"/x.Y/{method}", invocation_metadata=())
        handler = await interceptor.intercept_service(continuation, details)
        assert handler is not None and handler.unary_unary is not None
        await handler.unary_unary(SimpleNamespace(), _FakeContext())
    access = [(line["method"], line["level"]) for line in lines() if line["event"] == "rpc"]
    assert access == [("Ping", "debug"), ("Act", "info")]


def test_values_the_fast_encoder_refuses_are_still_logged(
    captured: tuple[io.StringIO, Lines],
) -> None:
    # Ints past 64 bits and non-string keys: the line falls back to the standard encoder.
    _, lines = captured
    structlog.get_logger().info("odd_values", big=2**70, by_seat={0: "a", 1: "b"}, text="é\n")
    (line,) = lines()
    assert line["big"] == 2**70
    assert line["by_seat"] == {"0": "a", "1": "b"}
    assert line["text"] == "é\n"
