"""A whole 4-player game played in the terminal at 80×24 by keys, as a person types them
(issue 29, points 6-10): seat 0 is ``yggdrasil play``'s session reading single keys
(``KeyInput``), the other seats are random bots. The test types a number for each decision
(no Enter when the number cannot start another choice), now and then opens the event log
and pages back, and at the end leaves the result screen with a key. Every screen drawn must
fit 80×24; every battle, quest round and Ragnarök of the game must have been summed up on a
screen of the player's (they stay until its next decision); the clan table shows the stats'
steps; action menus of the Action phase fit on a page or two."""

from __future__ import annotations

import asyncio
import io
import queue
import random
import re
from collections.abc import Callable

from cli_support import join_all, new_game, text_console

from clients.blood_rage.render import Catalog
from clients.blood_rage.terminal import TERMINAL
from clients.bots.base import RandomBot
from clients.cli import KeyInput, PlaySession, complete, run_bot
from protocol.blood_rage import catalog as br_catalog
from yggdrasil.v1 import game_pb2 as gp

WIDTH, HEIGHT = 80, 24
CATALOG = Catalog.from_pb(br_catalog.catalog())


class Keyboard(io.TextIOBase):
    """A stream of keys the test types (``read(1)`` blocks until one is typed)."""

    def __init__(self) -> None:
        self.keys: queue.Queue[str] = queue.Queue()

    def type(self, keys: str) -> None:
        for key in keys:
            self.keys.put(key)

    def read(self, size: int | None = -1) -> str:
        return self.keys.get()


class Player:
    """The person at the keyboard: a LineSource that, whenever the session asks, types what
    a player would (the session reads it through a KeyInput, key by key)."""

    def __init__(self, rng: random.Random, session: Callable[[], PlaySession]) -> None:
        self.keyboard = Keyboard()
        self.keys = KeyInput(self.keyboard)
        self.rng = rng
        self.session = session
        self.typed: list[str] = []
        self.plan: list[str] = []  # keys for the asks to come
        self.over_prompts = 0

    async def readline(self, prompt: str, *, decision: bool, choices: int = 0) -> str | None:
        if not decision:
            await asyncio.Event().wait()
        if prompt.startswith("The game is over"):
            self.over_prompts += 1
            self.type("l" if self.over_prompts == 1 else "\n")  # the log once, then leave
        elif self.plan:
            self.type(self.plan.pop(0))
        else:
            if self.rng.random() < 0.04:  # the log, an older page, back to the game
                self.plan = ["b", "\n"]
                self.type("l")
            else:
                number = str(self.rng.randint(1, choices))
                self.type(number if complete(number, choices) else number + "\n")
        return await self.keys.readline(prompt, decision=decision, choices=choices)

    def type(self, keys: str) -> None:
        self.typed.append(keys)
        self.keyboard.type(keys)


class RecordingSession(PlaySession):
    """Keeps every screen drawn, as text."""

    screens: list[str]
    menus: list[tuple[int, int]]  # (actions offered, pages they took)

    def draw(self) -> None:
        buffer = self.console.file
        assert isinstance(buffer, io.StringIO)
        buffer.seek(0)
        buffer.truncate()
        super().draw()
        self.screens.append(buffer.getvalue())
        self.menus.append((len(self.view.legal_actions), self.pages))

    def _show_log(self, command: str) -> None:
        buffer = self.console.file
        assert isinstance(buffer, io.StringIO)
        buffer.seek(0)
        buffer.truncate()
        super()._show_log(command)
        self.screens.append(buffer.getvalue())


def _episodes(events: list[gp.Event]) -> list[tuple[str, str]]:
    """(kind, province) of the battles, quest rounds and Ragnaröks of the game."""
    out = []
    for event in events:
        e = event.blood_rage
        kind = e.WhichOneof("kind")
        if kind == "battle_resolved":
            out.append(("battle", CATALOG.area_name(e.battle_resolved.province)))
        elif kind == "quest_results":
            out.append(("quests", ""))
        elif kind == "ragnarok":
            out.append(("ragnarok", CATALOG.area_name(e.ragnarok.province)))
    return out


