"""Snapshots and set-up at their edges: a malformed snapshot's refusal says what is wrong once
(not wrapped in itself), the redacted state a bot receives keeps what is public (a raided
town's treasure, the decks' sizes), and options are checked however a game is made.

A bot that rebuilds a state from the redacted snapshot must see every public fact the view
shows; a refusal that repeats itself reads as two problems."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.errors import OptionsError
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.setup import GameOptions
from engine.fire_and_axe.snapshot import SnapshotError, to_snapshot
from tests.fire_and_axe.fae_support import loc, scenario, seats


def malformed(**fields: Any) -> str:
    snap = to_snapshot(scenario())
    snap.update(fields)
    with pytest.raises(SnapshotError) as info:
        RULES.from_snapshot(snap)
    return str(info.value)


def test_a_malformed_field_is_named_once() -> None:
    assert malformed(players="3") == "malformed snapshot: players must be an integer, not '3'"
    size = len(scenario().board.ids)
    assert malformed(town=[0, 1]) == f"malformed snapshot: town must have {size} entries"
    assert malformed(rune_deck=[True]) == (
        "malformed snapshot: rune_deck must be a list of integers"
    )


def test_the_redacted_state_keeps_a_raided_towns_treasure_and_the_deck_sizes() -> None:
    s = scenario(
        seats=seats({"location": "Kiev", "crew": 2, "towns": [{"port": "Lyubech", "treasure": 4}]})
    )
    lyubech = loc(s, "lyubech")
    snap = RULES.view(s, 1, include_state=True)["engine_state"]
    assert snap["treasure"][lyubech] == 4 == s.treasure[lyubech]
    standing = [i for i, size in enumerate(s.town) if size]
    assert standing and all(snap["treasure"][i] == -1 for i in standing)
    for name in ("rune_deck", "saga_deck", "saga_removed"):
        assert snap[name] == [-1] * len(getattr(s, name))
    assert len(snap["rune_deck"]) > 1 and len(snap["saga_deck"]) > 1


def test_new_game_checks_its_options() -> None:
    """``Rules.new_game`` is given options the caller built: it checks them itself."""
    for options, words in (
        (GameOptions(players=1), "Fire & Axe takes 2 to 5 players, not 1"),
        (GameOptions(players=3, first_player=3), "first player 3 is not a seat of this game"),
        (GameOptions(players=3, data_pack="f00"), "no data pack with digest 'f00'"),
    ):
        with pytest.raises(OptionsError, match=words):
            RULES.new_game(options)


def test_a_negative_first_player_is_not_a_seat() -> None:
    with pytest.raises(OptionsError, match=r"^first player -1 is not a seat of this game$"):
        RULES.options(3, 1, {"first_player": -1})
