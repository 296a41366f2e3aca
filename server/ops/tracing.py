"""OpenTelemetry tracing: off by default, exported over OTLP when configured.

Set ``OTEL_EXPORTER_OTLP_ENDPOINT`` (for example ``http://otel-collector:4317``; the other
standard ``OTEL_*`` variables apply too, such as ``OTEL_SERVICE_NAME`` and
``OTEL_TRACES_SAMPLER``) and the server exports spans over OTLP/gRPC in batches:

* one server span per gRPC call except health checks (``opentelemetry-instrumentation-grpc``'s
  grpc.aio interceptor), continuing the caller's trace from its ``traceparent`` header (in a
  cluster the caller is Envoy, whose OpenTelemetry tracer ``make cluster`` and the deploy
  files turn on with the same variable: docs/cluster.md, "Tracing");
* one client span per call a cluster node forwards to the game's owner, whose context travels
  in the forwarded call, so the owner's server span joins the same trace;
* one span per PostgreSQL statement (``store.append``, ``store.claim``, ...).

Without the variable nothing is installed: the tracer is OpenTelemetry's no-op one, and the
interceptors are not added at all.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import grpc.aio
from opentelemetry import trace

__all__ = ["TRACER", "client_interceptors", "configure", "enabled", "server_interceptors"]

ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
TRACES_ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"

# Store spans go through this tracer: a no-op until a provider is configured.
TRACER = trace.get_tracer("yggdrasil.store")

_provider: Any = None


def enabled() -> bool:
    return _provider is not None


def configure(
    service_name: str = "yggdrasil",
    *,
    instance: str = "",
    exporter: Any = None,
    env: dict[str, str] | None = None,
) -> bool:
    """Install a tracer provider exporting over OTLP if the environment asks for it (or with
    ``exporter``, for tests). ``instance`` (a cluster node's id) becomes the resource's
    ``service.instance.id``, so a trace shows which node did what. Returns whether tracing is
    on. Idempotent."""
    global _provider, TRACER
    if _provider is not None:
        return True
    environ = os.environ if env is None else env
    if exporter is None and not (environ.get(ENDPOINT_ENV) or environ.get(TRACES_ENDPOINT_ENV)):
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    name = environ.get("OTEL_SERVICE_NAME") or service_name
    attributes = {"service.name": name}
    if instance:
        attributes["service.instance.id"] = instance
    provider = TracerProvider(resource=Resource.create(attributes))
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    _provider = provider
    TRACER = trace.get_tracer("yggdrasil.store")
    return True


def server_interceptors() -> Sequence[grpc.aio.ServerInterceptor]:
    """The grpc.aio server span interceptor, if tracing is on."""
    if _provider is None:
        return ()
    from opentelemetry.instrumentation.grpc import aio_server_interceptor, filters

    make: Any = aio_server_interceptor  # untyped upstream
    # Envoy asks every node's health service each second: a root trace per check would bury
    # the calls (the health checks have Envoy's stats and the nodes' metrics).
    not_health: Any = filters.negate(filters.health_check())
    return (make(tracer_provider=_provider, filter_=not_health),)


def client_interceptors() -> Sequence[grpc.aio.ClientInterceptor]:
    """The grpc.aio client span interceptors (forwarded calls), if tracing is on."""
    if _provider is None:
        return ()
    from opentelemetry.instrumentation.grpc import aio_client_interceptors

    make: Any = aio_client_interceptors  # untyped upstream
    found: Sequence[grpc.aio.ClientInterceptor] = make(tracer_provider=_provider)
    return found


def shutdown() -> None:
    """Flush and stop the exporter (server shutdown)."""
    if _provider is not None:
        _provider.shutdown()
