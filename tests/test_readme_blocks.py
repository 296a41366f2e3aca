"""The README's command blocks, as ``make readme-check`` (CI) reads them: every block runs unless
marked with a reason; the recipes a newcomer types first are among those that run, after the
line that puts ``yggdrasil`` on the PATH; and every ``yggdrasil`` command in them parses (the
full run, against a server, is ``make readme-check``)."""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest

from clients.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_check", ROOT / "scripts/readme_check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


CHECK = _checker()
BLOCKS = CHECK.blocks((ROOT / "README.md").read_text(encoding="utf-8"))
RUN = [b for b in BLOCKS if not b.skip]


def _commands(prefix: str) -> list[list[str]]:
    """The argument lists of the runnable lines that start with ``prefix`` (``$GAME`` as a
    game id, ``$s`` as a seat, ``$(...)`` read as a command of its own; redirections, pipes,
    comments and trailing ``&``/``; done`` dropped)."""
    found = []
    for block in RUN:
        for line in block.text.replace("\\\n", " ").splitlines():
            line = line.split(" # ")[0].replace("$GAME", "g1").replace("$s", "1")
            parts = re.findall(r"\$\(([^)]*)\)", line) + re.split(r";|&&|\|", line)
            for part in parts:
                if "$(" in part:
                    continue
                words = shlex.split(part, posix=True)
                words = [w for w in words if w not in ("&", "do", "done") and ">" not in w]
                while words and words[0] in ("for", "do"):
                    words = words[words.index("do") + 1 :] if "do" in words else []
                if words and words[0] == prefix:
                    found.append(words[1:])
    return found


def test_the_block_reader_finds_indented_and_fenced_blocks_and_markers() -> None:
    text = (
        "Intro\n\n    make a\n    make b\n\nText\n\n"
        "<!-- readme-check: skip: needs a person -->\n\n    play\n\n"
        "```\nfenced one\n```\n"
    )
    found = CHECK.blocks(text)
    assert [(b.line, b.text, b.skip) for b in found] == [
        (3, "make a\nmake b", ""),
        (10, "play", "needs a person"),
        (12, "fenced one", ""),
    ]


def test_every_skipped_block_says_why_and_the_newcomer_recipes_run() -> None:
    assert all(len(b.skip) > 10 for b in BLOCKS if b.skip)
    text = "\n".join(b.text for b in RUN)
    for recipe in (
        ". .venv/bin/activate",
        "yggdrasil create --players 4",
        "yggdrasil play $GAME",
        "yggdrasil bot $GAME",
        "yggdrasil result $GAME",
        "yggdrasil replay $GAME",
        "yggdrasil list",
        "yggdrasil-tournament",
        "python -m engine demo",
    ):
        assert recipe in text, recipe
    # The PATH line comes before the first use of the commands it puts there.
    assert text.index(". .venv/bin/activate") < text.index("yggdrasil create")


@pytest.mark.parametrize("argv", _commands("yggdrasil"), ids=" ".join)
def test_every_yggdrasil_command_of_the_readme_parses(argv: list[str]) -> None:
    build_parser().parse_args(argv)  # argparse exits (SystemExit) on a bad command


def test_the_readme_has_yggdrasil_commands_to_check() -> None:
    commands = {argv[0] for argv in _commands("yggdrasil")}
    assert {"create", "join", "play", "bot", "watch", "result", "replay", "list"} <= commands


@pytest.mark.parametrize("argv", _commands("yggdrasil-tournament"), ids=" ".join)
def test_every_tournament_command_of_the_readme_parses(argv: list[str]) -> None:
    from clients.tournament import build_parser as tournament_parser

    tournament_parser().parse_args(argv)


def test_what_the_recipes_write_stays_out_of_the_checkout() -> None:
    """Every file or folder a recipe writes (``--out``) is under a folder git ignores, so that
    following the README leaves nothing untracked in the checkout."""
    import subprocess

    outs = [
        m.group(1) for b in RUN for m in re.finditer(r"--out[ =](\S+)", b.text) if m.group(1) != "-"
    ]
    assert len(outs) >= 2, outs  # the replay and the tournament's folder
    for out in outs:
        ignored = subprocess.run(
            ["git", "-C", str(ROOT), "check-ignore", "-q", "--no-index", out], check=False
        )
        assert ignored.returncode == 0, f"{out} would be left untracked in the checkout"


def test_the_engines_help_names_only_commands_that_exist(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from engine.__main__ import main

    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for module in re.findall(r"python -m ([\w.]+)", text):
        assert importlib.util.find_spec(module) is not None, module
    commands = re.findall(r"\{([\w,]+)\}", text)[0].split(",")
    for command in re.findall(r"python -m engine (\w+)", text):
        assert command in commands, command
    assert "yggdrasil replay GAME --verify" in text
    replay = build_parser().parse_args(["replay", "g", "--verify"])
    assert replay.command == "replay" and replay.verify
