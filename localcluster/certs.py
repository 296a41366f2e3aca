"""Throwaway certificate authorities and certificates, for TLS on this machine.

The TLS tests, ``make cluster --tls``, ``make web --tls`` and the TLS compose check make their
own: a CA, and certificates it signs for the servers (with the names and addresses clients dial
as subject alternative names) and for the nodes and Envoy (which present theirs as client
certificates to one another: node-to-node mTLS). Nothing here is meant for production, where
the operator's own CA (or a public one, for Envoy's listener) issues them.

``python -m localcluster.certs DIR --name localhost --ip 127.0.0.1`` writes ``ca.pem``,
``server.pem`` and ``server-key.pem`` into DIR (docs/operations.md, "TLS").
"""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["Authority", "ClusterPki", "Issued", "cluster_pki", "main"]

# Long enough for any test run or local cluster; short enough to be obviously throwaway.
VALID_DAYS = 30


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Yggdrasil (throwaway)"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


@dataclass(frozen=True)
class Issued:
    """A certificate and its private key, PEM-encoded."""

    cert_pem: bytes
    key_pem: bytes

    def write(self, directory: Path, stem: str) -> tuple[Path, Path]:
        """Write ``<stem>.pem`` and ``<stem>-key.pem`` (the key readable by its owner only)."""
        directory.mkdir(parents=True, exist_ok=True)
        cert = directory / f"{stem}.pem"
        key = directory / f"{stem}-key.pem"
        cert.write_bytes(self.cert_pem)
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(self.key_pem)
        return cert, key


class Authority:
    """A self-signed CA that issues server and client certificates."""

    def __init__(self, common_name: str = "Yggdrasil test CA") -> None:
        self._key = _key()
        now = datetime.datetime.now(datetime.UTC)
        name = _name(common_name)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(self._key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(
                x509.SubjectKeyIdentifier.from_public_key(self._key.public_key()), critical=False
            )
            .sign(self._key, hashes.SHA256())
        )

    @property
    def cert_pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    def write_ca(self, path: Path) -> Path:
        """Write the CA certificate (what clients and peers trust) to ``path``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.cert_pem)
        return path

    def issue(
        self,
        common_name: str,
        *,
        dns: Sequence[str] = ("localhost",),
        ips: Sequence[str] = ("127.0.0.1",),
        server: bool = True,
        client: bool = True,
        days: int = VALID_DAYS,
    ) -> Issued:
        """A certificate for ``common_name`` with these names and addresses, good as a server
        certificate, a client certificate (mTLS), or both (a node is both)."""
        key = _key()
        now = datetime.datetime.now(datetime.UTC)
        usages = [
            *([ExtendedKeyUsageOID.SERVER_AUTH] if server else []),
            *([ExtendedKeyUsageOID.CLIENT_AUTH] if client else []),
        ]
        alt_names: list[x509.GeneralName] = [x509.DNSName(n) for n in dns]
        alt_names += [x509.IPAddress(ipaddress.ip_address(a)) for a in ips]
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(common_name))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()),
                critical=False,
            )
        )
        if alt_names:
            builder = builder.add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        cert = builder.sign(self._key, hashes.SHA256())
        return Issued(cert.public_bytes(serialization.Encoding.PEM), _pem_key(key))


@dataclass(frozen=True)
class ClusterPki:
    """The files of a cluster with TLS on every hop: clients check Envoy's listener against
    ``edge_ca``; the nodes and Envoy (as the nodes' client) hold certificates of a second CA,
    ``cluster_ca``, which the nodes require of every caller (mutual TLS). Two CAs, as in
    production, where the listener's certificate would come from a public CA and the cluster's
    from a private one that signs nothing else."""

    directory: Path
    edge_ca: Path
    edge_cert: Path
    edge_key: Path
    cluster_ca: Path
    node_cert: Path
    node_key: Path
    envoy_cert: Path
    envoy_key: Path


def cluster_pki(
    directory: Path,
    *,
    edge_names: Sequence[str] = ("localhost",),
    edge_ips: Sequence[str] = ("127.0.0.1",),
    node_names: Sequence[str] = ("localhost",),
    node_ips: Sequence[str] = ("127.0.0.1",),
) -> ClusterPki:
    """Make and write :class:`ClusterPki` into ``directory`` (one node certificate that every
    node presents, naming every node: ``node_names``, ``node_ips``)."""
    edge, cluster = Authority("Yggdrasil edge CA"), Authority("Yggdrasil cluster CA")
    edge_cert, edge_key = edge.issue(
        edge_names[0], dns=edge_names, ips=edge_ips, client=False
    ).write(directory, "edge")
    node_cert, node_key = cluster.issue(node_names[0], dns=node_names, ips=node_ips).write(
        directory, "node"
    )
    envoy_cert, envoy_key = cluster.issue("envoy", dns=(), ips=(), server=False).write(
        directory, "envoy-client"
    )
    return ClusterPki(
        directory,
        edge.write_ca(directory / "edge-ca.pem"),
        edge_cert,
        edge_key,
        cluster.write_ca(directory / "cluster-ca.pem"),
        node_cert,
        node_key,
        envoy_cert,
        envoy_key,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m localcluster.certs",
        description="Write a throwaway CA (ca.pem) and a certificate it signed "
        "(<stem>.pem, <stem>-key.pem) into DIR; for trying TLS out, not for production.",
    )
    parser.add_argument("dir", type=Path)
    parser.add_argument("--name", action="append", default=[], help="a DNS name (repeatable)")
    parser.add_argument("--ip", action="append", default=[], help="an IP address (repeatable)")
    parser.add_argument("--stem", default="server", help="file name stem (default server)")
    args = parser.parse_args(argv)
    names = args.name or ["localhost"]
    ips = args.ip or ["127.0.0.1"]
    authority = Authority()
    ca = authority.write_ca(args.dir / "ca.pem")
    cert, key = authority.issue(names[0], dns=names, ips=ips).write(args.dir, args.stem)
    print(f"wrote {ca}, {cert}, {key}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
