"""The cluster's deploy files (docs/cluster.md) agree with the server and with each other."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_support import DEPLOY, OPTIONS_BY_ENV, load_yaml, yaml_documents

ENVOY = DEPLOY / "envoy" / "cluster.yaml"
COMPOSE = DEPLOY / "compose.cluster.yaml"
K8S = DEPLOY / "k8s" / "cluster"
# The optional tracing pieces (docs/cluster.md, "Tracing").
TRACED_ENVOY = DEPLOY / "envoy" / "cluster-tracing.yaml"
TRACED_COMPOSE = DEPLOY / "compose.cluster.tracing.yaml"
TRACED_K8S = DEPLOY / "k8s" / "cluster-tracing"
COLLECTOR_ENDPOINT = "http://otel-collector:4317"


def _routes(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    manager = config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]
    host = manager["typed_config"]["route_config"]["virtual_hosts"][0]
    return {r["name"]: r for r in host["routes"]}


def _cluster(config: dict[str, Any]) -> dict[str, Any]:
    (found,) = [c for c in config["static_resources"]["clusters"] if c["name"] == "yggdrasil"]
    return found


def test_envoy_hashes_the_game_header_and_never_times_out_streams() -> None:
    config = load_yaml(ENVOY)
    routes = _routes(config)
    for name in ("watch", "session", "api"):
        assert routes[name]["route"]["hash_policy"] == [{"header": {"header_name": "x-game-id"}}]
    for name in ("watch", "session"):
        assert routes[name]["route"]["timeout"] == "0s"
        assert routes[name]["route"]["idle_timeout"] == "0s"
        assert "retry_policy" not in routes[name]["route"]
    assert "unavailable" in routes["api"]["route"]["retry_policy"]["retry_on"]
    cluster = _cluster(config)
    assert cluster["lb_policy"] == "RING_HASH"
    (check,) = cluster["health_checks"]
    assert check["grpc_health_check"]["service_name"] == "yggdrasil.v1.GameService"
    filters = [f["name"] for f in _http_filters(config)]
    assert filters[0] == "envoy.filters.http.grpc_web" and filters[-1].endswith("router")


def _http_filters(config: dict[str, Any]) -> list[dict[str, Any]]:
    manager = config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]
    filters: list[dict[str, Any]] = manager["typed_config"]["http_filters"]
    return filters


def test_the_kubernetes_envoy_is_the_cluster_config_with_the_headless_service() -> None:
    mine = load_yaml(K8S / "envoy.yaml")
    base = copy.deepcopy(load_yaml(ENVOY))
    (group,) = _cluster(mine)["load_assignment"]["endpoints"]
    (endpoint,) = group["lb_endpoints"]
    address = endpoint["endpoint"]["address"]["socket_address"]
    assert address == {
        "address": "yggdrasil-nodes.yggdrasil.svc.cluster.local",
        "port_value": 50051,
    }
    _cluster(base)["load_assignment"] = _cluster(mine)["load_assignment"]
    assert mine == base


def test_compose_nodes_use_real_options_and_advertise_themselves() -> None:
    compose = load_yaml(COMPOSE)
    nodes = {k: v for k, v in compose["services"].items() if k.startswith("node")}
    assert sorted(nodes) == ["node1", "node2", "node3"]
    for name, node in nodes.items():
        env = node["environment"]
        for key, value in env.items():
            if key.startswith("YGGDRASIL_"):
                assert key in OPTIONS_BY_ENV, f"{name}: {key} is not a server option"
                if not str(value).startswith("${") and "$" not in str(value):
                    OPTIONS_BY_ENV[key].parse(str(value))
        assert env["YGGDRASIL_STORE"] == "postgres"
        assert env["YGGDRASIL_NODE_ADDRESS"] == f"{name}:50051"
    envoy = load_yaml(ENVOY)
    targets = {
        e["endpoint"]["address"]["socket_address"]["address"]
        for g in _cluster(envoy)["load_assignment"]["endpoints"]
        for e in g["lb_endpoints"]
    }
    assert targets == set(nodes)
    assert {"postgres", "envoy", "prometheus", "grafana"} <= set(compose["services"])


def test_kubernetes_nodes_advertise_their_pod_ip_and_read_the_database_secret() -> None:
    documents = yaml_documents(K8S / "nodes.yaml")
    (config,) = [d for d in documents if d["kind"] == "ConfigMap"]
    for key, value in config["data"].items():
        assert key in OPTIONS_BY_ENV, key
        OPTIONS_BY_ENV[key].parse(value)
    (deployment,) = [d for d in documents if d["kind"] == "Deployment"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["POD_IP"]["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
    assert env["YGGDRASIL_NODE_ADDRESS"]["value"] == "$(POD_IP):50051"
    assert (
        env["YGGDRASIL_DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "yggdrasil-database"
    )
    (service,) = [d for d in documents if d["kind"] == "Service"]
    assert service["spec"]["clusterIP"] == "None"
    kustomization = load_yaml(K8S / "kustomization.yaml")
    for resource in kustomization["resources"]:
        assert (K8S / resource).exists(), resource


@pytest.mark.parametrize(
    "path",
    [ENVOY, K8S / "envoy.yaml", TRACED_ENVOY, TRACED_K8S / "envoy.yaml"],
    ids=lambda p: str(p.relative_to(DEPLOY)),
)
def test_envoy_accepts_the_cluster_configs(path: Path) -> None:
    from scripts.envoy_proxy import validate

    validate(path)


def test_compose_nodes_trust_exactly_envoy_and_share_a_cluster_secret() -> None:
    """Issue 26: only Envoy's x-forwarded-for is believed (a client that reached a node's port
    could otherwise name any address); the nodes prove themselves to one another with the
    cluster's secret instead, which compose requires from the environment."""
    compose = load_yaml(COMPOSE)
    services = compose["services"]
    pinned = {
        name: services[name]["networks"]["default"]["ipv4_address"]
        for name in ("envoy", "node1", "node2", "node3")
    }
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    proxies = OPTIONS_BY_ENV["YGGDRASIL_TRUSTED_PROXIES"]
    for name in ("node1", "node2", "node3"):
        environment = services[name]["environment"]
        trusted = environment["YGGDRASIL_TRUSTED_PROXIES"]
        proxies.parse(trusted)
        assert trusted.split(",") == [pinned["envoy"]], name
        assert environment["YGGDRASIL_CLUSTER_SECRET"].startswith("${YGGDRASIL_CLUSTER_SECRET:?")
    assert all(address.startswith(subnet.rsplit(".", 1)[0] + ".") for address in pinned.values())


