"""``python -m engine demo``: one random game, its decisions, scores, ranks and winners."""

from __future__ import annotations

import re

import pytest

from engine.__main__ import main
from engine.blood_rage.ids import CLAN_NAMES
from engine.blood_rage.playout import random_game
from engine.blood_rage.results import result


@pytest.mark.parametrize(
    ("argv", "players", "seed"),
    [([], 4, 1), (["--players", "2", "--seed", "5"], 2, 5), (["--players", "5"], 5, 1)],
)
def test_demo_prints_the_game_it_played(capsys, argv, players, seed):
    assert main(["demo", *argv]) == 0
    lines = capsys.readouterr().out.splitlines()
    playout = random_game(players, seed)
    r = result(playout.state)
    assert r is not None
    head = re.fullmatch(
        rf"Blood Rage, {players} players, seed {seed}: (\d+) decisions in ([0-9.]+) ms", lines[0]
    )
    assert head is not None and int(head.group(1)) == len(playout.log)
    assert 0 < float(head.group(2)) < 60_000, "the time the game took, not a clock reading"
    ranked = sorted(range(players), key=lambda s: r.ranks[s])
    assert len(lines) == players + 2
    for line, seat in zip(lines[1:-1], ranked, strict=True):
        mark = "  winner" if seat in r.winners else ""
        expected = f"  {r.ranks[seat]}. seat {seat} ({CLAN_NAMES[seat]}): {r.scores[seat]} Glory"
        assert line == expected + mark
    assert sum(line.endswith("  winner") for line in lines) == len(r.winners) >= 1
    assert lines[-1] == f"state hash {playout.state.state_hash()}"


@pytest.mark.parametrize("argv", [[], ["demo", "--players", "6"], ["replay"]])
def test_demo_refuses_bad_arguments(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    if not argv:
        assert "the following arguments are required: command" in capsys.readouterr().err
