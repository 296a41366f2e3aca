"""Shared helpers of the deploy tests: loading the files under deploy/, the metric names the
server exports, and the metric/label names a PromQL expression uses."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import yaml

from server.api.connections import ConnectionCollector
from server.api.streams import StreamBook
from server.cluster.ownership import ClusterMetrics
from server.config import OPTIONS, Option
from server.games.recovery import RecoveryMetrics
from server.ops.metrics import Metrics, new_registry

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"
PROMETHEUS_DIR = DEPLOY / "prometheus"
ALERTS = PROMETHEUS_DIR / "alerts.yml"
K8S = DEPLOY / "k8s"
PROMETHEUS_RULE = K8S / "monitoring" / "prometheusrule.yaml"
DASHBOARD = DEPLOY / "grafana" / "dashboards" / "yggdrasil.json"

OPTIONS_BY_ENV: dict[str, Option] = {o.env_var: o for o in OPTIONS}

# Series Prometheus makes itself for every target rather than reads from /metrics.
SYNTHETIC = frozenset({"up", "scrape_duration_seconds", "scrape_samples_scraped"})
# Labels Prometheus attaches to every scraped series (static config / ServiceMonitor).
TARGET_LABELS = frozenset({"job", "instance", "namespace", "pod", "service", "container"})


def yaml_documents(path: Path) -> list[Any]:
    with path.open(encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def load_yaml(path: Path) -> Any:
    (doc,) = yaml_documents(path)
    return doc


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# -- exported metrics ----------------------------------------------------------------------


@dataclass
class Exported:
    """Sample names a real server exports, and the label names seen on each."""

    names: set[str] = field(default_factory=set)
    labels: dict[str, set[str]] = field(default_factory=dict)


# No ``_created``: server/ops/metrics.py turns those series off, so a dashboard or alert that
# reads one fails test_deploy_files.
_SUFFIXES = {
    "counter": ("_total",),
    "histogram": ("_bucket", "_count", "_sum"),
    "summary": ("", "_count", "_sum"),
    "gaugehistogram": ("_bucket", "_gcount", "_gsum"),
    "info": ("_info",),
}


def exported_metrics() -> Exported:
    """Everything a server's registry exports: ``Metrics()`` on a registry with the process,
    platform and GC collectors (as ``python -m server`` builds it) plus the restore metrics a
    SQLite-backed server registers at start-up. Labelled metrics get one child each so that
    their samples (and label names) show; unlabelled families are named from their type."""
    metrics = Metrics(new_registry(process_collectors=True))
    recovery = RecoveryMetrics.of(metrics)
    metrics.observe_rpc("SubmitAction", grpc.StatusCode.OK, 0.001)
    metrics.action_applied("march", "applied")
    recovery.restore_problems_total.labels(kind="snapshot").inc()
    cluster = ClusterMetrics(metrics)  # a cluster node's (--store postgres)
    cluster.forwarded_calls_total.labels(method="GetView", code="OK").inc()
    cluster.unhinted_calls_total.labels(method="GetView").inc()
    cluster.observe_store("append", 0.001)
    # Issue 13: quotas, aborts, broken logs, streams per game, connections.
    metrics.quota_refused("bot-runner", "open_games")
    metrics.games_aborted("open_timeout")
    recovery.out_of_service("g1", chain_broken=True)
    StreamBook().register_metrics(metrics.registry)
    ConnectionCollector(0).register(metrics.registry)
    out = Exported()
    for family in metrics.registry.collect():
        for suffix in _SUFFIXES.get(family.type, ("",)):
            out.names.add(family.name + suffix)
        for sample in family.samples:
            out.names.add(sample.name)
            out.labels.setdefault(sample.name, set()).update(sample.labels)
    return out


# -- PromQL --------------------------------------------------------------------------------

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_VARIABLE = re.compile(r"\$\{?\w+\}?")
_SELECTOR = re.compile(r"(?<![\w.:])([a-zA-Z_:][\w:]*)\s*\{([^{}]*)\}")
_MATCHER = re.compile(r"([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)")
_BRACES = re.compile(r"\{[^{}]*\}")
_BRACKETS = re.compile(r"\[[^\[\]]*\]")
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")
_IDENT = re.compile(r"(?<![\w.:])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()")
_KEYWORDS = frozenset(
    {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right"}
    | {"offset", "bool", "inf", "nan", "atan2", "start", "end"}
)
_LABEL_VALUES = re.compile(r"^\s*label_values\(\s*(.+?)\s*,\s*(\w+)\s*\)\s*$")


def _blank_strings(expr: str) -> str:
    return _STRING.sub('""', _VARIABLE.sub("1", expr))


def metric_names(expr: str) -> set[str]:
    """Metric names an expression selects (functions, keywords and labels left out)."""
    text = _blank_strings(expr)
    selected = {m.group(1) for m in _SELECTOR.finditer(text)}
    text = _BRACES.sub(" ", text)
    text = _BRACKETS.sub(" ", text)
    text = _GROUPING.sub(" ", text)
    bare = {m.group(1) for m in _IDENT.finditer(text)} - _KEYWORDS
    return selected | bare


def matcher_labels(expr: str) -> dict[str, set[str]]:
    """For each ``name{...}`` selector, the label names its matchers use."""
    out: dict[str, set[str]] = {}
    for m in _SELECTOR.finditer(_blank_strings(expr)):
        out.setdefault(m.group(1), set()).update(_MATCHER.findall(m.group(2)))
    return out


def grafana_template_query(query: Any) -> str:
    """The PromQL inside a Grafana ``label_values(expr, label)`` variable query."""
    text = query["query"] if isinstance(query, dict) else str(query)
    m = _LABEL_VALUES.match(text)
    return m.group(1) if m else text


def alert_rules(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [rule for group in groups for rule in group["rules"]]


def dashboard_exprs(dashboard: dict[str, Any]) -> list[str]:
    exprs: list[str] = []

    def walk(panels: list[dict[str, Any]]) -> None:
        for panel in panels:
            exprs.extend(t["expr"] for t in panel.get("targets", []) if t.get("expr"))
            walk(panel.get("panels", []))

    walk(dashboard["panels"])
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") == "query":
            exprs.append(grafana_template_query(variable["query"]))
    return exprs


# -- Dockerfile ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Instruction:
    keyword: str
    args: str


def dockerfile_instructions(path: Path = DOCKERFILE) -> list[Instruction]:
    """Instructions with continuation lines joined and comments dropped."""
    out: list[Instruction] = []
    pending = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        keyword, _, args = full.partition(" ")
        out.append(Instruction(keyword.upper(), args.strip()))
    assert not pending, "Dockerfile ends inside a continued line"
    return out


def dockerfile_env(instructions: list[Instruction]) -> dict[str, str]:
    """``ENV`` of the last stage (``KEY=VALUE`` form)."""
    last_from = max(i for i, ins in enumerate(instructions) if ins.keyword == "FROM")
    env: dict[str, str] = {}
    for ins in instructions[last_from:]:
        if ins.keyword == "ENV":
            for token in shlex.split(ins.args):
                key, sep, value = token.partition("=")
                assert sep, f"ENV in KEY VALUE form is not used here: {ins.args!r}"
                env[key] = value
    return env
