"""Tracing: off by default; with an exporter, one trace runs from the caller through the node
that forwards, to the owner and its store statements. Run in a child process: OpenTelemetry's
tracer provider is global and can be set once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from server.ops import tracing

ROOT = Path(__file__).resolve().parents[2]

_CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    sys.path.insert(0, "tests/cluster")
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry import trace
    from server.ops import tracing

    exporter = InMemorySpanExporter()
    assert tracing.configure(exporter=exporter)
    from cluster_support import new_game, start_node
    import grpc
    from yggdrasil.v1 import game_service_pb2 as gs, game_service_pb2_grpc

    async def main():
        a = await start_node(sys.argv[1])
        b = await start_node(sys.argv[1])
        try:
            game_id = await new_game(a)
            exporter.clear()
            address = f"127.0.0.1:{b.running.port}"
            interceptors = tracing.client_interceptors()
            async with grpc.aio.insecure_channel(address, interceptors=interceptors) as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                with trace.get_tracer("test").start_as_current_span("client") as span:
                    await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0))
                    trace_id = span.get_span_context().trace_id
        finally:
            await a.stop()
            await b.stop()
        spans = [
            {"name": s.name, "kind": s.kind.name, "trace": s.context.trace_id == trace_id}
            for s in exporter.get_finished_spans()
        ]
        print(json.dumps(spans))

    asyncio.run(main())
    """
)


def test_tracing_is_off_without_an_endpoint() -> None:
    assert not tracing.configure(env={})
    assert not tracing.enabled()
    assert tracing.server_interceptors() == () and tracing.client_interceptors() == ()


def test_one_trace_runs_through_the_forwarding_node_to_the_owners_store(pg_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, pg_url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    spans = json.loads(done.stdout.strip().splitlines()[-1])
    joined = [s for s in spans if s["trace"]]
    names = [(s["name"], s["kind"]) for s in joined]
    server_spans = [n for n, k in names if n.endswith("/JoinGame") and k == "SERVER"]
    assert len(server_spans) == 2, spans  # the forwarding node's and the owner's
    assert ("/yggdrasil.v1.GameService/JoinGame", "CLIENT") in names, names
    assert ("store.claim", "INTERNAL") in names, names