def test_kubernetes_nodes_read_the_cluster_secret() -> None:
    documents = yaml_documents(K8S / "nodes.yaml")
    (deployment,) = [d for d in documents if d["kind"] == "Deployment"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["YGGDRASIL_CLUSTER_SECRET"]["valueFrom"]["secretKeyRef"] == {
        "name": "yggdrasil-cluster",
        "key": "secret",
    }


def test_envoy_drops_node_metadata_and_the_owner_trailer_at_the_edge() -> None:
    for path in (ENVOY, K8S / "envoy.yaml", TRACED_ENVOY, TRACED_K8S / "envoy.yaml"):
        filters = _http_filters(load_yaml(path))
        names = [f["name"] for f in filters]
        mutation = filters[names.index("envoy.filters.http.header_mutation")]
        assert names.index("envoy.filters.http.grpc_web") < names.index(mutation["name"])
        mutations = mutation["typed_config"]["mutations"]
        removed = {m["remove"] for m in mutations["request_mutations"]}
        assert removed == {"x-yggdrasil-forwarded", "x-yggdrasil-node-auth"}, path
        for key in ("response_mutations", "response_trailers_mutations"):
            assert [m["remove"] for m in mutations[key]] == ["x-yggdrasil-owner"], path
        assert "x-yggdrasil" not in str(_manager(load_yaml(path))["route_config"]), path


def _manager(config: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = config["static_resources"]["listeners"][0]["filter_chains"][0][
        "filters"
    ][0]["typed_config"]
    return found


def _collector_of(config: dict[str, Any]) -> str:
    """host:port of the tracer's collector cluster."""
    name = _manager(config)["tracing"]["provider"]["typed_config"]["grpc_service"]["envoy_grpc"][
        "cluster_name"
    ]
    (cluster,) = [c for c in config["static_resources"]["clusters"] if c["name"] == name]
    (group,) = cluster["load_assignment"]["endpoints"]
    (endpoint,) = group["lb_endpoints"]
    address = endpoint["endpoint"]["address"]["socket_address"]
    return f"{address['address']}:{address['port_value']}"


def test_the_tracing_copies_of_envoys_configs_are_generated_from_them() -> None:
    spec = importlib.util.spec_from_file_location("sync_envoy", DEPLOY / "sync_envoy.py")
    assert spec is not None and spec.loader is not None
    sync = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sync)
    assert set(sync.COPIES.values()) == {TRACED_ENVOY, TRACED_K8S / "envoy.yaml"}
    for source, traced in sync.COPIES.items():
        assert sync.render(source) == traced.read_text(encoding="utf-8"), (
            f"{traced} is stale: run .venv/bin/python deploy/sync_envoy.py"
        )


def test_tracing_is_off_in_the_default_files_and_on_in_the_optional_pieces() -> None:
    for path in (ENVOY, K8S / "envoy.yaml"):
        config = load_yaml(path)
        assert "tracing" not in _manager(config), path
        assert len(config["static_resources"]["clusters"]) == 1, path
    base = load_yaml(COMPOSE)["services"]
    for name in ("node1", "node2", "node3"):
        assert base[name]["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"] == (
            "${OTEL_EXPORTER_OTLP_ENDPOINT:-}"  # empty unless the operator sets it
        )
    # Compose: the override adds the collector, points the nodes and Envoy's tracer at it.
    traced = load_yaml(TRACED_COMPOSE)["services"]
    assert "otel-collector" in traced and "otel-collector" not in base
    for name in ("node1", "node2", "node3"):
        assert traced[name]["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"] == COLLECTOR_ENDPOINT
    envoy = traced["envoy"]
    config_path = envoy["command"][envoy["command"].index("-c") + 1]
    (mount,) = [v for v in envoy["volumes"] if v.split(":")[1] == config_path]
    assert (DEPLOY / mount.split(":")[0]).resolve() == TRACED_ENVOY
    assert _collector_of(load_yaml(TRACED_ENVOY)) == COLLECTOR_ENDPOINT.removeprefix("http://")
    # Kubernetes: the overlay is the cluster plus the collector's Service, the nodes' variable
    # and Envoy's config with the tracer.
    kustomization = load_yaml(TRACED_K8S / "kustomization.yaml")
    assert "../cluster" in kustomization["resources"]
    (generated,) = kustomization["configMapGenerator"]
    assert generated["name"] == "yggdrasil-envoy" and generated["behavior"] == "replace"
    assert generated["files"] == ["envoy.yaml"]
    assert _collector_of(load_yaml(TRACED_K8S / "envoy.yaml")) == "otel-collector:4317"
    (patch,) = kustomization["patches"]
    (operation,) = yaml.safe_load(patch["patch"])
    assert operation["value"] == {
        "name": "OTEL_EXPORTER_OTLP_ENDPOINT",
        "value": COLLECTOR_ENDPOINT,
    }
    (node,) = [d for d in yaml_documents(K8S / "nodes.yaml") if d["kind"] == "Deployment"]
    assert patch["target"] == {"kind": "Deployment", "name": node["metadata"]["name"]}
    documents = yaml_documents(TRACED_K8S / "collector.yaml")
    (service,) = [d for d in documents if d["kind"] == "Service"]
    assert service["metadata"]["name"] == "otel-collector"
    assert 4317 in [port["port"] for port in service["spec"]["ports"]]


def test_kustomizations_load_only_files_under_their_own_directory() -> None:
    # kustomize refuses a file resource outside the kustomization's directory (a directory,
    # another kustomization, may be anywhere).
    for kustomization in sorted(DEPLOY.glob("k8s/**/kustomization.yaml")):
        here = kustomization.parent
        for resource in load_yaml(kustomization).get("resources", []):
            target = (here / resource).resolve()
            assert target.is_dir() or here.resolve() in target.parents, (kustomization, resource)
