"""Damaged stores: a clear error naming the game and the problem, never a silent loss.

A damaged game is kept out of service (DATA_LOSS) while the others are served; a store that
cannot be read at all stops the server from starting (exit status 3, the file named).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import grpc
import grpc.aio
import pytest
from durable_support import create_game, join_all, play, rechain, start, stub_for

from bench.durability_bench import populate
from engine.blood_rage.snapshot import FORMAT
from server.main import EXIT_STORE_ERROR
from server.ops.logs import configure_logging
from server.stores.contract import StoreError
from server.stores.sqlite import SqliteStore
from yggdrasil.v1 import game_service_pb2 as gs

ROOT = Path(__file__).resolve().parents[2]
Games = list[tuple[str, str, list[str]]]
TRIALS = int(os.environ.get("YGGDRASIL_SCRIBBLE_TRIALS", "16"))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Games]:
    """A store of 12 unfinished 3-player games, 14 decisions each, snapshots every 5."""
    path = tmp_path_factory.mktemp("template") / "games.sqlite3"
    games = asyncio.run(populate(path, 12, 14, snapshot_every=5, seed=3))
    return path, games


def _copy(template: tuple[Path, Games], tmp_path: Path) -> tuple[Path, Games]:
    shutil.copy(template[0], tmp_path / "games.sqlite3")
    return tmp_path / "games.sqlite3", template[1]


def _sql(path: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    conn = sqlite3.connect(path)
    for sql, args in statements:
        conn.execute(sql, args)
    conn.commit()
    conn.close()


async def _restart(tmp_path: Path) -> tuple[object, list[dict[str, object]]]:
    """Start a server on the damaged store; returns it and the ERROR log lines."""
    buffer = io.StringIO()
    configure_logging("ERROR", stream=buffer)
    try:
        running = await start(tmp_path)
    finally:
        configure_logging("WARNING")
    lines = [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]
    return running, lines


async def _assert_served(running, games: Games, broken: set[str]) -> None:
    """Every game but ``broken`` is served with its exact state; ``broken`` answer DATA_LOSS."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = stub_for(channel)
        for game_id, state_hash, tokens in games:
            request = gs.GetViewRequest(game_id=game_id, seat_token=tokens[0])
            if game_id in broken:
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.GetView(request)
                assert caught.value.code() == grpc.StatusCode.DATA_LOSS
                assert game_id in (caught.value.details() or "")
            else:
                assert running.games.get(game_id).state.state_hash() == state_hash
                await stub.GetView(request)


def _metric(running, name: str, **labels: str) -> float | None:
    value = running.metrics.registry.get_sample_value(name, labels)
    return None if value is None else float(value)


async def test_a_bad_state_hash_takes_only_its_game_out_of_service(
    template: tuple[Path, Games], tmp_path: Path
) -> None:
    path, games = _copy(template, tmp_path)
    bad = games[4][0]
    # Consistent damage: the last entry, the game row and the hash chain agree, the replay
    # does not.
    _sql(
        path,
        ("UPDATE actions SET state_hash = 'ab' || substr(state_hash, 3) "
         "WHERE game_id = ? AND version = 13", (bad,)),
        ("UPDATE games SET last_hash = 'ab' || substr(last_hash, 3) WHERE game_id = ?", (bad,)),
    )  # fmt: skip
    rechain(path, bad)
    running, errors = await _restart(tmp_path)
    try:
        assert running.restore.restored == len(games) - 1
        [problem] = running.restore.problems
        assert problem.game_id == bad and "state hash mismatch at version 14" in problem.problem
        assert [e["game_id"] for e in errors if e["event"] == "game_not_restored"] == [bad]
        assert "state hash mismatch" in errors[0]["problem"]
        assert _metric(running, "yggdrasil_games_unrecoverable") == 1.0
        assert _metric(running, "yggdrasil_restore_problems_total", kind="game") == 1.0
        await _assert_served(running, games, {bad})
    finally:
        await running.shutdown(0)


async def test_a_changed_decision_or_lost_log_rows_are_caught(
    template: tuple[Path, Games], tmp_path: Path
) -> None:
    path, games = _copy(template, tmp_path)
    changed, lost, gap, stale_record = (g[0] for g in games[:4])
    _sql(
        path,
        # a decision rewritten after the snapshot (the replay of the tail differs)
        ("UPDATE actions SET code = (code + 32) WHERE game_id = ? AND version = 12", (changed,)),
        # the last two decisions gone
        ("DELETE FROM actions WHERE game_id = ? AND version >= 12", (lost,)),
        # one in the middle gone
        ("DELETE FROM actions WHERE game_id = ? AND version = 7", (gap,)),
        # the game row lost its count
        ("UPDATE games SET log_length = 3 WHERE game_id = ?", (stale_record,)),
    )
    running, errors = await _restart(tmp_path)
    try:
        problems = {p.game_id: p.problem for p in running.restore.problems}
        assert set(problems) == {changed, lost, gap, stale_record}
        assert "version 12" in problems[changed] or "hash mismatch" in problems[changed]
        assert "decisions were lost" in problems[lost]
        assert "not contiguous" in problems[gap]
        assert "counts 3 logged decisions" in problems[stale_record]
        assert {e["game_id"] for e in errors} == set(problems)
        await _assert_served(running, games, set(problems))
    finally:
        await running.shutdown(0)


