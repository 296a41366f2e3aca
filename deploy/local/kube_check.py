"""``make kube-check``: the compose and Kubernetes files checked offline against their
schemas, and the cluster node Deployment run once with ``podman kube play``.

1. Every compose file (and each merged with its additions: tracing, TLS) against the compose
   specification (check-jsonschema's vendored compose-spec schema).
2. Every Kubernetes manifest under deploy/k8s, and what ``kubectl kustomize`` makes of each
   kustomization, against the Kubernetes schemas of the oldest and the newest release that
   kubernetes-validate ships, strictly (no unknown fields). The Prometheus Operator's kinds
   (ServiceMonitor, PrometheusRule) have no schema there and are listed as not validated.
3. The kustomize output's node ConfigMap and Deployment played by podman on a network with a
   PostgreSQL container, the database URL in a podman secret (as the Secret of
   deploy/k8s/cluster/kustomization.yaml would hold it): the node must answer its readiness
   and liveness questions SERVING, as its uid 10001 on a read-only root. podman 4.3 lacks a
   few things Kubernetes does; the played copy is adapted for them, and each adaptation is
   printed (see ``podman_adaptations``)."""

from __future__ import annotations

import argparse
import base64
import copy
import json
import re
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from stack import (
    DEPLOY,
    STANDINS,
    CheckFailed,
    Steps,
    image_exists,
    podman,
    podman_env,
    require_tools,
    run,
    until,
)

COMPOSE_FILES = sorted(DEPLOY.glob("compose*.yaml"))
K8S = DEPLOY / "k8s"
KUSTOMIZATIONS = sorted(p.parent for p in K8S.rglob("kustomization.yaml"))
# The oldest and newest Kubernetes releases whose schemas kubernetes-validate 1.37 ships.
KUBERNETES_VERSIONS = ("1.25.0", "1.37.0")
NAME = "yggdrasil-kube-check"
POD = "yggdrasil-node-pod-0"  # what podman names the Deployment's first pod
CONTAINER = f"{POD}-yggdrasil"
SECRET = "yggdrasil-database"
CLUSTER_SECRET = "yggdrasil-cluster"  # the nodes' shared secret (docs/cluster.md)
PASSWORD = "kube-check"


def manifests() -> list[Path]:
    """The Kubernetes resource files under deploy/k8s (not kustomizations, not the Envoy
    configurations that kustomize turns into ConfigMaps)."""
    found = []
    for path in sorted(K8S.rglob("*.yaml")):
        docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
        if path.name != "kustomization.yaml" and all("apiVersion" in d for d in docs):
            found.append(path)
    return found


def validate_compose(work: Path) -> list[str]:
    files = [*COMPOSE_FILES]
    for base, addition in (  # each file merged with each of its additions
        ("compose.cluster.yaml", "compose.cluster.tracing.yaml"),
        ("compose.cluster.yaml", "compose.cluster.tls.yaml"),
        ("compose.yaml", "compose.tls.yaml"),
    ):
        merged = work / addition.replace(".yaml", ".merged.yaml")
        # The cluster file requires its nodes' shared secret (${YGGDRASIL_CLUSTER_SECRET:?}):
        # a stand-in lets the merge be checked without one.
        env = {**podman_env(), "YGGDRASIL_CLUSTER_SECRET": "stand-in-for-the-schema-check"}
        config = run(
            ["podman-compose", "-f", str(DEPLOY / base), "-f", str(DEPLOY / addition), "config"],
            env=env,
        )
        merged.write_text(config.stdout, encoding="utf-8")
        files.append(merged)
    run(["check-jsonschema", "--builtin-schema", "vendor.compose-spec", *map(str, files)])
    return [f"{len(files)} files valid: {', '.join(f.name for f in files)}"]


def kustomize(work: Path) -> list[Path]:
    rendered = []
    for directory in KUSTOMIZATIONS:
        out = work / f"kustomize-{directory.relative_to(DEPLOY).as_posix().replace('/', '-')}.yaml"
        out.write_text(run(["kubectl", "kustomize", str(directory)]).stdout, encoding="utf-8")
        rendered.append(out)
    return rendered


