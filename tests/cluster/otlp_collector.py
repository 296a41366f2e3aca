"""A small OTLP/gRPC trace collector for tests: the real ``TraceService/Export`` endpoint (the
stubs opentelemetry-proto ships), on a free loopback port, keeping every span it is sent with
its service so a test can follow one trace across Envoy and the nodes.

    collector = await OtlpCollector().start()
    ... OTEL_EXPORTER_OTLP_ENDPOINT=collector.endpoint, Envoy's tracer at collector.address ...
    spans = await collector.wait_for(lambda spans: ..., timeout_s=20)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

import grpc.aio
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as ts
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as ts_grpc
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1 import trace_pb2


@dataclass(frozen=True)
class ReceivedSpan:
    """One exported span, with the resource it came from."""

    service: str
    instance: str  # service.instance.id ("" if the exporter sent none)
    name: str
    kind: str  # "SERVER", "CLIENT", "INTERNAL", ...
    trace_id: str  # hex
    span_id: str
    parent_id: str  # "" for a root span
    attributes: dict[str, str]


def _text(value: AnyValue) -> str:
    found = value.WhichOneof("value")
    return "" if found is None else str(getattr(value, found))


def _attributes(items: list[KeyValue]) -> dict[str, str]:
    return {item.key: _text(item.value) for item in items}


class OtlpCollector(ts_grpc.TraceServiceServicer):
    """Receives OTLP/gRPC trace exports; ``spans`` holds what arrived, in order."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.server: grpc.aio.Server | None = None
        self.port = 0

    @property
    def address(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)

    @property
    def endpoint(self) -> str:
        """What OTEL_EXPORTER_OTLP_ENDPOINT is set to."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> OtlpCollector:
        self.server = grpc.aio.server()
        ts_grpc.add_TraceServiceServicer_to_server(self, self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()
        return self

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop(grace=0.5)

    async def Export(
        self, request: ts.ExportTraceServiceRequest, context: grpc.aio.ServicerContext
    ) -> ts.ExportTraceServiceResponse:
        for resource_spans in request.resource_spans:
            resource = _attributes(list(resource_spans.resource.attributes))
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    self.spans.append(
                        ReceivedSpan(
                            service=resource.get("service.name", ""),
                            instance=resource.get("service.instance.id", ""),
                            name=span.name,
                            kind=trace_pb2.Span.SpanKind.Name(span.kind).removeprefix("SPAN_KIND_"),
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_id=span.parent_span_id.hex(),
                            attributes=_attributes(list(span.attributes)),
                        )
                    )
        return ts.ExportTraceServiceResponse()

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        return [s for s in self.spans if s.trace_id == trace_id]

    async def wait_for(
        self, done: Callable[[list[ReceivedSpan]], bool], timeout_s: float = 30.0
    ) -> list[ReceivedSpan]:
        """The spans received, once ``done(spans)`` holds (AssertionError after ``timeout_s``,
        listing what did arrive)."""
        deadline = time.monotonic() + timeout_s
        while not done(self.spans):
            if time.monotonic() > deadline:
                raise AssertionError(f"spans still missing after {timeout_s} s: {self.spans}")
            await asyncio.sleep(0.05)
        return list(self.spans)
