"""The local seat-token file: private, per game and seat, players told apart from bots."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from clients.connection import SavedSeat, TokenStore


def test_save_and_lookup(tmp_path):
    store = TokenStore(tmp_path / "sub" / "tokens.json")
    assert store.lookup("g", None) is None
    store.save(SavedSeat("g", 0, "tok0", "h:1", "ann"))
    store.save(SavedSeat("g", 2, "tok2", "h:1", "", role="bot"))
    store.save(SavedSeat("g", 3, "tok3", "h:1", "", role="bot"))
    store.save(SavedSeat("other", 1, "tokx", "h:1", "zed"))
    assert oct(store.path.stat().st_mode & 0o777) == "0o600"
    assert oct(store.path.parent.stat().st_mode & 0o777) == "0o700"
    # Without a seat: the only player seat (bots' seats do not count).
    found = store.lookup("g", None)
    assert found is not None and (found.seat, found.token) == (0, "tok0")
    bot = store.lookup("g", 3)
    assert bot is not None and bot.role == "bot"
    assert store.lookup("g", 1) is None
    store.save(SavedSeat("g", 1, "tok1", "h:1", "bob"))
    with pytest.raises(ValueError, match="pick --seat"):
        store.lookup("g", None)
    # Saving the same seat again replaces its token.
    store.save(SavedSeat("g", 1, "new", "h:1", "bob"))
    again = store.lookup("g", 1)
    assert again is not None and again.token == "new"


def test_unreadable_file_is_a_clear_error(tmp_path):
    path = tmp_path / "tokens.json"
    path.write_text("not json")
    with pytest.raises(ValueError, match="cannot read the token file"):
        TokenStore(path).lookup("g", None)
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="not in the expected format"):
        TokenStore(path).seats("g")


def _save_seats(path: str, game_id: str, seats: list[int], start: Any) -> None:
    start.wait()
    store = TokenStore(Path(path))
    for seat in seats:
        store.save(SavedSeat(game_id, seat, f"tok{seat}", "h:1", "", role="bot"))


def test_processes_saving_at_once_lose_no_seat(tmp_path):
    # The README starts four `yggdrasil bot` processes at once on one token file: each saves
    # its seat as it joins. Unserialized, one rename took another's temporary file away (the
    # bot died) or a read-modify-write dropped a seat saved meanwhile.
    path = tmp_path / "tokens.json"
    context = multiprocessing.get_context("fork")
    start = context.Event()
    workers = [
        context.Process(target=_save_seats, args=(str(path), "g", list(range(w, 80, 8)), start))
        for w in range(8)
    ]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0] * 8
    saved = TokenStore(path).seats("g")
    assert [(s.seat, s.token) for s in saved] == [(n, f"tok{n}") for n in range(80)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tokens.json", "tokens.json.lock"]
    assert oct(path.stat().st_mode & 0o777) == "0o600"