async def test_an_unknown_snapshot_format_is_reported_and_the_log_replayed(
    template: tuple[Path, Games], tmp_path: Path
) -> None:
    path, games = _copy(template, tmp_path)
    newer, bad_hash, garbage = (g[0] for g in games[:3])
    conn = sqlite3.connect(path)
    (data,) = conn.execute(
        "SELECT data_json FROM snapshots WHERE game_id = ?", (bad_hash,)
    ).fetchone()
    conn.close()
    snap = json.loads(data)
    snap["clans"][0]["glory"] += 3
    _sql(
        path,
        ("UPDATE snapshots SET data_json = json_set(data_json, '$.format', 99) "
         "WHERE game_id = ?", (newer,)),
        ("UPDATE snapshots SET data_json = ? WHERE game_id = ?", (json.dumps(snap), bad_hash)),
        ("UPDATE snapshots SET data_json = '{\"format\": 1, \"trunc' WHERE game_id = ?",
         (garbage,)),
    )  # fmt: skip
    running, errors = await _restart(tmp_path)
    try:
        report = running.restore
        assert report.problems == [] and report.restored == len(games)
        problems = {p.game_id: p.problem for p in report.snapshot_problems}
        assert set(problems) == {newer, bad_hash, garbage}
        assert "unknown snapshot format 99" in problems[newer]
        assert "hash mismatch" in problems[bad_hash]
        assert "unreadable snapshot" in problems[garbage]
        logged = {e["game_id"]: e for e in errors if e["event"] == "snapshot_unusable"}
        assert set(logged) == set(problems)
        assert all(e["level"] == "error" for e in logged.values())
        assert _metric(running, "yggdrasil_restore_problems_total", kind="snapshot") == 3.0
        await _assert_served(running, games, set())
        await running.games.idle()
    finally:
        await running.shutdown(0)
    # Fresh snapshots replaced the bad ones: the next start needs no full replay.
    store = SqliteStore(path)
    for game_id in (newer, bad_hash, garbage):
        stored = store.load_game(game_id)
        assert stored is not None and stored.snapshot is not None
        assert stored.snapshot["format"] == FORMAT and stored.snapshot_version == 14


