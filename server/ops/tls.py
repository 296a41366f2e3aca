"""TLS on the gRPC port: the server's certificate, client certificates, node-to-node channels.

A server given a certificate and key (``--tls-cert``, ``--tls-key``) speaks only TLS on its
port; with ``--tls-client-ca`` it also requires every caller to present a certificate signed by
one of those CAs (mutual TLS: in a cluster, only Envoy and the other nodes reach a node's port).
A cluster node relays calls to the other nodes over TLS as well, presenting its own certificate
as its client certificate and checking theirs against ``--tls-node-ca`` (by default the client
CAs).

The files are re-read when they change, without a restart: certificates are renewed every few
weeks (ACME, cert-manager), and restarting every node for it would move every game. The server
side uses gRPC's dynamic credentials, which ask :meth:`ServerTls.fetch` on each new handshake
(it looks at the files at most once a second); connections already open keep the certificate
they were made with. Node-to-node channels are rebuilt when the files changed
(:meth:`ServerTls.channel_credentials` tells by its generation). Files that cannot be used
at a reload (a half-written key, a certificate that does not match its key) are logged, and
the ones read before stay in use.
"""

from __future__ import annotations

import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import structlog

__all__ = ["ServerTls", "TlsError", "TlsFiles"]

# Seconds between looks at the files (stat) from the handshake path.
CHECK_EVERY_S = 1.0


class TlsError(ValueError):
    """A certificate, key or CA file cannot be used (missing, unreadable, not PEM)."""


@dataclass(frozen=True)
class TlsFiles:
    """Where the server's TLS material is."""

    cert: Path
    key: Path
    client_ca: Path | None = None  # require client certificates signed by these CAs
    node_ca: Path | None = None  # check other nodes with these (default: client_ca)

    def paths(self) -> tuple[Path, ...]:
        return tuple(p for p in (self.cert, self.key, self.client_ca, self.node_ca) if p)


def _read(path: Path, what: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TlsError(f"{what} {path}: {exc.strerror or exc}") from None
    if b"-----BEGIN " not in data:
        raise TlsError(f"{what} {path}: not a PEM file")
    return data


# An encrypted key, in either PEM form (PKCS#8, or the older one with a Proc-Type header).
_ENCRYPTED = (b"-----BEGIN ENCRYPTED PRIVATE KEY-----", b"Proc-Type: 4,ENCRYPTED")
# Given to OpenSSL as the password of any key it still finds encrypted: it then fails to
# decrypt it rather than asking on the terminal (a server must not wait for a person).
_NOT_A_PASSWORD = b"\0yggdrasil: keys are not encrypted"


def _stamp(paths: tuple[Path, ...]) -> tuple[tuple[int, int, int], ...]:
    """What changes when one of the files is replaced or rewritten."""
    out = []
    for path in paths:
        try:
            st = path.stat()
            out.append((st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            out.append((0, 0, 0))
    return tuple(out)


@dataclass(frozen=True)
class _Material:
    cert: bytes
    key: bytes
    client_ca: bytes | None
    node_ca: bytes | None


class ServerTls:
    """The server's TLS material, read from :class:`TlsFiles` and re-read on change."""

    def __init__(self, files: TlsFiles) -> None:
        self.files = files
        self._lock = threading.Lock()  # fetch runs on gRPC's threads
        self._material = self._load()
        self._stamp = _stamp(files.paths())
        self._checked = time.monotonic()
        self._served: _Material | None = None  # what the handshakes use now
        self.generation = 0  # grows with every reload that took

    @property
    def requires_client_certificates(self) -> bool:
        return self.files.client_ca is not None

    def _load(self) -> _Material:
        f = self.files
        material = _Material(
            _read(f.cert, "TLS certificate"),
            _read(f.key, "TLS key"),
            _read(f.client_ca, "TLS client CA") if f.client_ca else None,
            _read(f.node_ca, "TLS node CA") if f.node_ca else None,
        )
        if any(mark in material.key for mark in _ENCRYPTED):
            raise TlsError(
                f"TLS key {f.key}: the key is encrypted; give the server an unencrypted key "
                "file (gRPC reads no pass phrase)"
            )
        # gRPC reads them only at the first handshake: a certificate that does not match its
        # key, or a file that is not what it says, stops the start (or a reload) here instead.
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(f.cert, f.key, password=_NOT_A_PASSWORD)
            for ca in (material.client_ca, material.node_ca):
                if ca is not None:
                    context.load_verify_locations(cadata=ca.decode("ascii", "replace"))
        except (ssl.SSLError, ValueError) as exc:
            raise TlsError(f"TLS files {f.cert}, {f.key}: {exc}") from None
        return material

    def _configuration(self, material: _Material) -> grpc.ServerCertificateConfiguration:
        return grpc.ssl_server_certificate_configuration(
            [(material.key, material.cert)], root_certificates=material.client_ca
        )

    def reload_if_changed(self, *, now: float | None = None) -> bool:
        """Re-read the files if they changed since the last look (at most once a second);
        True if new material took."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if now - self._checked < CHECK_EVERY_S:
                return False
            self._checked = now
            stamp = _stamp(self.files.paths())
            if stamp == self._stamp:
                return False
            self._stamp = stamp
            try:
                material = self._load()
            except TlsError as exc:
                structlog.get_logger("yggdrasil.server").error("tls_not_reloaded", error=str(exc))
                return False
            if material == self._material:
                return False
            self._material = material
            self.generation += 1
        structlog.get_logger("yggdrasil.server").info(
            "tls_reloaded", cert=str(self.files.cert), generation=self.generation
        )
        return True

    def fetch(self) -> grpc.ServerCertificateConfiguration | None:
        """gRPC's certificate fetcher: a new configuration when the files changed, else None
        (keep the current one). Called on gRPC's threads, once per handshake."""
        self.reload_if_changed()
        with self._lock:
            material = self._material
            if material is self._served:
                return None
            self._served = material
        return self._configuration(material)

    def server_credentials(self) -> grpc.ServerCredentials:
        with self._lock:
            self._served = self._material
            material = self._material
        return grpc.dynamic_ssl_server_credentials(
            self._configuration(material),
            # (gRPC keeps the current configuration when the fetcher answers None; the stubs
            # say it must always answer one)
            self.fetch,  # type: ignore[arg-type]
            require_client_authentication=self.requires_client_certificates,
        )

    def channel_credentials(self) -> tuple[int, grpc.ChannelCredentials]:
        """(generation, credentials) of a node-to-node channel: this node's certificate as
        its client certificate, the other nodes checked against the node CA (or the client
        CA; neither: the system's roots)."""
        self.reload_if_changed()
        with self._lock:
            m, generation = self._material, self.generation
        roots = m.node_ca if m.node_ca is not None else m.client_ca
        credentials = grpc.ssl_channel_credentials(
            root_certificates=roots, private_key=m.key, certificate_chain=m.cert
        )
        return generation, credentials
