"""promtool checks the Prometheus files for real: rule syntax, the compose config, the
PrometheusRule's groups, and the alert unit tests in deploy/prometheus/alerts_test.yml.

Behind the ``promtool`` marker: ``make deploy-check`` installs promtool (Debian's
``prometheus`` package) and runs them; CI does. Selected without promtool, they fail."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from deploy_support import ALERTS, PROMETHEUS_DIR, PROMETHEUS_RULE, yaml_documents

PROMTOOL = shutil.which("promtool")

pytestmark = pytest.mark.promtool


def _promtool(*args: str | Path, cwd: Path = PROMETHEUS_DIR) -> str:
    assert PROMTOOL is not None, "promtool is not on PATH: run `make deploy-check`"
    done = subprocess.run(
        [PROMTOOL, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def test_check_rules() -> None:
    assert "SUCCESS" in _promtool("check", "rules", ALERTS)


def test_check_prometheus_rule_groups(tmp_path: Path) -> None:
    (rule,) = yaml_documents(PROMETHEUS_RULE)
    path = tmp_path / "groups.yml"
    path.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}), encoding="utf-8")
    assert "SUCCESS" in _promtool("check", "rules", path)


def test_check_config() -> None:
    assert "SUCCESS" in _promtool("check", "config", "prometheus.yml")


def test_alert_unit_tests() -> None:
    assert "SUCCESS" in _promtool("test", "rules", "alerts_test.yml")