def _serve(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str] | subprocess.Popen[str]:
    """Start ``python -m server`` on ``data_dir`` (and ``args``); returns the finished process
    if it exited within 20 s, else the running one (after its ready line)."""
    env = dict(os.environ, YGGDRASIL_LOG_LEVEL="ERROR")
    process = subprocess.Popen(
        [sys.executable, "-m", "server", "--port", "0", "--metrics-port", "-1",
         "--data-dir", str(data_dir), *args],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    line = process.stderr.readline()
    if "gRPC on" in line:
        return process
    out, err = process.communicate(timeout=20)
    return subprocess.CompletedProcess(process.args, process.returncode, out, line + err)


@pytest.mark.parametrize("fraction", [0.9, 0.5, 0.02])
def test_a_truncated_store_stops_the_start_with_a_clear_error(
    template: tuple[Path, Games], tmp_path: Path, fraction: float
) -> None:
    path, _ = _copy(template, tmp_path)
    with open(path, "r+b") as f:
        f.truncate(int(path.stat().st_size * fraction))
    result = _serve(tmp_path)
    assert isinstance(result, subprocess.CompletedProcess)
    assert result.returncode == EXIT_STORE_ERROR
    assert "cannot start" in result.stderr and str(path) in result.stderr
    assert "malformed" in result.stderr


def test_a_scribbled_header_stops_the_start_with_a_clear_error(
    template: tuple[Path, Games], tmp_path: Path
) -> None:
    path, _ = _copy(template, tmp_path)
    with open(path, "r+b") as f:
        f.write(b"\x00garbage" * 8)
    result = _serve(tmp_path)
    assert isinstance(result, subprocess.CompletedProcess)
    assert result.returncode == EXIT_STORE_ERROR
    assert str(path) in result.stderr and "not a database" in result.stderr


def test_a_damaged_game_does_not_stop_the_server(
    template: tuple[Path, Games], tmp_path: Path
) -> None:
    path, games = _copy(template, tmp_path)
    bad = games[7][0]
    _sql(path, ("DELETE FROM actions WHERE game_id = ? AND version = 13", (bad,)))
    process = _serve(tmp_path, "--restore", "eager")  # (lazily: found on use, test_lazy_restore)
    assert isinstance(process, subprocess.Popen)
    try:
        assert process.stderr is not None and process.stdout is not None
        summary = process.stderr.readline()
        assert f"restored {len(games) - 1} game(s)" in summary
        assert "1 game(s) out of service" in summary
        error = json.loads(process.stdout.readline())
        assert error["event"] == "game_not_restored" and error["level"] == "error"
        assert error["game_id"] == bad and "decisions were lost" in error["problem"]
    finally:
        process.kill()
        process.wait()


async def test_scribbled_bytes_are_pinned_on_games_never_lost_silently(
    template: tuple[Path, Games], tmp_path: Path
) -> None:
    """Random damage anywhere past the header: every game is either restored exactly, or
    reported by id, or the whole start fails with a clear error."""
    outcomes = {"restored all": 0, "games reported": 0, "start refused": 0}
    size = template[0].stat().st_size
    for trial in range(TRIALS):
        rng = random.Random(trial)
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        path, games = _copy(template, folder)
        with open(path, "r+b") as f:
            for _ in range(3):
                f.seek(rng.randrange(100, size - 64))
                f.write(bytes(rng.randrange(256) for _ in range(rng.choice((1, 8, 64)))))
        try:
            running = await start(folder)
        except StoreError as e:
            assert str(path) in str(e)
            outcomes["start refused"] += 1
            continue
        try:
            reported = {p.game_id for p in running.restore.problems}
            for game_id, state_hash, _ in games:
                if game_id not in reported:
                    assert running.games.get(game_id).state.state_hash() == state_hash
            outcomes["games reported" if reported else "restored all"] += 1
        finally:
            await running.shutdown(0)
    print("scribble outcomes:", outcomes)
    assert sum(outcomes.values()) == TRIALS


async def test_a_row_changed_where_the_replay_cannot_see_breaks_the_hash_chain(
    template: tuple[Path, Games], tmp_path: Path
) -> None:
    """Fields the replay does not read (an idempotency key) or only reads at the end (a state
    hash in the middle of the log) were changed unnoticed before the chain."""
    path, games = _copy(template, tmp_path)
    key_changed, hash_changed = games[5][0], games[6][0]
    _sql(
        path,
        ("UPDATE actions SET idem_key = 'forged' WHERE game_id = ? AND version = 6",
         (key_changed,)),
        ("UPDATE actions SET state_hash = '00' || substr(state_hash, 3) "
         "WHERE game_id = ? AND version = 3", (hash_changed,)),
    )  # fmt: skip
    running, errors = await _restart(tmp_path)
    try:
        problems = {p.game_id: p.problem for p in running.restore.problems}
        assert set(problems) == {key_changed, hash_changed}
        assert "hash chain breaks at version 6" in problems[key_changed]
        assert "hash chain breaks at version 3" in problems[hash_changed]
        named = {e["game_id"] for e in errors if e["event"] == "game_not_restored"}
        assert named == {key_changed, hash_changed}
        assert _metric(running, "yggdrasil_log_chain_breaks_total") == 2.0
        for game_id in (key_changed, hash_changed):
            labels = {"game_id": game_id, "why": "chain"}
            assert _metric(running, "yggdrasil_game_out_of_service", **labels) == 1.0
        await _assert_served(running, games, {key_changed, hash_changed})
    finally:
        await running.shutdown(0)


async def test_a_finished_game_with_a_broken_chain_is_data_loss_when_loaded(
    tmp_path: Path,
) -> None:

    running = await start(tmp_path, finished_game_retention_s=0)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            finished = await create_game(stub, 2, seed=21)
            await play(stub, finished, await join_all(stub, finished, 2), random.Random(2))
            intact = await create_game(stub, 2, seed=22)
            await play(stub, intact, await join_all(stub, intact, 2), random.Random(3))
    finally:
        await running.shutdown(0)
    _sql(
        tmp_path / "games.sqlite3",
        ("UPDATE actions SET by_timeout = 1 WHERE game_id = ? AND version = 10", (finished,)),
    )
    running, _ = await _restart(tmp_path)
    buffer = io.StringIO()
    configure_logging("ERROR", stream=buffer)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            await stub.GetResult(gs.GetResultRequest(game_id=intact))  # the other one loads
            for _ in range(2):  # and stays out of service
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.GetResult(gs.GetResultRequest(game_id=finished))
                assert caught.value.code() == grpc.StatusCode.DATA_LOSS
                assert "hash chain breaks at version 10" in (caught.value.details() or "")
        lines = [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]
        named = [e["game_id"] for e in lines if e["event"] == "game_not_restored"]
        assert named == [finished]  # once: the second call finds it out of service
        assert _metric(running, "yggdrasil_log_chain_breaks_total") == 1.0
        labels = {"game_id": finished, "why": "chain"}
        assert _metric(running, "yggdrasil_game_out_of_service", **labels) == 1.0
    finally:
        configure_logging("WARNING")
        await running.shutdown(0)
