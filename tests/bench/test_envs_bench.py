"""The environments bench: every kind plays the same games, and the figures it derives."""

from __future__ import annotations

import pytest

from bench.envs_bench import KINDS, EnvsBench, _aec, _aec_no_tensor, _raw, run


def test_the_aec_loop_plays_the_same_game_with_or_without_the_tensor() -> None:
    # The same deal and the same random choices from the mask: the same decisions, to the end.
    assert _aec("blood_rage", 3) == _aec_no_tensor("blood_rage", 3) > 50
    assert _raw("blood_rage", 3) > 50


def test_the_share_of_the_tensor_is_what_leaving_it_out_saves() -> None:
    bench = EnvsBench("blood_rage", 1, 1, {"raw": [40.0], "aec": [10.0], "aec_no_tensor": [25.0]})
    assert bench.cost("aec") == pytest.approx(4.0)
    assert bench.cost("aec_no_tensor") == pytest.approx(1.6)
    assert bench.share("aec_no_tensor") == pytest.approx(0.6)  # 100 us a step, 40 without it


def test_a_short_run_measures_every_kind() -> None:
    bench = run(games=1, rounds=1)
    assert set(bench.per_s) == set(KINDS)
    assert all(len(rates) == 1 and rates[0] > 0 for rates in bench.per_s.values())
    assert [row[0].strip() for row in bench.rows()][:3] == [
        "raw engine decisions / CPU s",
        "AEC env steps / CPU s",
        "the same without the tensor",
    ]
