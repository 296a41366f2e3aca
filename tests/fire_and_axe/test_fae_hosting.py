"""What a host asks of Fire & Axe beyond playing it: the options a state was started with, the
phase number it snapshots at, the view keys every game shares, and a pack other than the
built-in one carried whole in the options (so a stored game or a replay needs no file)."""

from __future__ import annotations

import json
import random

import pytest

from engine.core.contract import SPECTATOR, VIEW_KEYS
from engine.core.errors import OptionsError
from engine.fire_and_axe.data_pack import demo_pack, parse
from engine.fire_and_axe.rules import PHASE_FINAL_ROUNDS, PHASE_GAME_OVER, RULES
from engine.fire_and_axe.snapshot import from_snapshot, to_snapshot
from tests.fire_and_axe.fae_support import scenario, seats
from tests.fire_and_axe.test_fae_data_pack import DEMO_TEXT

OTHER_TEXT = DEMO_TEXT.replace('id = "demo-invented-v1"', 'id = "test-copy-of-demo"', 1).replace(
    'name = "DEMO pack (invented board and cards, NOT the published game)"',
    'name = "TEST pack: the demo pack renamed (invented, NOT the published game)"',
    1,
)


def test_a_renamed_demo_is_another_pack() -> None:
    assert OTHER_TEXT != DEMO_TEXT
    assert parse(OTHER_TEXT).digest != demo_pack().digest


@pytest.mark.parametrize("players", [2, 5])
def test_options_of_a_new_game_set_up_the_same_game(players: int) -> None:
    options = RULES.options(
        players,
        41,
        {"settle_region_block": "any", "rune_timing": "any_time", "no_conflict": True},
    )
    state = RULES.new_game(options)
    back = RULES.options_of(state)
    record = RULES.options_record(back)
    assert record["settle_region_block"] == "any" and record["rune_timing"] == "any_time"
    assert record["no_conflict"] is True and record["data_pack"] == demo_pack().digest
    assert (back.players, back.seed, back.first_player) == (players, 41, state.first_player)
    # The drawn first player is named, so the same game comes out whether drawn or named.
    again = RULES.new_game(back)
    assert again.first_player == state.first_player
    assert again.seats[state.first_player].vp == state.seats[state.first_player].vp


def test_options_of_a_scenario_are_its_own() -> None:
    state = scenario(
        players=2,
        seed=5,
        first_player=1,
        options={"settle_region_block": "any"},
        seats=seats(players=2),
    )
    options = RULES.options_of(state)
    assert (options.players, options.seed, options.first_player) == (2, 5, 1)
    assert options.settle_region_block == "any" and options.rune_timing == "own_turn"


def test_the_phase_is_the_age_then_the_final_rounds_then_the_end() -> None:
    state = RULES.new_game(RULES.options(3, 2, {}))
    assert RULES.phase(state) == 1
    state.age = 2
    assert RULES.phase(state) == 2
    state.markers_holder = 0
    assert RULES.phase(state) == PHASE_FINAL_ROUNDS
    rng = random.Random(3)
    game = RULES.new_game(RULES.options(2, 3, {}))
    seen = [RULES.phase(game)]
    while RULES.result(game) is None:
        seat = RULES.awaiting(game)[0]
        RULES.apply_unchecked(game, seat, rng.choice(RULES.legal_actions(game, seat)))
        if RULES.phase(game) != seen[-1]:
            seen.append(RULES.phase(game))
    assert seen[0] == 1 and seen[-1] == PHASE_GAME_OVER
    assert seen == sorted(seen), "phases only move forward"


@pytest.mark.parametrize("viewer", [SPECTATOR, 0, 1])
def test_views_have_the_common_keys(viewer: int) -> None:
    state = RULES.new_game(RULES.options(2, 8, {"first_player": 0}))
    view = RULES.view(state, viewer)
    assert set(VIEW_KEYS) <= set(view)
    assert view["viewer"] == viewer and view["version"] == 0 and view["committed"] == []
    assert view["awaiting"] == [0]
    entries = view["legal_actions"]
    if viewer == 0:
        assert entries and all({"index", "code", "label"} <= set(e) for e in entries)
        assert [e["index"] for e in entries] == list(range(len(entries)))
    else:
        assert entries == []


def test_the_redacted_state_has_no_seed() -> None:
    state = RULES.new_game(RULES.options(2, 123456789, {}))
    snap = RULES.view(state, 0, include_state=True)["engine_state"]
    assert snap["seed"] == 0 and snap["rng"] == 0
    assert "123456789" not in json.dumps(snap)


def test_a_pack_of_its_own_travels_in_the_options() -> None:
    other = parse(OTHER_TEXT, "other.toml")
    options = RULES.options(3, 4, {"data_pack_toml": OTHER_TEXT})
    assert options.data_pack == other.digest
    record = RULES.options_record(options)
    assert record["data_pack"] == other.digest and record["data_pack_toml"] == OTHER_TEXT
    state = RULES.new_game(options)
    assert state.board.pack.id == "test-copy-of-demo"
    # the record alone sets the very same game up again (and names the pack by digest too)
    assert RULES.new_game(RULES.options(3, 4, record)).state_hash() == state.state_hash()
    assert from_snapshot(to_snapshot(state)).state_hash() == state.state_hash()
    # and the hash tells the packs apart
    demo = RULES.new_game(RULES.options(3, 4, {}))
    assert "data_pack_toml" not in RULES.options_record(RULES.options_of(demo))
    assert demo.state_hash() != state.state_hash()


def test_a_carried_pack_must_be_the_one_named() -> None:
    with pytest.raises(OptionsError, match="data_pack names"):
        RULES.options(3, 4, {"data_pack": demo_pack().digest, "data_pack_toml": OTHER_TEXT})
    with pytest.raises(OptionsError, match="data_pack_toml: 1 problem"):
        RULES.options(3, 4, {"data_pack_toml": OTHER_TEXT.replace("format = 1", "format = 9")})
    with pytest.raises(OptionsError, match="text of a data pack"):
        RULES.options(3, 4, {"data_pack_toml": 7})
