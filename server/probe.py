"""``python -m server.probe``: ask a server's gRPC health service whether it is SERVING.

For container health checks and for people::

    python -m server.probe [--address HOST:PORT] [--service NAME] [--timeout SECONDS]

It calls ``grpc.health.v1.Health/Check`` once and prints what it learned. Exit status 0 only
when the answer is SERVING; 1 for anything else (NOT_SERVING, e.g. while a graceful shutdown
drains; a service the server does not know; no answer in time; nothing listening). Bad
arguments exit 2 (argparse's usual error).

The default address is ``127.0.0.1`` on the port in ``YGGDRASIL_PORT`` (default 50051), so a
container that moves the server's port with that variable needs no extra probe setting.
Likewise for TLS: when the server's own ``YGGDRASIL_TLS_CERT`` and ``YGGDRASIL_TLS_KEY`` are
set, the probe speaks TLS, presents that certificate (a server that requires client
certificates accepts its own, signed by the same CA) and checks the server's against
``YGGDRASIL_PROBE_CA_FILE``, else ``YGGDRASIL_TLS_NODE_CA`` or ``YGGDRASIL_TLS_CLIENT_CA``
(none: the system's CAs), by the name ``localhost`` (or ``YGGDRASIL_PROBE_SERVER_NAME``); flags
override each.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from server.config import OPTIONS, ServerConfig

__all__ = [
    "EXIT_NOT_SERVING",
    "EXIT_SERVING",
    "ProbeResult",
    "ProbeTls",
    "check",
    "default_address",
    "default_tls",
    "main",
]

EXIT_SERVING = 0
EXIT_NOT_SERVING = 1

DEFAULT_TIMEOUT_S = 3.0

_PORT_OPTION = next(o for o in OPTIONS if o.name == "port")


@dataclass(frozen=True)
class ProbeResult:
    """What one health check found."""

    address: str
    service: str
    status: str  # SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN, or UNREACHABLE/ERROR
    detail: str = ""

    @property
    def serving(self) -> bool:
        return self.status == "SERVING"

    def describe(self) -> str:
        """One line for people: ``<address> [service]: STATUS (detail)``."""
        target = self.address if not self.service else f"{self.address} service {self.service!r}"
        text = f"{target}: {self.status}"
        return f"{text} ({self.detail})" if self.detail else text


def default_address(env: Mapping[str, str] | None = None) -> str:
    """``127.0.0.1:<YGGDRASIL_PORT or the default port>``."""
    environ: Mapping[str, str] = os.environ if env is None else env
    raw = environ.get(_PORT_OPTION.env_var, "")
    port = ServerConfig().port
    if raw:
        try:
            parsed = int(_PORT_OPTION.parse(raw))
        except ValueError:
            parsed = 0
        if parsed > 0:  # port 0 (pick a free one) cannot be probed: keep the default
            port = parsed
    return f"127.0.0.1:{port}"


def _status_name(status: int) -> str:
    names: Mapping[int, str] = {
        health_pb2.HealthCheckResponse.UNKNOWN: "UNKNOWN",
        health_pb2.HealthCheckResponse.SERVING: "SERVING",
        health_pb2.HealthCheckResponse.NOT_SERVING: "NOT_SERVING",
        health_pb2.HealthCheckResponse.SERVICE_UNKNOWN: "SERVICE_UNKNOWN",
    }
    return names.get(status, f"status {status}")


@dataclass(frozen=True)
class ProbeTls:
    """TLS of the probe's channel (see the module doc)."""

    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    server_name: str = "localhost"

    def channel(self, address: str) -> grpc.Channel:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=self.ca_file.read_bytes() if self.ca_file else None,
            private_key=self.key_file.read_bytes() if self.key_file else None,
            certificate_chain=self.cert_file.read_bytes() if self.cert_file else None,
        )
        options = [("grpc.ssl_target_name_override", self.server_name)] if self.server_name else []
        return grpc.secure_channel(address, credentials, options=options)


def _env_path(environ: Mapping[str, str], name: str) -> Path | None:
    value = environ.get(name, "").strip()
    return Path(value) if value else None


def default_tls(env: Mapping[str, str] | None = None) -> ProbeTls | None:
    """The probe's TLS from the server's own settings in the environment (None: plaintext)."""
    environ: Mapping[str, str] = os.environ if env is None else env
    cert = _env_path(environ, "YGGDRASIL_TLS_CERT")
    key = _env_path(environ, "YGGDRASIL_TLS_KEY")
    if cert is None or key is None:
        return None
    ca = (
        _env_path(environ, "YGGDRASIL_PROBE_CA_FILE")
        or _env_path(environ, "YGGDRASIL_TLS_NODE_CA")
        or _env_path(environ, "YGGDRASIL_TLS_CLIENT_CA")
    )
    name = environ.get("YGGDRASIL_PROBE_SERVER_NAME", "").strip() or "localhost"
    return ProbeTls(ca, cert, key, name)


