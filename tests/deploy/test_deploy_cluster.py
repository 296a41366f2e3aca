"""The cluster's deploy files (docs/cluster.md) agree with the server and with each other."""

from __future__ import annotations

import copy
from typing import Any

from deploy_support import DEPLOY, OPTIONS_BY_ENV, load_yaml, yaml_documents

ENVOY = DEPLOY / "envoy" / "cluster.yaml"
COMPOSE = DEPLOY / "compose.cluster.yaml"
K8S = DEPLOY / "k8s" / "cluster"


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


def test_envoy_accepts_both_cluster_configs() -> None:
    from scripts.envoy_proxy import validate

    validate(ENVOY)
    validate(K8S / "envoy.yaml")


def test_compose_nodes_trust_exactly_envoy_and_each_other() -> None:
    compose = load_yaml(COMPOSE)
    services = compose["services"]
    pinned = {
        name: services[name]["networks"]["default"]["ipv4_address"]
        for name in ("envoy", "node1", "node2", "node3")
    }
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    proxies = OPTIONS_BY_ENV["YGGDRASIL_TRUSTED_PROXIES"]
    for name in ("node1", "node2", "node3"):
        trusted = services[name]["environment"]["YGGDRASIL_TRUSTED_PROXIES"]
        proxies.parse(trusted)
        assert set(trusted.split(",")) == set(pinned.values()), name
    assert all(address.startswith(subnet.rsplit(".", 1)[0] + ".") for address in pinned.values())
