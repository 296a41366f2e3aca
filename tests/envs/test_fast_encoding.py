"""Blood Rage's C encoder and action mask (envs/blood_rage/_fast.c) against their definition in
Python: the same tensor bit for bit and the same indices, in every kind of position random
games reach; bad input raises and writes nothing outside the buffer; and without the C module
the environments run the Python code and give the same observations."""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import subprocess
import sysconfig
from array import array
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from engine import registry
from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.battle import STAGES
from engine.blood_rage.ids import NUM_AREAS, NUM_FIGS, NUM_UNITS, DraftMode, Phase, Step
from engine.blood_rage.state import GameState, Prompt, PromptKind
from envs.aec import env
from envs.blood_rage import encoding
from envs.blood_rage.encoding import _COMPARE_STAGE, ENCODING, PROVINCES, TOKENS
from envs.games import spec

RULES = registry.rules("blood_rage")
AREA_PROMPTS = {PromptKind.SUCCOR, PromptKind.BLESSING, PromptKind.THORS_DOMAIN}


def _can_compile(where: Path) -> bool:
    """Whether this Python could build an extension here: its compiler (``CC`` first, as the
    build reads it) takes a file that includes its headers."""
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    if shutil.which(compiler[0]) is None:
        return False
    source = where / "probe.c"
    source.write_text("#include <Python.h>\nint probe(void) { return 0; }\n")
    include = sysconfig.get_paths()["include"]
    done = subprocess.run(
        [*compiler, "-fsyntax-only", "-I", include, str(source)], capture_output=True, check=False
    )
    return done.returncode == 0


def test_the_install_built_the_c_encoder_wherever_it_could(tmp_path: Path) -> None:
    """The build marks the extension optional (a machine without a C compiler still
    installs, and runs the Python encoder); where one is, as in CI, it must have been built,
    or a broken C file would pass unseen behind the fallback."""
    if _can_compile(tmp_path):
        assert encoding._fast is not None
        assert ENCODING.compiled
    state = next(_random_game(4, 1))
    assert ENCODING.encode(state, 2).tobytes() == ENCODING.encode_reference(state, 2).tobytes()


def _random_game(players: int, seed: int) -> Iterator[GameState]:
    state = RULES.new_game(RULES.options(players, seed, {}))
    rng = random.Random(seed)
    while True:
        yield state
        waiting = RULES.awaiting(state)
        if not waiting:
            return
        seat = waiting[rng.randrange(len(waiting))]
        legal = RULES.legal_actions(state, seat)
        RULES.apply_unchecked(state, seat, legal[rng.randrange(len(legal))])


def _kinds(state: GameState) -> set[str]:
    """What a position exercises of the encoder, for the coverage check."""
    out = set()
    if state.prompts:
        kind = state.prompts[0].kind
        out.add(PromptKind(kind).name if kind not in AREA_PROMPTS else "area prompt")
    if state.march is not None and state.march_moved:
        out.add("march with figures moved")
    b = state.battle
    if b is not None:
        out.add("battle shown" if b.stage > _COMPARE_STAGE else "battle hidden")
        if not b.revealed and any(c >= 0 for c in b.choice):
            out.add("battle card chosen")
    if RULES.result(state) is not None:
        out.add("game over")
    if state.picks and any(0 < p < 2 for p in state.picks) and state.players == 2:
        out.add("draft pick pending")
    if any(k >= 0 for k in state.keep):
        out.add("card kept")
    if any(c.kept >= 0 for c in state.clans):
        out.add("card kept from the last Age")
    if any(state.destroyed):
        out.add("province destroyed")
    return out


def _same(state: GameState, seat: int) -> None:
    fast = ENCODING.encode(state, seat)
    reference = ENCODING.encode_reference(state, seat)
    assert fast.dtype == reference.dtype == np.float32
    assert fast.tobytes() == reference.tobytes(), (
        seat,
        state.version,
        np.flatnonzero(fast != reference)[:12].tolist(),
    )
    # What the environments do: pass the awaited seats they already asked the rules for.
    assert ENCODING.encode(state, seat, RULES.awaiting(state)).tobytes() == fast.tobytes()


def test_the_c_encoder_writes_the_reference_tensor_in_every_kind_of_position() -> None:
    seen: Counter[str] = Counter()
    compared = 0
    for players in (2, 3, 4, 5):
        for seed in range(6):
            for state in _random_game(players, 100 * players + seed):
                seen.update(_kinds(state))
                for seat in range(players):
                    _same(state, seat)
                    compared += 1
    assert compared > 10_000
    wanted = {
        "FREE_INVADE",
        "PROTECT",
        "RAISE_STAT",
        "LATE_CARD",
        "area prompt",
        "march with figures moved",
        "battle shown",
        "battle hidden",
        "battle card chosen",
        "game over",
        "draft pick pending",
        "card kept",
        "card kept from the last Age",
        "province destroyed",
    }
    assert wanted <= set(seen), f"not reached: {sorted(wanted - set(seen))}"


