"""The server's own TLS (issue 27, point 1): a client that trusts the CA plays, one that does
not is refused, a plaintext client on the TLS port fails with words that name the cause, client
certificates are required when asked for, and renewed certificate files take without a
restart."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import grpc
import grpc.aio
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tls_support import Pki, StartTls

from clients.connection import PATIENCE_S, ClientTls, connection_hint, open_channel, stub_for
from localcluster.certs import Authority
from server import probe
from server.config import ServerConfig
from server.main import EXIT_CONFIG_ERROR
from server.ops.tls import ServerTls, TlsError, TlsFiles
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


async def _create(address: str, tls: ClientTls | None) -> gs.CreateGameResponse:
    # The client's default patience, as a person gets it: a TLS mismatch must end the call at
    # once rather than be resent for PATIENCE_S like a node dying under a game.
    async with open_channel(address, tls=tls) as channel:
        return await stub_for(channel).CreateGame(
            gs.CreateGameRequest(options=gp.GameOptions(player_count=2)), timeout=5
        )


async def _refused(address: str, tls: ClientTls | None) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        # Far below PATIENCE_S (120 s): a client that resent a misconfigured call would still
        # be waiting here.
        await asyncio.wait_for(_create(address, tls), timeout=PATIENCE_S / 4)
    return caught.value


async def test_a_client_that_trusts_the_ca_plays(pki: Pki, start_tls: StartTls) -> None:
    running = await start_tls()
    created = await _create(f"127.0.0.1:{running.port}", ClientTls(ca_file=pki.ca))
    assert created.game.status == gp.GAME_STATUS_OPEN
    # the same by name: the certificate names localhost as well as 127.0.0.1
    created = await _create(f"localhost:{running.port}", ClientTls(ca_file=pki.ca))
    assert created.game_id


async def test_a_client_that_does_not_trust_the_ca_is_refused(
    pki: Pki, start_tls: StartTls
) -> None:
    running = await start_tls()
    address = f"127.0.0.1:{running.port}"
    for tls in (ClientTls(), ClientTls(ca_file=pki.stranger_ca)):
        error = await _refused(address, tls)
        assert error.code() == grpc.StatusCode.UNAVAILABLE
        assert "CERTIFICATE_VERIFY_FAILED" in (error.details() or "")
        assert "--ca-file" in connection_hint(error, tls=True)
    assert not running.games.games  # nothing was created


async def test_a_plaintext_client_on_the_tls_port_fails_with_a_clear_error(
    start_tls: StartTls,
) -> None:
    running = await start_tls()
    error = await _refused(f"127.0.0.1:{running.port}", None)
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    hint = connection_hint(error, tls=False)
    assert "expect TLS" in hint and "--tls" in hint
    assert not running.games.games


async def test_a_tls_client_on_a_plaintext_port_is_told_so(pki: Pki, start_server_plain) -> None:
    error = await _refused(f"127.0.0.1:{start_server_plain.port}", ClientTls(ca_file=pki.ca))
    assert "does not speak TLS" in connection_hint(error, tls=True)


async def test_client_certificates_are_required_when_asked_for(
    pki: Pki, start_tls: StartTls
) -> None:
    running = await start_tls(mutual=True)
    address = f"127.0.0.1:{running.port}"
    without = await _refused(address, ClientTls(ca_file=pki.ca))
    assert without.code() == grpc.StatusCode.UNAVAILABLE
    assert "client certificate" in connection_hint(without, tls=True)
    # a certificate from a CA the server does not name is no better
    await _refused(
        address, ClientTls(ca_file=pki.ca, cert_file=pki.stranger_cert, key_file=pki.stranger_key)
    )
    assert not running.games.games
    mine = ClientTls(ca_file=pki.ca, cert_file=pki.client_cert, key_file=pki.client_key)
    assert (await _create(address, mine)).game_id


def _replace(target: Path, source: Path) -> None:
    """As a certificate renewal does: write beside, then rename over (a new inode)."""
    tmp = target.with_suffix(".new")
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)


async def test_renewed_certificate_files_take_without_a_restart(
    pki: Pki, start_tls: StartTls, tmp_path: Path
) -> None:
    cert, key = tmp_path / "server.pem", tmp_path / "server-key.pem"
    shutil.copyfile(pki.server_cert, cert)
    shutil.copyfile(pki.server_key, key)
    running = await start_tls(tls_cert=cert, tls_key=key)
    address = f"127.0.0.1:{running.port}"
    assert (await _create(address, ClientTls(ca_file=pki.ca))).game_id
    renewed = Authority("Renewal CA")
    new_cert, new_key = renewed.issue("server").write(tmp_path / "renewed", "server")
    new_ca = renewed.write_ca(tmp_path / "renewed" / "ca.pem")
    _replace(key, new_key)
    _replace(cert, new_cert)
    deadline = time.monotonic() + 10
    while True:  # the files are looked at once a second at most
        try:
            assert (await _create(address, ClientTls(ca_file=new_ca))).game_id
            break
        except grpc.aio.AioRpcError:
            if time.monotonic() > deadline:
                raise
    # new connections get the new certificate: a client of the old CA alone is refused now
    error = await _refused(address, ClientTls(ca_file=pki.ca))
    assert "CERTIFICATE_VERIFY_FAILED" in (error.details() or "")


def test_unusable_files_at_a_reload_keep_the_ones_read_before(pki: Pki, tmp_path: Path) -> None:
    cert, key = tmp_path / "server.pem", tmp_path / "server-key.pem"
    shutil.copyfile(pki.server_cert, cert)
    shutil.copyfile(pki.server_key, key)
    tls = ServerTls(TlsFiles(cert, key))
    key.write_text("-----BEGIN PRIVATE KEY-----\nhalf written")
    assert not tls.reload_if_changed(now=time.monotonic() + 5)
    assert tls.generation == 0
    # a key that belongs to another certificate is refused as well
    shutil.copyfile(pki.stranger_key, key)
    assert not tls.reload_if_changed(now=time.monotonic() + 10)
    shutil.copyfile(pki.client_key, key)
    shutil.copyfile(pki.client_cert, cert)
    assert tls.reload_if_changed(now=time.monotonic() + 15)
    assert tls.generation == 1


def test_tls_settings_are_checked_at_start(pki: Pki, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="go together"):
        ServerConfig(tls_cert=pki.server_cert)
    with pytest.raises(ValueError, match="need tls_cert"):
        ServerConfig(tls_client_ca=pki.ca)
    with pytest.raises(TlsError, match=r"TLS key .*: Is a directory"):
        ServerTls(TlsFiles(pki.server_cert, tmp_path))
    empty = tmp_path / "empty.pem"
    empty.write_text("")
    with pytest.raises(TlsError, match="not a PEM file"):
        ServerTls(TlsFiles(pki.server_cert, pki.server_key, client_ca=empty))
    with pytest.raises(TlsError):
        ServerTls(TlsFiles(pki.server_cert, pki.stranger_key))  # not its key


def test_the_server_does_not_start_on_unusable_tls_files(pki: Pki, tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    done = subprocess.run(
        [
            sys.executable, "-m", "server", "--port", "0", "--metrics-port", "-1",
            "--store", "memory", "--tls-cert", str(pki.server_cert), "--tls-key", str(missing),
        ],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == EXIT_CONFIG_ERROR, done.stderr
    assert f"TLS key {missing}" in done.stderr


async def test_the_probe_speaks_the_servers_tls_from_its_environment(
    pki: Pki, start_tls: StartTls
) -> None:
    running = await start_tls(mutual=True)
    address = f"127.0.0.1:{running.port}"
    env = {
        "YGGDRASIL_TLS_CERT": str(pki.server_cert),
        "YGGDRASIL_TLS_KEY": str(pki.server_key),
        "YGGDRASIL_TLS_CLIENT_CA": str(pki.ca),
    }
    tls = probe.default_tls(env)
    assert tls is not None and tls.server_name == "localhost"
    result = await _in_thread(probe.check, address, "", 3.0, tls)
    assert result.serving, result.describe()
    plain = await _in_thread(probe.check, address, "", 3.0, None)
    assert plain.status == "UNREACHABLE"


async def _in_thread(fn, *args):
    import asyncio

    return await asyncio.to_thread(fn, *args)


async def test_health_over_mutual_tls_with_the_nodes_certificate(
    pki: Pki, start_tls: StartTls
) -> None:
    """A node's own certificate is also its client certificate (node-to-node mTLS)."""
    running = await start_tls(mutual=True)
    tls = ServerTls(TlsFiles(pki.server_cert, pki.server_key, client_ca=pki.ca))
    _, credentials = tls.channel_credentials()
    async with grpc.aio.secure_channel(f"localhost:{running.port}", credentials) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=5
        )
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_an_encrypted_key_is_refused_rather_than_prompted_for(pki: Pki, tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(pki.server_key.read_bytes(), password=None)
    encrypted = tmp_path / "encrypted-key.pem"
    encrypted.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    with pytest.raises(TlsError, match="encrypted"):
        ServerTls(TlsFiles(pki.server_cert, encrypted))
