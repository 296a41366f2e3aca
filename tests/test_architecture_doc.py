"""docs/architecture.md's picture of the layers is generated from the imports and must match
them (scripts/architecture_diagram.py --write renews it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import architecture_diagram  # noqa: E402


def test_the_layers_picture_is_current() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/architecture_diagram.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_the_picture_draws_every_room_and_game_folder() -> None:
    text = architecture_diagram.diagram()
    for room in ("server.ops", "server.stores", "server.games", "server.cluster", "server.api"):
        assert f'["{room}"]' in text
    assert '["engine.blood_rage"]' in text and '["protocol.blood_rage"]' in text
    assert "engine_core -->" not in text  # the contract imports no other package of ours


def test_a_package_is_what_the_module_is_in() -> None:
    games = ["blood_rage"]
    of = architecture_diagram.package_of
    assert of("engine.blood_rage.battle", games) == "engine.blood_rage"
    assert of("engine.core.contract", games) == "engine.core"
    assert of("engine.registry", games) == "engine"
    assert of("server.games.game", games) == "server.games"
    assert of("server.main", games) == "server"
    assert of("protocol.envelopes", games) == "protocol"
    assert of("grpc", games) is None