@pytest.mark.parametrize("players", [2, 4, 5])
def test_the_c_encoder_reads_the_redacted_state_of_a_view_as_python_does(players: int) -> None:
    """A bot's view blanks other seats' cards and marks their secret choices (-3): the C
    encoder reads those states too (the remote environment encodes them)."""
    g = spec("blood_rage")
    hidden = 0
    for i, state in enumerate(_random_game(players, 7 + players)):
        if i % 4:
            continue
        for seat in range(players):
            view = json.loads(json.dumps(g.rules.view(state, seat, include_state=True)))
            redacted = ENCODING.seat_state(view)
            hidden += redacted.battle is not None and -3 in redacted.battle.choice
            _same(redacted, seat)
    assert hidden > 0, "no battle with another seat's secret card was compared"


def test_the_mask_and_indices_in_c_are_the_catalogues() -> None:
    checked = 0
    for players in (2, 4, 5):
        for state in _random_game(players, 40 + players):
            for seat in RULES.awaiting(state):
                actions = RULES.legal_actions(state, seat)
                mask = bytearray(ENCODING.num_actions + 1)
                indices = ENCODING.mask_indices(actions, mask)
                python_mask = bytearray(len(mask))
                assert encoding._mask_indices(actions, python_mask) == indices
                assert python_mask == mask
                assert indices == [ENCODING.action_index(a) for a in actions]
                assert [ENCODING.action_at(i) for i in indices] == list(actions)
                assert np.flatnonzero(np.frombuffer(mask, np.int8)).tolist() == sorted(indices)
                checked += 1
    assert checked > 500


def test_an_action_outside_the_catalogue_is_a_key_error_and_a_repeat_a_runtime_error() -> None:
    size = ENCODING.num_actions + 1
    pick = Action(ActionKind.DRAFT_PICK, 5)
    for mask_indices in (ENCODING.mask_indices, encoding._mask_indices):  # C, Python
        for bad in (Action(ActionKind.DRAFT_PICK, 126), Action(99), Action(ActionKind.PASS, 1)):
            with pytest.raises(KeyError):
                mask_indices([bad], bytearray(size))
        with pytest.raises(RuntimeError, match="share the catalogue index"):
            mask_indices([pick, pick], bytearray(size))


def _a_position() -> GameState:
    for i, state in enumerate(_random_game(4, 3)):
        if i == 120:
            return state.copy()
    raise AssertionError("the game ended early")


@pytest.fixture
def fast() -> ModuleType:
    """The C module. Only a machine that cannot compile it runs without it, and there these
    tests have nothing to test (test_the_install_built_the_c_encoder_wherever_it_could holds
    every machine that can to having built it)."""
    if encoding._fast is None:
        pytest.skip("the C encoder was not built here: the install found no C compiler")
    return encoding._fast


def test_bad_input_to_the_c_encoder_raises_and_changes_nothing(fast: ModuleType) -> None:
    with pytest.raises(TypeError, match="tuple"):
        fast.indices([(1, 2)], bytearray(ENCODING.num_actions + 1))
    state = _a_position()
    size = ENCODING.layout(4).size
    waiting = RULES.awaiting(state)
    with pytest.raises(ValueError, match="the layout 6950"):
        fast.encode(array("f", bytes(4 * (size - 1))), state, 0, waiting)
    with pytest.raises(TypeError, match="float32"):
        fast.encode(array("d", bytes(8 * size)), state, 0, waiting)
    with pytest.raises(BufferError):
        fast.encode(bytes(4 * size), state, 0, waiting)  # read-only
    for seat in (-1, 4):
        with pytest.raises(ValueError, match="no seat"):
            fast.encode(array("f", bytes(4 * size)), state, seat, waiting)
    with pytest.raises(ValueError, match="awaited seat 7"):
        fast.encode(array("f", bytes(4 * size)), state, 0, [7])
    with pytest.raises(TypeError, match="awaited"):
        fast.encode(array("f", bytes(4 * size)), state, 0, None)
    before = state.state_hash()
    broken = state.copy()
    broken.age = 100_000  # an Age far past the buffer's end (the checks guard the buffer)
    x = array("f", bytes(4 * size))
    with pytest.raises(IndexError, match="entries"):
        fast.encode(x, broken, 0, waiting)
    broken = state.copy()
    broken.clans[2].loc[0] = -10_000  # a figure's location far outside the block
    with pytest.raises(IndexError, match="entries"):
        fast.encode(array("f", bytes(4 * size)), broken, 0, waiting)
    assert state.state_hash() == before
    with pytest.raises(AttributeError):
        fast.encode(array("f", bytes(4 * size)), object(), 0, waiting)