def validate_kubernetes(files: list[Path]) -> list[str]:
    """kubernetes-validate --strict on ``files`` for each release; CheckFailed on an error."""
    unknown: set[str] = set()
    resources = 0
    for version in KUBERNETES_VERSIONS:
        done = run(
            ["kubernetes-validate", "--strict", "-k", version, *map(str, files)], check=False
        )
        lines = (done.stdout + done.stderr).splitlines()
        errors = [line for line in lines if line.startswith("ERROR")]
        if done.returncode != 0 or errors:
            raise CheckFailed(f"Kubernetes {version}:\n  " + "\n  ".join(errors or lines[-10:]))
        resources = sum(" passed for resource " in line for line in lines)
        for line in lines:
            found = re.search(r"find schema for kind (\w+) with api version (\S+)", line)
            if found:
                unknown.add(f"{found[1]} ({found[2]})")
    notes = [f"{resources} resources valid against Kubernetes {' and '.join(KUBERNETES_VERSIONS)}"]
    if unknown:
        notes.append(f"no schema, not validated: {', '.join(sorted(unknown))}")
    return notes


# -- podman kube play ----------------------------------------------------------------------


def podman_adaptations(docs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The node ConfigMap and Deployment of the kustomize output, changed where podman 4.3
    differs from Kubernetes, with one line per change saying why."""
    said = []
    config = next(
        d for d in docs if d["kind"] == "ConfigMap" and "cluster-config" in d["metadata"]["name"]
    )
    deployment = copy.deepcopy(
        next(
            d
            for d in docs
            if d["kind"] == "Deployment" and d["metadata"]["name"] == "yggdrasil-node"
        )
    )
    spec = deployment["spec"]
    if spec.get("replicas", 1) != 1:
        said.append(f"replicas {spec['replicas']} -> 1 (podman would publish each pod's ports)")
        spec["replicas"] = 1
    (container,) = spec["template"]["spec"]["containers"]
    if container.pop("ports", None):
        said.append(
            "containerPorts dropped (podman publishes them on the host; Kubernetes does not)"
        )
    values: dict[str, str] = {}
    for env in container["env"]:
        field = env.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
        if field == "status.podIP":
            env.pop("valueFrom")
            env["value"] = "127.0.0.1"
            said.append(f"{env['name']} = {env['value']} (podman has no fieldRef {field})")
        elif field == "metadata.name":
            values[env["name"]] = POD  # podman gives it the pod's name, as Kubernetes does
        if "value" in env:
            # Kubernetes expands $(NAME) of variables defined before; podman does not.
            expanded = re.sub(r"\$\((\w+)\)", lambda m: values.get(m[1], m[0]), env["value"])
            if expanded != env["value"]:
                said.append(f"{env['name']} = {expanded} (podman does not expand {env['value']})")
                env["value"] = expanded
            values[env["name"]] = env["value"]
    return [config, deployment], said


def database_secret(url: str) -> str:
    """A podman secret's content as `podman kube play` reads a secretKeyRef from it: a JSON
    object of base64 values by key."""
    return json.dumps({"url": base64.b64encode(url.encode()).decode()})


def probe(service: str) -> bool:
    done = run(
        ["podman", "exec", CONTAINER, "python", "-m", "server.probe", "--service", service,
         "--timeout", "2"],
        check=False,
    )  # fmt: skip
    return done.returncode == 0


def kube_play(work: Path, rendered: Path) -> list[str]:
    docs = [d for d in yaml.safe_load_all(rendered.read_text(encoding="utf-8")) if d]
    played, notes = podman_adaptations(docs)
    (deployment,) = [d for d in played if d["kind"] == "Deployment"]
    image = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
    if not image_exists(image):
        raise CheckFailed(f"no image {image} (the kustomization's): run make image")
    manifest = work / "nodes.yaml"
    manifest.write_text(yaml.safe_dump_all(played), encoding="utf-8")
    database = podman_env().get("YGGDRASIL_POSTGRES_IMAGE") or STANDINS["YGGDRASIL_POSTGRES_IMAGE"]
    if not image_exists(database):
        raise CheckFailed(f"no PostgreSQL image {database}: run deploy/local/images.sh standins")
    podman("network", "create", NAME)
    podman(
        "run", "-d", "--name", f"{NAME}-postgres", "--network", NAME, "--network-alias", "postgres",
        "-e", "POSTGRES_USER=yggdrasil", "-e", f"POSTGRES_PASSWORD={PASSWORD}",
        "-e", "POSTGRES_DB=yggdrasil", database,
    )  # fmt: skip
    secret = work / "secret.json"
    secret.write_text(
        database_secret(f"postgresql://yggdrasil:{PASSWORD}@postgres:5432/yggdrasil"),
        encoding="utf-8",
    )
    podman("secret", "create", SECRET, str(secret))
    cluster_secret = work / "cluster-secret.json"
    cluster_secret.write_text(
        json.dumps({"secret": base64.b64encode(secrets.token_urlsafe(48).encode()).decode()}),
        encoding="utf-8",
    )
    podman("secret", "create", CLUSTER_SECRET, str(cluster_secret))
    start = time.monotonic()
    podman("kube", "play", "--network", NAME, str(manifest), timeout=120)
    until(lambda: probe("yggdrasil.v1.GameService"), timeout=60, interval=0.5,
          what=f"{CONTAINER} SERVING")  # fmt: skip
    seconds = time.monotonic() - start
    if not probe(""):
        raise CheckFailed("the liveness question (service '') is not answered SERVING")
    uid = podman("exec", CONTAINER, "id", "-u")
    writable = run(["podman", "exec", CONTAINER, "touch", "/written"], check=False)
    if uid != "10001" or writable.returncode == 0:
        raise CheckFailed(
            f"securityContext not applied: uid {uid}, root writable: {not writable.returncode}"
        )
    logs = podman("logs", CONTAINER)
    if f'"member":"{POD}/' not in logs:  # its node_registered line
        raise CheckFailed(f"the node did not register as {POD}: {logs[-400:]}")
    return [
        *notes,
        f"{CONTAINER} SERVING (readiness and liveness) {seconds:.1f} s after kube play, "
        f"uid {uid}, read-only root",
    ]


def clean_up(manifest: Path) -> list[str]:
    """Everything kube_play made, removed; the names of what could not be."""
    if manifest.exists():
        run(["podman", "kube", "down", str(manifest)], check=False, timeout=120)
    run(["podman", "rm", "-f", "-v", f"{NAME}-postgres"], check=False, timeout=60)
    run(["podman", "secret", "rm", SECRET], check=False)
    run(["podman", "secret", "rm", CLUSTER_SECRET], check=False)
    run(["podman", "network", "rm", NAME], check=False)
    left = []
    if run(["podman", "pod", "exists", POD], check=False).returncode == 0:
        left.append(f"pod {POD}")
    if run(["podman", "network", "exists", NAME], check=False).returncode == 0:
        left.append(f"network {NAME}")
    return left


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-play", action="store_true", help="only the offline validations")
    args = parser.parse_args(argv)
    require_tools("check-jsonschema", "kubernetes-validate", "kubectl", "podman-compose")
    steps = Steps("kube-check")
    with tempfile.TemporaryDirectory(prefix="kube-check-") as tmp:
        work = Path(tmp)
        with steps.step("compose files against the compose specification") as notes:
            notes.extend(validate_compose(work))
        with steps.step("Kubernetes manifests and kustomize output against the schemas") as notes:
            rendered = kustomize(work)
            notes.extend(validate_kubernetes([*manifests(), *rendered]))
        if not args.no_play:
            require_tools("podman")
            for name in (SECRET, CLUSTER_SECRET):
                if run(["podman", "secret", "inspect", name], check=False).returncode == 0:
                    raise CheckFailed(f"a podman secret {name} exists already: remove it first")
            cluster = work / "kustomize-k8s-cluster.yaml"
            with steps.step("the node Deployment with its ConfigMap in podman kube play") as notes:
                try:
                    notes.extend(kube_play(work, cluster))
                finally:
                    left = clean_up(work / "nodes.yaml")
                if left:
                    raise CheckFailed(f"left behind: {left}")
    steps.summary()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CheckFailed as failure:
        print(f"kube-check: FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
