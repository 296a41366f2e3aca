"""The deploy files' TLS (issue 27, point 1): envoy/cluster-tls.yaml and its SDS files are what
deploy/sync_envoy.py generates from envoy/cluster.yaml; Envoy accepts them once the files they
name exist (here: certificates made by the test, the paths moved to where they are); the
compose override gives every node its certificate, key and client CA (settings the server
reads), and Envoy the files its SDS secrets name."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
import yaml

from localcluster.certs import cluster_pki
from scripts.envoy_proxy import EDGE_SECRET, NODE_CA_SECRET, NODE_CLIENT_SECRET, validate
from server.config import OPTIONS

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
OPTIONS_BY_ENV = {o.env_var: o for o in OPTIONS}


def _sync() -> Any:
    spec = importlib.util.spec_from_file_location("sync_envoy", DEPLOY / "sync_envoy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mount(volume: str) -> tuple[str, str]:
    """(source, target) of a ``SOURCE:TARGET:ro`` volume (a source may hold ``${X:-y}``)."""
    source, target, mode = volume.rsplit(":", 2)
    assert mode == "ro", volume
    return source, target


def test_the_tls_files_are_generated_from_the_cluster_config() -> None:
    for path, text in _sync().rendered().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run .venv/bin/python deploy/sync_envoy.py"
        )


@pytest.mark.parametrize("config_name", ["cluster-tls.yaml", "web-tls.yaml"])
def test_envoy_accepts_the_tls_config_with_certificates_in_place(
    tmp_path: Path, config_name: str
) -> None:
    sync = _sync()
    pki = cluster_pki(tmp_path / "tls")
    where = {
        f"{sync.TLS_DIR}/edge.pem": pki.edge_cert,
        f"{sync.TLS_DIR}/edge-key.pem": pki.edge_key,
        f"{sync.TLS_DIR}/envoy-client.pem": pki.envoy_cert,
        f"{sync.TLS_DIR}/envoy-client-key.pem": pki.envoy_key,
        f"{sync.TLS_DIR}/cluster-ca.pem": pki.cluster_ca,
        sync.TLS_DIR: pki.directory,
    }
    sds = tmp_path / "sds"
    sds.mkdir()
    for name in (EDGE_SECRET, NODE_CLIENT_SECRET, NODE_CA_SECRET):
        text = (DEPLOY / "envoy" / "sds" / f"{name}.yaml").read_text(encoding="utf-8")
        for inside, here in sorted(where.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(inside, str(here))
        (sds / f"{name}.yaml").write_text(text, encoding="utf-8")
    config = (DEPLOY / "envoy" / config_name).read_text(encoding="utf-8")
    config = config.replace(sync.SDS_DIR, str(sds))
    path = tmp_path / config_name
    path.write_text(config, encoding="utf-8")
    validate(path)


def test_the_compose_override_gives_every_hop_its_certificates() -> None:
    sync = _sync()
    base = yaml.safe_load((DEPLOY / "compose.cluster.yaml").read_text(encoding="utf-8"))
    tls = yaml.safe_load((DEPLOY / "compose.cluster.tls.yaml").read_text(encoding="utf-8"))
    nodes = [n for n in base["services"] if n.startswith("node")]
    assert sorted(n for n in tls["services"] if n.startswith("node")) == nodes
    for name in nodes:
        env = tls["services"][name]["environment"]
        for key, value in env.items():
            OPTIONS_BY_ENV[key].parse(value)  # a setting the server has, well-formed
        mounted = {_mount(v)[1] for v in tls["services"][name]["volumes"]}
        assert all(Path(value).parent.as_posix() in mounted for value in env.values())
        assert {"YGGDRASIL_TLS_CERT", "YGGDRASIL_TLS_KEY", "YGGDRASIL_TLS_CLIENT_CA"} <= set(env)
    envoy = tls["services"]["envoy"]
    config = envoy["command"][envoy["command"].index("-c") + 1]
    mounts = {_mount(v)[1]: _mount(v)[0] for v in envoy["volumes"]}
    assert mounts[config] == "./envoy/cluster-tls.yaml"
    assert mounts[sync.SDS_DIR] == "./envoy/sds"
    assert sync.TLS_DIR in mounts


def test_the_one_server_override_gives_the_server_and_envoy_their_certificates() -> None:
    sync = _sync()
    tls = yaml.safe_load((DEPLOY / "compose.tls.yaml").read_text(encoding="utf-8"))
    server = tls["services"]["yggdrasil"]
    env = server["environment"]
    for key, value in env.items():
        if key != "YGGDRASIL_PROBE_CA_FILE":  # the HEALTHCHECK's (server.probe), not the server's
            OPTIONS_BY_ENV[key].parse(value)
    assert {"YGGDRASIL_TLS_CERT", "YGGDRASIL_TLS_KEY"} <= set(env)
    assert "YGGDRASIL_TLS_CLIENT_CA" not in env  # its clients are anyone's, not certificates
    mounted = {_mount(v)[1] for v in server["volumes"]}
    assert all(Path(value).parent.as_posix() in mounted for value in env.values())
    envoy = tls["services"]["envoy"]
    config = envoy["command"][envoy["command"].index("-c") + 1]
    mounts = {_mount(v)[1]: _mount(v)[0] for v in envoy["volumes"]}
    assert mounts[config] == "./envoy/web-tls.yaml"
    assert mounts[sync.SDS_DIR] == "./envoy/sds" and sync.TLS_DIR in mounts