def test_without_the_c_module_the_environment_observes_and_masks_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A machine without a C compiler installs without the module: the environments then run
    the Python encoder and mask, and a learner sees the same numbers."""

    def play(seed: int) -> list[tuple[bytes, bytes]]:
        e = env("blood_rage", 3)
        e.reset(seed=seed)
        rng = random.Random(seed)
        out = []
        for _agent in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            out.append((obs["observation"].tobytes(), obs["action_mask"].tobytes()))
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
        return out

    with_c = play(5)
    monkeypatch.setattr(encoding, "_fast", None)
    assert not ENCODING.compiled
    without = play(5)
    assert len(with_c) > 100
    assert with_c == without


def _perturbed(state: GameState, rng: random.Random) -> tuple[GameState, list[int]]:
    """A copy of a position with its fields redrawn within their ranges, however unlikely
    together (states a scenario can set up, or a random game reaches once in thousands), and
    a set of awaited seats to encode it with (so no rule has to make sense of it)."""
    s = state.copy()
    p = s.players
    steps = [st for st in Step if st != Step.GAME_OVER]
    s.step = rng.choice(steps)
    s.phase = rng.choice([ph for ph in Phase if ph != Phase.GAME_OVER])
    s.age = rng.randint(1, 3)
    s.first_player, s.turn = rng.randrange(p), rng.randrange(p)
    s.destroyed = [rng.random() < 0.3 for _ in range(PROVINCES)]
    s.token = [rng.randrange(-1, TOKENS) for _ in range(PROVINCES)]
    s.pillaged = [rng.random() < 0.3 for _ in range(PROVINCES)]
    s.ragnarok = [rng.randrange(-1, PROVINCES) for _ in range(3)]
    s.draft_mode = rng.choice(list(DraftMode))
    s.picks = [rng.randrange(0, 3) for _ in range(p)]
    s.keep = [rng.choice([-2, -1, *s.clans[w].hand[:2]]) for w in range(p)]
    for c in s.clans:
        if rng.random() < 0.3:
            c.hand = []
        c.kept = rng.choice([-1, *c.hand[:1]])
        c.steps = [rng.randrange(6) for _ in range(3)]
        c.glory = rng.randrange(-20, 300)
    s.doomed = [
        (w, fig)
        for w in range(p)
        for fig in range(NUM_FIGS)
        if s.clans[w].loc[fig] < NUM_AREAS and rng.random() < 0.2
    ]
    s.prompts = []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        kind = rng.choice(list(PromptKind))
        a = {
            PromptKind.FREE_INVADE: rng.randrange(NUM_UNITS),
            PromptKind.RAISE_STAT: rng.randrange(-1, 3),
        }.get(kind, rng.randrange(NUM_AREAS) if kind in AREA_PROMPTS else 0)
        s.prompts.append(Prompt(kind, rng.randrange(p), a))
    s.march = (rng.randrange(PROVINCES), rng.randrange(PROVINCES)) if rng.random() < 0.3 else None
    s.march_moved = [rng.randrange(NUM_UNITS) for _ in range(rng.randrange(4))]
    b = s.battle
    if b is not None:
        b.stage = rng.randrange(len(STAGES))
        b.winner = rng.choice([-1, *b.participants])
        b.revealed = rng.random() < 0.5
        for w in range(p):
            hand = s.clans[w].hand
            b.choice[w] = rng.choice([-3, -2, -1, *hand[:2]]) if w in b.participants else -2
    awaited = sorted(rng.sample(range(p), rng.randint(0, p)))
    return s, awaited


def test_the_c_encoder_agrees_on_positions_redrawn_field_by_field() -> None:
    """Random games never put Ragnarok on some provinces, never leave a seat without cards
    and out of the keep, ...: redrawing the fields covers what the games do not."""
    rng = random.Random(2026)
    compared = 0
    for players in (2, 3, 4, 5):
        for i, state in enumerate(_random_game(players, 500 + players)):
            if i % 6:
                continue
            for _ in range(6):
                s, awaited = _perturbed(state, rng)
                seat = rng.randrange(players)
                fast = ENCODING.encode(s, seat, awaited)
                reference = ENCODING.encode_reference(s, seat, awaited)
                assert fast.tobytes() == reference.tobytes(), (
                    players,
                    i,
                    np.flatnonzero(fast != reference)[:12].tolist(),
                )
                compared += 1
    assert compared > 600
