"""The files under deploy/ parse, agree with server/config.py and server/ops/metrics.py, and with
each other (ports, settings, alert thresholds, the single-writer StatefulSet)."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from deploy_support import (
    ALERTS,
    COMPOSE,
    DASHBOARD,
    DEPLOY,
    K8S,
    OPTIONS_BY_ENV,
    PROMETHEUS_DIR,
    PROMETHEUS_RULE,
    ROOT,
    SYNTHETIC,
    TARGET_LABELS,
    alert_rules,
    dashboard_exprs,
    dockerfile_env,
    dockerfile_instructions,
    exported_metrics,
    load_json,
    load_yaml,
    matcher_labels,
    metric_names,
    yaml_documents,
)

from server.config import ServerConfig

DEFAULTS = ServerConfig()

YAML_FILES = sorted(p for ext in ("*.yml", "*.yaml") for p in DEPLOY.rglob(ext))
JSON_FILES = sorted(DEPLOY.rglob("*.json"))


def _k8s_objects() -> dict[tuple[str, str], dict[str, Any]]:
    objects: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(K8S.rglob("*.yaml")):
        for doc in yaml_documents(path):
            if "kind" in doc and doc["kind"] != "Kustomization":
                objects[(doc["kind"], doc["metadata"]["name"])] = doc
    return objects


K8S_OBJECTS = _k8s_objects()
STATEFULSET = K8S_OBJECTS[("StatefulSet", "yggdrasil")]
POD = STATEFULSET["spec"]["template"]["spec"]
(CONTAINER,) = POD["containers"]
CONFIGMAP = K8S_OBJECTS[("ConfigMap", "yggdrasil-config")]["data"]
COMPOSE_DOC = load_yaml(COMPOSE)
COMPOSE_SERVER = COMPOSE_DOC["services"]["yggdrasil"]
DOCKER = dockerfile_instructions()
DOCKER_ENV = dockerfile_env(DOCKER)


def _config(env: dict[str, str]) -> ServerConfig:
    return ServerConfig.from_env_and_args([], env=env)


def _compose_env() -> dict[str, str]:
    return {k: str(v) for k, v in COMPOSE_SERVER["environment"].items()}


def _seconds(text: str) -> float:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", text)
    assert m, text
    return float(m.group(1)) * {"ms": 0.001, "s": 1.0, "m": 60.0}[m.group(2)]


# -- every file parses ---------------------------------------------------------------------


def test_files_found() -> None:
    names = {p.relative_to(DEPLOY).as_posix() for p in YAML_FILES + JSON_FILES}
    assert {
        "compose.yaml",
        "prometheus/prometheus.yml",
        "prometheus/alerts.yml",
        "k8s/kustomization.yaml",
        "k8s/statefulset.yaml",
        "k8s/monitoring/prometheusrule.yaml",
        "grafana/dashboards/yggdrasil.json",
    } <= names


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: p.relative_to(DEPLOY).as_posix())
def test_yaml_parses(path: Path) -> None:
    docs = yaml_documents(path)
    assert docs and all(isinstance(d, dict) for d in docs)


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: p.relative_to(DEPLOY).as_posix())
def test_json_parses(path: Path) -> None:
    assert isinstance(load_json(path), dict)


# -- metric names --------------------------------------------------------------------------


def test_promql_parser_finds_names_and_labels() -> None:
    expr = (
        'histogram_quantile(0.99, sum by (job, le) (rate(foo_bucket{code=~"A|B", m="x{y}"}'
        "[$__rate_interval]))) / on (job) group_left sum(bar_total offset 5m) > 1e3 "
        'and absent(up{job="j"}) unless baz'
    )
    assert metric_names(expr) == {"foo_bucket", "bar_total", "up", "baz"}
    assert matcher_labels(expr) == {"foo_bucket": {"code", "m"}, "up": {"job"}}


def test_exported_metrics_include_histogram_and_process_samples() -> None:
    names = exported_metrics().names
    for name in (
        "yggdrasil_rpc_duration_seconds_bucket",
        "yggdrasil_rpc_duration_seconds_count",
        "yggdrasil_store_append_seconds_sum",
        "yggdrasil_actions_applied_total",
        "yggdrasil_games_hosted",
        "yggdrasil_games_unrecoverable",
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
    ):
        assert name in names
    assert "yggdrasil_rpc_duration_seconds" not in names  # only its _bucket/_count/_sum


def _check_exprs(exprs: list[str], where: str) -> set[str]:
    exported = exported_metrics()
    used: set[str] = set()
    problems: list[str] = []
    for expr in exprs:
        names = metric_names(expr)
        assert names, f"{where}: no metric in {expr!r}"
        used |= names
        for name in sorted(names - SYNTHETIC - exported.names):
            problems.append(f"{where}: {name!r} is not exported by the server ({expr!r})")
        for name, labels in matcher_labels(expr).items():
            known = exported.labels.get(name)
            if known is None:
                continue
            for label in sorted(labels - known - TARGET_LABELS):
                problems.append(f"{where}: {name} has no label {label!r} ({expr!r})")
    assert not problems, "\n".join(problems)
    return used


def test_alert_rules_use_exported_metrics() -> None:
    rules = alert_rules(load_yaml(ALERTS)["groups"])
    used = _check_exprs([r["expr"] for r in rules], "alerts.yml")
    assert {"yggdrasil_rpc_duration_seconds_count", "yggdrasil_games_hosted", "up"} <= used


def test_prometheus_rule_uses_exported_metrics() -> None:
    (rule,) = yaml_documents(PROMETHEUS_RULE)
    _check_exprs([r["expr"] for r in alert_rules(rule["spec"]["groups"])], "PrometheusRule")


def test_dashboard_uses_exported_metrics() -> None:
    used = _check_exprs(dashboard_exprs(load_json(DASHBOARD)), "yggdrasil.json")
    for name in (
        "yggdrasil_rpc_duration_seconds_bucket",
        "yggdrasil_actions_applied_total",
        "yggdrasil_games_created_total",
        "yggdrasil_games_finished_total",
        "yggdrasil_watch_streams_active",
        "yggdrasil_store_append_seconds_bucket",
        "yggdrasil_snapshot_seconds_bucket",
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
    ):
        assert name in used, name


def test_a_misspelt_metric_would_be_caught() -> None:
    with pytest.raises(AssertionError, match="yggdrasil_games_hostd"):
        _check_exprs(["sum(yggdrasil_games_hostd)"], "probe")
    with pytest.raises(AssertionError, match="no label 'status'"):
        _check_exprs(['rate(yggdrasil_rpc_duration_seconds_count{status="OK"}[5m])'], "probe")


# -- alert rules ---------------------------------------------------------------------------


def test_alert_rules_are_complete() -> None:
    rules = alert_rules(load_yaml(ALERTS)["groups"])
    names = [r["alert"] for r in rules]
    assert len(names) == len(set(names))
    for rule in rules:
        assert rule["labels"]["severity"] in ("critical", "warning"), rule["alert"]
        assert {"summary", "description", "runbook"} <= set(rule["annotations"]), rule["alert"]
        assert 'job="yggdrasil"' in rule["expr"], rule["alert"]


def test_every_alert_has_a_runbook_section() -> None:
    readme = (DEPLOY / "README.md").read_text(encoding="utf-8")
    headings = {h.strip().lower() for h in re.findall(r"^#+\s+(.+)$", readme, re.MULTILINE)}
    for rule in alert_rules(load_yaml(ALERTS)["groups"]):
        anchor = rule["annotations"]["runbook"].partition("#")[2]
        assert anchor == rule["alert"].lower()
        assert anchor in headings, f"deploy/README.md has no section for {rule['alert']}"


def test_prometheus_rule_is_alerts_yml() -> None:
    (rule,) = yaml_documents(PROMETHEUS_RULE)
    assert rule["kind"] == "PrometheusRule"
    assert rule["spec"]["groups"] == load_yaml(ALERTS)["groups"]
    spec = importlib.util.spec_from_file_location("sync_rules", DEPLOY / "sync_rules.py")
    assert spec is not None and spec.loader is not None
    sync = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sync)
    assert sync.render() == PROMETHEUS_RULE.read_text(encoding="utf-8"), (
        "stale: run .venv/bin/python deploy/sync_rules.py"
    )


def test_capacity_alert_compares_with_the_exported_limit() -> None:
    (rule,) = [
        r
        for r in alert_rules(load_yaml(ALERTS)["groups"])
        if r["alert"] == "YggdrasilGamesNearCapacity"
    ]
    assert "yggdrasil_max_games" in rule["expr"] and "yggdrasil_games_hosted" in rule["expr"]


def test_prometheus_scrapes_the_metrics_port_and_loads_the_rules() -> None:
    config = load_yaml(PROMETHEUS_DIR / "prometheus.yml")
    assert [(PROMETHEUS_DIR / f).resolve() for f in config["rule_files"]] == [ALERTS.resolve()]
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == "yggdrasil"]
    (target,) = job["static_configs"][0]["targets"]
    host, _, port = target.partition(":")
    assert host == "yggdrasil" and "yggdrasil" in COMPOSE_DOC["services"]
    assert int(port) == _config(DOCKER_ENV | _compose_env()).metrics_port


# -- settings and ports ----------------------------------------------------------------------


def _check_env(env: dict[str, str], where: str) -> None:
    for key, value in env.items():
        if not key.startswith("YGGDRASIL_"):
            continue
        assert key in OPTIONS_BY_ENV, f"{where}: {key} is not a server option"
        if value.startswith("${"):
            continue  # filled in by compose from the caller's environment
        OPTIONS_BY_ENV[key].parse(value)  # raises ValueError on a bad value


def test_dockerfile_env_names_real_options() -> None:
    _check_env(DOCKER_ENV, "Dockerfile")
    config = _config(DOCKER_ENV)
    assert config.host == "0.0.0.0"
    assert config.data_dir == Path("/data") and config.store == "sqlite"
    assert (config.port, config.metrics_port) == (DEFAULTS.port, DEFAULTS.metrics_port)


def test_dockerfile_image_shape() -> None:
    froms = [i.args for i in DOCKER if i.keyword == "FROM"]
    assert len(froms) >= 2, "multi-stage"
    (arg,) = [i.args for i in DOCKER if i.keyword == "ARG" and i.args.startswith("PYTHON_IMAGE")]
    assert arg == "PYTHON_IMAGE=docker.io/library/python:3.11-slim"
    assert all(f.startswith("${PYTHON_IMAGE}") for f in froms)
    run = " ".join(i.args for i in DOCKER if i.keyword == "RUN")
    assert "pip install ." in run
    exposed = {int(p) for i in DOCKER if i.keyword == "EXPOSE" for p in i.args.split()}
    config = _config(DOCKER_ENV)
    assert exposed == {config.port, config.metrics_port}
    (user,) = [i.args for i in DOCKER if i.keyword == "USER"]
    args = dict(i.args.split("=", 1) for i in DOCKER if i.keyword == "ARG" and "=" in i.args)
    uid = user.split(":")[0].replace("${UID}", args["UID"])
    assert uid.isdigit() and int(uid) != 0
    assert [i.args for i in DOCKER if i.keyword == "STOPSIGNAL"] == ["SIGTERM"]
    assert json.loads(next(i.args for i in DOCKER if i.keyword == "VOLUME")) == ["/data"]
    assert json.loads(next(i.args for i in DOCKER if i.keyword == "ENTRYPOINT")) == [
        "python",
        "-m",
        "server",
    ]


def test_dockerfile_healthcheck_runs_the_probe() -> None:
    (health,) = [i.args for i in DOCKER if i.keyword == "HEALTHCHECK"]
    options, _, command = health.partition("CMD")
    assert "--timeout" in options
    argv = json.loads(command)
    assert argv[:3] == ["python", "-m", "server.probe"]
    assert (ROOT / "server" / "probe.py").is_file()


def test_dockerfile_copies_every_package() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    include = re.search(r"include = \[(.*?)\]", pyproject)
    assert include
    packages = {p.strip(' "*') for p in include.group(1).split(",")}
    sources = {
        source
        for i in DOCKER
        if i.keyword == "COPY" and not i.args.startswith("--from")
        for source in shlex.split(i.args)[:-1]
    }
    assert packages <= sources, packages - sources
    assert {"pyproject.toml", "README.md"} <= sources
    for source in sources:
        assert (ROOT / source).exists(), source


def test_dockerignore_keeps_local_state_out() -> None:
    lines = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".git", ".venv", ".tools", "data", "**/node_modules"} <= lines
    for needed in (
        "engine",
        "protocol",
        "server",
        "clients",
        "yggdrasil",
        "pyproject.toml",
        "README.md",
    ):
        assert needed not in lines


def test_compose_server() -> None:
    _check_env(_compose_env(), "compose.yaml")
    build = COMPOSE_SERVER["build"]
    context = (COMPOSE.parent / build["context"]).resolve()
    assert context == ROOT and (context / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    config = _config(DOCKER_ENV | _compose_env())
    published = {int(p.rsplit(":", 1)[1]) for p in COMPOSE_SERVER["ports"]}
    assert published == {config.port, config.metrics_port}
    (volume,) = COMPOSE_SERVER["volumes"]
    name, _, target = volume.partition(":")
    assert Path(target) == config.data_dir and name in COMPOSE_DOC["volumes"]
    assert _seconds(COMPOSE_SERVER["stop_grace_period"]) > config.grace_period_s + 5
    assert COMPOSE_SERVER["read_only"] is True and "/tmp" in COMPOSE_SERVER["tmpfs"]


def test_compose_monitoring_mounts_exist() -> None:
    for service in ("prometheus", "grafana"):
        for volume in COMPOSE_DOC["services"][service]["volumes"]:
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (COMPOSE.parent / source).is_dir(), source
    datasources = load_yaml(DEPLOY / "grafana/provisioning/datasources/prometheus.yml")
    (ds,) = datasources["datasources"]
    assert ds["type"] == "prometheus" and ds["url"] == "http://prometheus:9090"


def test_dashboard_shape() -> None:
    dashboard = load_json(DASHBOARD)
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    for panel in dashboard["panels"]:
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == "${datasource}", panel["title"]


# -- Kubernetes ----------------------------------------------------------------------------


def test_kustomization_lists_existing_files_and_no_secret() -> None:
    for kustomization in (K8S / "kustomization.yaml", K8S / "monitoring" / "kustomization.yaml"):
        doc = load_yaml(kustomization)
        assert doc["namespace"] == "yggdrasil"
        for resource in doc["resources"]:
            path = kustomization.parent / resource
            assert path.is_file(), path
            kinds = {d["kind"] for d in yaml_documents(path)}
            assert "Secret" not in kinds, f"{resource}: never ship a Secret"
    secret = K8S_OBJECTS[("Secret", "yggdrasil-admin")]
    assert secret["stringData"]["admin-token"].startswith("REPLACE-ME")


def test_configmap_names_real_options() -> None:
    _check_env(CONFIGMAP, "configmap.yaml")
    assert all(k in OPTIONS_BY_ENV for k in CONFIGMAP)
    assert "YGGDRASIL_ADMIN_TOKEN" not in CONFIGMAP
    config = _config(CONFIGMAP)
    assert config.host == "0.0.0.0" and config.data_dir == Path("/data")


def test_statefulset_single_writer() -> None:
    spec = STATEFULSET["spec"]
    assert spec["replicas"] == 1
    assert spec["serviceName"] in {name for kind, name in K8S_OBJECTS if kind == "Service"}
    (claim,) = spec["volumeClaimTemplates"]
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    mounts = {m["mountPath"]: m["name"] for m in CONTAINER["volumeMounts"]}
    config = _config(CONFIGMAP)
    assert mounts[str(config.data_dir)] == claim["metadata"]["name"]
    volumes = {v["name"]: v for v in POD["volumes"]}
    assert "emptyDir" in volumes[mounts["/tmp"]]


def test_statefulset_probes_use_grpc_on_the_grpc_port() -> None:
    config = _config(CONFIGMAP)
    ports = {p["name"]: p["containerPort"] for p in CONTAINER["ports"]}
    assert ports == {"grpc": config.port, "metrics": config.metrics_port}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert set(CONTAINER[probe]) & {"grpc", "httpGet", "tcpSocket", "exec"} == {"grpc"}
        assert CONTAINER[probe]["grpc"]["port"] == config.port, probe


def test_statefulset_grace_and_security() -> None:
    config = _config(CONFIGMAP)
    assert POD["terminationGracePeriodSeconds"] > config.grace_period_s + 5
    assert POD["securityContext"]["runAsNonRoot"] is True
    assert POD["securityContext"]["runAsUser"] != 0
    security = CONTAINER["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    assert CONTAINER["resources"]["requests"] and CONTAINER["resources"]["limits"]["memory"]
    (env,) = CONTAINER["env"]
    assert env["name"] == "YGGDRASIL_ADMIN_TOKEN" and env["name"] in OPTIONS_BY_ENV
    assert env["valueFrom"]["secretKeyRef"]["optional"] is True
    (source,) = CONTAINER["envFrom"]
    assert source["configMapRef"]["name"] == "yggdrasil-config"


def _port_names_selected_by(selector: dict[str, str]) -> set[str]:
    """The named container ports of the pods (of any workload here) a Service selects."""
    names: set[str] = set()
    for (kind, _), found in K8S_OBJECTS.items():
        if kind in ("Deployment", "StatefulSet"):
            template = found["spec"]["template"]
            if selector.items() <= template["metadata"]["labels"].items():
                for container in template["spec"]["containers"]:
                    names |= {p["name"] for p in container.get("ports", [])}
    return names


def test_services_and_service_monitor_use_named_ports() -> None:
    config = _config(CONFIGMAP)
    service = K8S_OBJECTS[("Service", "yggdrasil")]
    ports = {p["name"]: p for p in service["spec"]["ports"]}
    assert ports["grpc"]["port"] == config.port and ports["metrics"]["port"] == config.metrics_port
    for kind, name in K8S_OBJECTS:
        if kind == "Service":
            selected = K8S_OBJECTS[(kind, name)]["spec"]["selector"]
            for port in K8S_OBJECTS[(kind, name)]["spec"]["ports"]:
                assert port["targetPort"] in _port_names_selected_by(selected), (name, port)
    monitor = K8S_OBJECTS[("ServiceMonitor", "yggdrasil")]
    selector = monitor["spec"]["selector"]["matchLabels"]
    scraped = [
        name
        for kind, name in K8S_OBJECTS
        if kind == "Service"
        and selector.items() <= K8S_OBJECTS[(kind, name)]["metadata"]["labels"].items()
    ]
    assert scraped == ["yggdrasil"], "exactly one Service scraped (job label = its name)"
    assert [e["port"] for e in monitor["spec"]["endpoints"]] == ["metrics"]