async def test_a_whole_game_by_keys_at_80_by_24(stub) -> None:
    game = await new_game(stub, players=4, seed=29)
    tokens = await join_all(stub, game, players=4)
    console, _ = text_console(WIDTH)
    session: RecordingSession | None = None
    player = Player(random.Random(29), lambda: session)  # type: ignore[arg-type,return-value]
    session = RecordingSession(
        stub, game, tokens[0], player, console, TERMINAL, CATALOG, height=HEIGHT
    )
    session.screens = []
    session.menus = []
    bots = [
        asyncio.create_task(
            run_bot(stub, game, tokens[seat], rng=random.Random(seat), bot=RandomBot())
        )
        for seat in (1, 2, 3)
    ]
    try:
        assert await asyncio.wait_for(session.run(), timeout=300) == 0
    finally:
        for bot in bots:
            bot.cancel()
    assert session.view.status == gp.GAME_STATUS_FINISHED
    screens = session.screens
    assert session.decisions > 40

    # Every screen fits 80×24 (a row is left for the input line).
    for text in screens:
        lines = text.rstrip("\n").splitlines()
        assert len(lines) <= HEIGHT - 1, text
        assert all(len(line) <= WIDTH for line in lines), text

    # Numbers were taken without Enter when they could mean nothing else, with it otherwise.
    assert any(k.isdigit() for k in player.typed) and any(k.endswith("\n") for k in player.typed)
    # The log was opened and paged.
    assert any(s.startswith("Event log: page") for s in screens)

    # Every battle, quest round and Ragnarök was summed up on one of the player's screens.
    events = sorted(session.raw_log.values(), key=lambda e: e.sequence)
    shown = "\n".join(screens)
    for kind, where in _episodes(events):
        if kind == "battle":
            assert re.search(rf"⚔ {where}: .*(wins|a tie|undefended)", shown), where
        elif kind == "quests":
            assert "✦ Quests:" in shown
        else:
            assert f"☠ Ragnarök destroys {where}" in shown
    assert sum(1 for kind, _ in _episodes(events) if kind == "ragnarok") == 3

    # The stats show their steps; menus of the Action phase fit on a page or two.
    assert re.search(r"\d[¹²³⁴⁵⁶]", shown)
    busy = [(n, pages) for n, pages in session.menus if n >= 20]
    assert busy, "no long menu of the Action phase was drawn"
    assert all(pages <= 2 for n, pages in busy if n <= 32), busy

    # The result stays on screen until a key: the game-over prompt came, twice (l, then Enter).
    assert player.over_prompts == 2
    assert "Result" in screens[-2] or "Result" in screens[-1]


def test_a_number_is_whole_when_no_further_digit_could_make_a_choice() -> None:
    assert complete("5", 8) and complete("9", 9)
    assert not complete("1", 12) and complete("12", 12) and complete("2", 12)
    assert complete("m", 30) and complete("l", 0) and not complete("x", 30)
    assert not complete("3", 0)  # not deciding: a number waits for Enter


async def test_keys_are_read_one_at_a_time_with_backspace_and_enter() -> None:
    keyboard = Keyboard()
    shown: list[str] = []
    keys = KeyInput(keyboard, shown.append)
    keyboard.type("7")
    assert await keys.readline("", decision=True, choices=8) == "7"  # no Enter needed
    keyboard.type("1\x7f2\n")
    assert await keys.readline("", decision=True, choices=30) == "2"
    keyboard.type("\x1b[A13")  # an arrow key first: ignored
    assert await keys.readline("", decision=True, choices=30) == "13"
    keyboard.type("\x04")
    assert await keys.readline("", decision=True, choices=30) is None  # Ctrl-D: quit
    assert "\b \b" in shown  # the erased key is erased on screen too
