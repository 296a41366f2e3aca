"""What the TLS tests share: certificates made here (a CA, the server and client certificates
it signs, and a stranger CA nobody trusts) as files."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from localcluster.certs import Authority
from server.main import RunningServer


@dataclass(frozen=True)
class Pki:
    """A CA and what it issued, as files; ``stranger_*`` come from a CA nobody trusts."""

    directory: Path
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    stranger_ca: Path
    stranger_cert: Path
    stranger_key: Path


def make_pki(directory: Path) -> Pki:
    authority = Authority("Yggdrasil test CA")
    stranger = Authority("Stranger CA")
    server_cert, server_key = authority.issue("server").write(directory, "server")
    client_cert, client_key = authority.issue("client", dns=(), ips=(), server=False).write(
        directory, "client"
    )
    stranger_cert, stranger_key = stranger.issue("stranger").write(directory, "stranger")
    return Pki(
        directory,
        authority.write_ca(directory / "ca.pem"),
        server_cert,
        server_key,
        client_cert,
        client_key,
        stranger.write_ca(directory / "stranger-ca.pem"),
        stranger_cert,
        stranger_key,
    )


# ``await start_tls(mutual=False, **config)`` (the fixture of that name)
StartTls = Callable[..., Awaitable[RunningServer]]