def check(
    address: str,
    service: str = "",
    timeout: float = DEFAULT_TIMEOUT_S,
    tls: ProbeTls | None = None,
) -> ProbeResult:
    """One ``Health/Check`` call to ``address`` (blocking; at most ``timeout`` seconds), over
    TLS with ``tls``."""
    request = health_pb2.HealthCheckRequest(service=service)
    try:
        channel = grpc.insecure_channel(address) if tls is None else tls.channel(address)
    except OSError as exc:
        return ProbeResult(address, service, "ERROR", f"TLS file: {exc}")
    with channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(request, timeout=timeout, wait_for_ready=False)
        except grpc.RpcError as exc:
            return _from_error(address, service, exc, timeout)
    return ProbeResult(address, service, _status_name(int(reply.status)))


def _from_error(address: str, service: str, exc: grpc.RpcError, timeout: float) -> ProbeResult:
    # The blocking stub raises an error that is also a grpc.Call (code() and details()).
    code_of = getattr(exc, "code", None)
    code = code_of() if callable(code_of) else None
    if not isinstance(code, grpc.StatusCode):
        code = grpc.StatusCode.UNKNOWN
    details_of = getattr(exc, "details", None)
    details = str((details_of() if callable(details_of) else None) or "")
    if code is grpc.StatusCode.NOT_FOUND:
        # The health service answers NOT_FOUND for a service name it was never told about.
        return ProbeResult(address, service, "SERVICE_UNKNOWN", "the server does not know it")
    if code is grpc.StatusCode.UNAVAILABLE:
        return ProbeResult(address, service, "UNREACHABLE", f"UNAVAILABLE: {details}".rstrip())
    if code is grpc.StatusCode.DEADLINE_EXCEEDED:
        return ProbeResult(address, service, "UNREACHABLE", f"no answer within {timeout:g} s")
    if code is grpc.StatusCode.UNIMPLEMENTED:
        return ProbeResult(address, service, "ERROR", "no gRPC health service there")
    return ProbeResult(address, service, "ERROR", f"{code.name}: {details}".rstrip(": "))


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _address(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text.strip()


def build_arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m server.probe",
        description="Ask a Yggdrasil server's gRPC health service whether it is SERVING "
        "(exit 0) or not (exit 1).",
    )
    parser.add_argument(
        "--address",
        type=_address,
        default=None,
        metavar="HOST:PORT",
        help=f"server to ask (default 127.0.0.1 on ${_PORT_OPTION.env_var}, else 50051)",
    )
    parser.add_argument(
        "--service",
        default="",
        metavar="NAME",
        help="service to ask about, e.g. yggdrasil.v1.GameService (default: the whole server)",
    )
    parser.add_argument(
        "--timeout",
        type=_timeout,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"give up after this long (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument("--tls", action="store_true", help="speak TLS (see the module doc)")
    parser.add_argument("--ca-file", type=Path, default=None, help="check the server with it")
    parser.add_argument("--client-cert", type=Path, default=None, help="present this certificate")
    parser.add_argument("--client-key", type=Path, default=None, help="the key of --client-cert")
    parser.add_argument("--server-name", default=None, help="name the certificate must carry")
    return parser


def tls_from_args(
    args: argparse.Namespace, env: Mapping[str, str] | None = None
) -> ProbeTls | None:
    """The flags over the environment's TLS (:func:`default_tls`)."""
    base = default_tls(env)
    given = args.tls or args.ca_file or args.client_cert or args.server_name
    if base is None and not given:
        return None
    base = base or ProbeTls()
    return ProbeTls(
        args.ca_file or base.ca_file,
        args.client_cert or base.cert_file,
        args.client_key or base.key_file,
        args.server_name if args.server_name is not None else base.server_name,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    address: str = args.address if args.address is not None else default_address()
    result = check(address, args.service, args.timeout, tls_from_args(args))
    if result.serving:
        print(result.describe(), flush=True)
        return EXIT_SERVING
    print(f"yggdrasil probe: not healthy: {result.describe()}", file=sys.stderr, flush=True)
    return EXIT_NOT_SERVING


if __name__ == "__main__":
    sys.exit(main())
