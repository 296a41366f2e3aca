"""Determinism: the same options, seed and decisions give the same hash, in any process;
snapshots round-trip mid-turn; copies are independent; the checked apply refuses illegal
decisions and leaves the state as it was."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.errors import GameOverError, IllegalActionError, NotYourDecisionError
from engine.fire_and_axe import flow
from engine.fire_and_axe.actions import Action
from engine.fire_and_axe.rules import RULES
from engine.fire_and_axe.snapshot import SnapshotError, from_snapshot, to_snapshot
from engine.fire_and_axe.state import GameState, Step
from tests.fire_and_axe.fae_support import K, rig, scenario, seats

ROOT = Path(__file__).resolve().parents[2]


def play(
    players: int, seed: int, limit: int, timing: str = "own_turn"
) -> tuple[GameState, list[tuple[int, Action]]]:
    s = RULES.new_game(RULES.options(players, seed, {"rune_timing": timing}))
    rnd = random.Random(seed * 31 + players)
    log = []
    while RULES.result(s) is None and len(log) < limit:
        who = flow.awaiting(s)[0]
        moves = flow.legal_actions(s, who)
        move = moves[rnd.randrange(len(moves))]
        flow.apply_unchecked(s, who, move)
        log.append((who, move))
    return s, log


@pytest.mark.parametrize(("players", "timing"), [(2, "own_turn"), (4, "any_time"), (5, "own_turn")])
def test_replaying_the_log_gives_the_same_hash(players: int, timing: str) -> None:
    s, log = play(players, 7, 1500, timing)
    again = RULES.new_game(RULES.options(players, 7, {"rune_timing": timing}))
    for who, move in log:
        RULES.apply(again, who, RULES.action_from_code(move.code()))
    assert again.state_hash() == s.state_hash() and again.version == len(log)


def test_the_hash_is_the_same_in_another_process() -> None:
    s, log = play(3, 4, 600)
    codes = [(who, move.code()) for who, move in log]
    script = (
        "import json, sys\n"
        "from engine.fire_and_axe.rules import RULES\n"
        "s = RULES.new_game(RULES.options(3, 4, {}))\n"
        "for who, code in json.loads(sys.argv[1]):\n"
        "    RULES.apply(s, who, RULES.action_from_code(code))\n"
        "print(s.state_hash())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(codes)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == s.state_hash()


def test_the_hash_covers_the_dice_and_the_options() -> None:
    a = RULES.new_game(RULES.options(3, 4, {}))
    b = a.copy()
    b.rng.next_u64()
    assert a.state_hash() != b.state_hash()
    c = RULES.new_game(RULES.options(3, 4, {"settle_region_block": "any"}))
    d = RULES.new_game(RULES.options(3, 4, {"rune_timing": "any_time"}))
    assert len({a.state_hash(), c.state_hash(), d.state_hash()}) == 3


@pytest.mark.parametrize("limit", [0, 37, 400, 2500])
def test_snapshots_round_trip_and_continue_alike(limit: int) -> None:
    s, _ = play(4, 9, limit, "any_time")
    snap = json.loads(json.dumps(RULES.to_snapshot(s)))
    r = RULES.from_snapshot(snap)
    assert r.state_hash() == s.state_hash() and to_snapshot(r) == snap
    rnd = random.Random(5)
    for _ in range(200):
        if RULES.result(s) is not None:
            break
        who = flow.awaiting(s)[0]
        moves = flow.legal_actions(s, who)
        assert flow.legal_actions(r, who) == moves
        move = moves[rnd.randrange(len(moves))]
        flow.apply_unchecked(s, who, move)
        flow.apply_unchecked(r, who, move)
        assert r.state_hash() == s.state_hash()


def test_a_snapshot_mid_raid_keeps_the_raid() -> None:
    s = scenario(
        sagas={"spaces": ["i-caithness", "i-hebrides", "i-gardariki-trade"]},
        seats=seats({"location": "Paris", "crew": 3}),
    )
    rig(s, 1, 6)
    RULES.apply(s, 0, Action(K.RAID))
    assert s.step == Step.RAID_AGAIN
    r = from_snapshot(json.loads(json.dumps(to_snapshot(s))))
    RULES.apply(r, 0, Action(K.RAID_AGAIN))
    assert r.town[r.board.index("paris")] == 0


def test_bad_snapshots_are_refused() -> None:
    snap = to_snapshot(RULES.new_game(RULES.options(3, 4, {})))
    for key, value, message in (
        ("format", 99, "unknown snapshot format"),
        ("vp", None, "malformed snapshot"),
        ("town", [0], "town must have"),
        ("supply", "three", "supply must be a list"),
        ("prep", 3, "hash mismatch"),
    ):
        bad = dict(snap)
        if value is None:
            bad["seats"] = [dict(p) for p in snap["seats"]]
            del bad["seats"][0]["vp"]
        else:
            bad[key] = value
        with pytest.raises(SnapshotError, match=message):
            from_snapshot(bad)


def test_copies_share_no_list() -> None:
    s, _ = play(3, 2, 300)
    c = s.copy()
    c.seats[0].hand.append(0)
    c.seats[1].cargo[0] += 1
    c.supply[0] -= 1
    c.goods[0] = 2
    c.rune_deck.append(1)
    c.saga_spaces[0] = -1
    c.chart[3] += 1
    c.tasks_done.append(5)
    c.rng.next_u64()
    assert s.state_hash() != c.state_hash()
    assert s.state_hash() == play(3, 2, 300)[0].state_hash()


def test_the_checked_apply_refuses_and_changes_nothing() -> None:
    s, _ = play(4, 3, 250)
    before = json.dumps(to_snapshot(s), sort_keys=True)
    who = flow.awaiting(s)[0]
    legal = set(flow.legal_actions(s, who))
    other = (who + 1) % 4
    with pytest.raises(NotYourDecisionError):
        RULES.apply(s, other, next(iter(legal)))
    refused = 0
    for kind in K:
        for a in (0, 1, 2, 3, 7, 40):
            action = Action(kind, a, 0, 0)
            if action in legal:
                continue
            with pytest.raises(IllegalActionError):
                RULES.apply(s, who, action)
            refused += 1
    with pytest.raises(IllegalActionError):
        RULES.apply(s, who, (1, 2))
    assert refused > 50
    assert json.dumps(to_snapshot(s), sort_keys=True) == before


def test_nothing_applies_after_the_end() -> None:
    s = scenario(
        sagas={"spaces": [None, "i-caithness", None], "deck": []},
        seats=seats({"location": "Caithness", "crew": 3}),
    )
    rig(s, 6)
    RULES.apply(s, 0, Action(K.RAID))
    assert RULES.awaiting(s) == [] and RULES.legal_actions(s, 0) == []
    with pytest.raises(GameOverError):
        RULES.apply(s, 0, Action(K.END_TURN))


def test_refusals_say_why() -> None:
    from tests.fire_and_axe.fae_support import act, loc

    cases = [
        ({"location": "Norway", "crew": 1}, (K.LOAD_CREW,), "only in the Wintering Zone"),
        ({"location": "w-north-sea", "crew": 1}, (K.DRAW_RUNE,), "only in a Homeland"),
        (
            {"location": "Sweden", "crew": 1, "hand": ["storm"] * 2 + ["ambush"]},
            (K.DRAW_RUNE,),
            "at most 3 Runes",
        ),
        ({"location": "Norway", "crew": 1}, (K.SAIL, "kiev"), "not adjacent"),
        ({"location": "Norway", "crew": 1}, (K.TRADE, 0), "only in a port"),
        (
            {"location": "Denmark", "crew": 1, "hand": ["storm"]},
            (K.DISCARD_RUNE, "storm"),
            "in a Homeland",
        ),
        ({"crew": 1}, (K.SAIL, "norway"), "must Load and leave"),
    ]
    for spec, (kind, *args), reason in cases:
        s = scenario(seats=seats(spec))
        values = [
            loc(s, a)
            if isinstance(a, str) and kind == K.SAIL
            else s.board.rune_index(a)
            if isinstance(a, str)
            else a
            for a in args
        ]
        with pytest.raises(IllegalActionError, match=reason):
            act(s, kind, *values)
    s = scenario(days={"sailing": 7}, seats=seats({"location": "Norway", "crew": 1}))
    with pytest.raises(
        IllegalActionError, match=r"seat 0 cannot sail -> North Sea: no Day is left"
    ):
        act(s, K.SAIL, loc(s, "w-north-sea"))
