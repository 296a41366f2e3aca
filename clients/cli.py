"""``yggdrasil``: the command-line client of a Yggdrasil server.

Subcommands: ``create``, ``join``, ``play``, ``watch``, ``list``, ``result``, ``replay``,
``abort``, ``bot`` and ``data validate`` (a game's data file, offline); ``yggdrasil COMMAND
--help`` explains each. The server address comes from
``--server``, else ``$YGGDRASIL_SERVER``, else ``127.0.0.1:50051``.

The network code here is thin: views are drawn by the game's own terminal (its kit's
``Terminal``, found through ``clients.games``), and ``play`` reads its input from a
:class:`LineSource`, so tests can drive it with scripted lines (:class:`CallableInput`,
:class:`ScriptedInput`) instead of a terminal."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import random
import secrets
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

import grpc
import grpc.aio
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from clients.bots.base import Bot, RandomBot, View
from clients.connection import (
    API_KEY_ENV,
    SavedSeat,
    TokenStore,
    add_tls_arguments,
    connection_hint,
    default_api_key,
    default_join_code,
    default_server,
    default_token_file,
    error_text,
    follow,
    new_key,
    open_channel,
    stub_for,
    submit,
    tls_from_args,
    version_mismatch,
)
from clients.games import ClientKit, Terminal, kit, kit_for_kind, make_bot
from clients.sdk import BotClient, DecisionRefused
from engine import registry
from protocol.replay_json import dumps, replay_from_response, verify_replay
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

if TYPE_CHECKING:
    from yggdrasil.v1.game_service_pb2_grpc import GameServiceAsyncStub

__all__ = [
    "CallableInput",
    "KeyInput",
    "LineSource",
    "PlaySession",
    "ScriptedInput",
    "StreamInput",
    "amain",
    "build_parser",
    "main",
    "run_bot",
]

_STATUS_CHOICES = {
    "open": gp.GAME_STATUS_OPEN,
    "in-progress": gp.GAME_STATUS_IN_PROGRESS,
    "finished": gp.GAME_STATUS_FINISHED,
    "aborted": gp.GAME_STATUS_ABORTED,
}
_OVER = (gp.GAME_STATUS_FINISHED, gp.GAME_STATUS_ABORTED)
_RECENT_EVENTS = 5
_LOG_KEPT = 5000  # event lines ``l`` can page through
# From this far back a person who sits down (or comes back) sees what happened last.
_CATCH_UP_EVENTS = 60


class CommandError(Exception):
    """A user-facing failure (printed as ``error: ...``, exit status 1)."""


# ============================================================================================
# Input sources for `play`
# ============================================================================================


class LineSource(Protocol):
    """Where ``play`` reads the person's lines from.

    ``decision`` tells whether the seat has a decision to make; a source may hold back its
    lines until then (scripted sources do), or deliver ``r``/``q`` while waiting (a terminal
    does). ``choices`` is the number of actions offered: a source that reads keys ends a
    number as soon as no further digit could make another choice (``5`` of 8), without
    Enter. The call may be cancelled at any time. ``None`` means end of input (quit).
    """

    async def readline(self, prompt: str, *, decision: bool, choices: int = 0) -> str | None: ...


async def _forever() -> None:
    await asyncio.Event().wait()


class CallableInput:
    """Lines from a callable such as ``input`` or a test script, asked only for decisions.

    The callable gets the prompt; raising ``EOFError`` or ``StopIteration`` ends the input.
    ``threaded`` runs it in a worker thread (needed for blocking callables like ``input``).
    """

    def __init__(self, ask: Callable[[str], str], *, threaded: bool = False) -> None:
        self.ask = ask
        self.threaded = threaded

    async def readline(self, prompt: str, *, decision: bool, choices: int = 0) -> str | None:
        if not decision:
            await _forever()
        try:
            if self.threaded:
                return await asyncio.to_thread(self.ask, prompt)
            return self.ask(prompt)
        except (EOFError, StopIteration):
            return None


class ScriptedInput(CallableInput):
    """A fixed list of lines, one per decision; then end of input. ``prompts`` records what
    was asked."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = deque(lines)
        self.prompts: list[str] = []
        super().__init__(self._next)

    def _next(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.popleft()


class StreamInput:
    """Lines from a text stream (stdin), read by a daemon thread so that the game can be
    redrawn while the person types. Lines typed while waiting are delivered too."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self._queue: asyncio.Queue[str | None] | None = None

    def _start(self) -> asyncio.Queue[str | None]:
        if self._queue is None:
            queue: asyncio.Queue[str | None] = asyncio.Queue()
            loop = asyncio.get_running_loop()

            def pump() -> None:
                for line in self.stream:
                    loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\r\n"))
                loop.call_soon_threadsafe(queue.put_nowait, None)

            threading.Thread(target=pump, name="yggdrasil-stdin", daemon=True).start()
            self._queue = queue
        return self._queue

    async def readline(self, prompt: str, *, decision: bool, choices: int = 0) -> str | None:
        return await self._start().get()


# Keys that are a whole command at once (the others wait for Enter).
_COMMAND_KEYS = frozenset("mclrhqbf")


def complete(typed: str, choices: int) -> bool:
    """Whether ``typed`` is a whole answer without Enter: a command key, or a number that no
    further digit could turn into another legal choice (``5`` of 8; ``1`` of 12 waits)."""
    if typed in _COMMAND_KEYS:
        return True
    if typed.isdigit() and choices > 0:
        return int(typed) * 10 > choices
    return False


class KeyInput:
    """Keys from a terminal (or any stream of characters), read one at a time: a number or a
    command key is taken as soon as it is whole (:func:`complete`), Enter ends anything
    else, Backspace takes back a character. A terminal is put in cbreak mode while the game
    is played (``with`` the input), so keys arrive unbuffered; the typed characters are
    echoed after the prompt."""

    def __init__(self, stream: IO[str], echo: Callable[[str], None] | None = None) -> None:
        self.stream = stream
        self.echo = echo
        self._queue: asyncio.Queue[str | None] | None = None
        self._saved: Any = None

    def __enter__(self) -> KeyInput:
        try:
            import termios
            import tty

            fd = self.stream.fileno()
            if os.isatty(fd):
                self._saved = termios.tcgetattr(fd)
                tty.setcbreak(fd)
        except (ImportError, OSError, ValueError, io.UnsupportedOperation):
            self._saved = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(self.stream.fileno(), termios.TCSADRAIN, self._saved)
            self._saved = None

    def _start(self) -> asyncio.Queue[str | None]:
        if self._queue is None:
            queue: asyncio.Queue[str | None] = asyncio.Queue()
            loop = asyncio.get_running_loop()

            def pump() -> None:
                while True:
                    key = self.stream.read(1)
                    loop.call_soon_threadsafe(queue.put_nowait, key or None)
                    if not key:
                        return

            threading.Thread(target=pump, name="yggdrasil-keys", daemon=True).start()
            self._queue = queue
        return self._queue

    def _show(self, text: str) -> None:
        if self.echo is not None:
            self.echo(text)

    async def readline(self, prompt: str, *, decision: bool, choices: int = 0) -> str | None:
        queue = self._start()
        typed = ""
        escape = ""  # an escape sequence under way (an arrow key: ESC [ A): ignored
        while True:
            key = await queue.get()
            if key is None:
                return typed or None
            if escape == "\x1b" and key not in "[O":
                escape = ""  # a lone Escape: the key after it counts
            elif key == "\x1b" or escape:
                escape += key
                if len(escape) > 2 and (key.isalpha() or key == "~"):
                    escape = ""
                continue
            if key in "\r\n":
                self._show("\n")
                return typed
            if key in "\x7f\b":
                if typed:
                    typed = typed[:-1]
                    self._show("\b \b")
                continue
            if key == "\x04":  # Ctrl-D
                return None
            if not key.isprintable():
                continue
            typed += key
            self._show(key)
            if complete(typed.lower(), choices if decision else 0):
                self._show("\n")
                return typed


# ============================================================================================
# play
# ============================================================================================


def _choices_key(view: gp.View) -> list[bytes]:
    return [a.action.SerializeToString(deterministic=True) for a in view.legal_actions]


def _order(view: gp.View) -> tuple[int, int]:
    return (view.state_version, view.last_sequence)


_HELP = (
    "Type the number of an action to take it. Other commands: m = more actions, l = the "
    "event log, c = texts of your cards, r = refresh, h = help, q = quit."
)


class PlaySession:
    """One person playing one seat: draw the view, read a line, submit, follow the game.

    The session keeps the newest view it has heard of (from WatchGame, GetView or a submit
    answer) and the view it last drew. A number typed refers to the drawn view; if the game
    has moved on since, the choice is sent on the newest version only when the seat's legal
    actions are still exactly the same (others committing in a simultaneous step); otherwise
    the new position is drawn and the person is asked again.

    The game's own terminal (``clients.games.Terminal``) draws it. On a terminal (or with
    ``height``) the game is fitted to the screen: a compact layout when it is small, the
    actions a page at a time if need be (``m`` turns the page).
    """

    def __init__(
        self,
        stub: GameServiceAsyncStub,
        game_id: str,
        token: str,
        source: LineSource,
        console: Console,
        terminal: Terminal,
        catalog: Any,
        *,
        clear: bool | None = None,
        height: int | None = None,
    ) -> None:
        self.stub = stub
        self.game_id = game_id
        self.token = token
        self.source = source
        self.console = console
        self.terminal = terminal
        self.catalog = catalog
        self.clear = console.is_terminal if clear is None else clear
        # Rows to fit the game into (None: no limit, as when the output is not a terminal).
        self.height = (
            height if height is not None else (console.height if console.is_terminal else None)
        )
        self.page = 0  # the page of actions shown (compact layout)
        self.pages = 1
        self.helping = False  # the help screen is shown instead of the game
        self.view = gp.View()
        self.shown: gp.View | None = None
        self.event_log: dict[int, str] = {}  # sequence → description (the newest _LOG_KEPT)
        self.raw_log: dict[int, gp.Event] = {}  # the same events (a line may need those before)
        # The events since the seat's last decision: the game sums up the battles, quests and
        # Ragnarök among them until the next one (they must not scroll away unseen).
        self.story_from = 0
        self.log_changed = False
        self.log_page: int | None = None  # the page of the event log shown (l), from the end
        self.notice: str | None = None
        self.decisions = 0

    # -- state ---------------------------------------------------------------------------

    def _accept(self, view: gp.View) -> None:
        if view.game_id and _order(view) >= _order(self.view) and view != self.view:
            self.view = view

    async def _refresh(self) -> None:
        reply = await self.stub.GetView(
            gs.GetViewRequest(game_id=self.game_id, seat_token=self.token)
        )
        self._accept(reply.view)

    def _log(self, event: gp.Event) -> None:
        """Note an event (a submit answer and the watch stream carry the same events with the
        same sequence numbers, in either order)."""
        if event.sequence not in self.event_log:
            context = [
                e
                for seq, e in sorted(self.raw_log.items())[-_RECENT_EVENTS * 4 :]
                if seq < event.sequence and e.state_version == event.state_version
            ]
            self.event_log[event.sequence] = self.terminal.describe_event(
                event, self._names(), self.catalog, context
            )
            self.raw_log[event.sequence] = event
            self.log_changed = True
        if len(self.event_log) > _LOG_KEPT:
            for old in sorted(self.event_log)[:-_LOG_KEPT]:
                del self.event_log[old]
                self.raw_log.pop(old, None)

    @property
    def events(self) -> list[str]:
        """The most recent event lines (those that say something), oldest first."""
        lines = [line for _, line in sorted(self.event_log.items())[-_RECENT_EVENTS * 4 :] if line]
        return lines[-_RECENT_EVENTS:]

    @property
    def story(self) -> list[gp.Event]:
        """The events since the seat's last decision (all of them on its first screen)."""
        return [e for seq, e in sorted(self.raw_log.items()) if seq >= self.story_from]

    def _names(self) -> dict[int, str]:
        return {s.seat: s.name for s in self.view.seats}

    def draw(self) -> None:
        if self.clear:
            self.console.clear()
        if self.shown is None or _choices_key(self.view) != _choices_key(self.shown):
            self.page = 0
        if self.height is not None:
            screen = self.terminal.render_screen(
                self.view,
                self.catalog,
                width=self.console.width,
                height=self.height - 1,  # the input line
                events=self.events,
                notice=self.notice,
                page=self.page,
                story=self.story,
            )
            self.page, self.pages = screen.page, screen.pages
            self.console.print(screen.renderable)
        else:
            self.pages = 1
            self.console.print(
                self.terminal.render_view(
                    self.view,
                    self.catalog,
                    events=self.events,
                    notice=self.notice,
                    width=self.console.width,
                    story=self.story,
                )
            )
        self.helping = False
        self.log_page = None
        self.shown = self.view
        self.notice = None
        self.log_changed = False

    def _prompt(self) -> str:
        shown = self.shown
        if shown is None or not shown.legal_actions:
            return ""
        more = "m, " if self.pages > 1 else ""
        text = f"Your choice (1-{len(shown.legal_actions)}, {more}l, c, r, h, q): "
        if shown.decision_deadline_unix_ms:
            left = max(0, int(shown.decision_deadline_unix_ms / 1000 - time.time()))
            text = f"[{left}s left] " + text
        return text

    # -- the loop -------------------------------------------------------------------------

    async def run(self) -> int:
        await self._refresh()
        queue: asyncio.Queue[gs.WatchGameResponse | BaseException | None] = asyncio.Queue()
        # From some events back: a person who sits down (or comes back) sees what happened
        # last, the last battle summed up (older views on the stream are not drawn: only the
        # newest counts).
        start = max(1, self.view.last_sequence + 1 - _CATCH_UP_EVENTS)
        watcher = asyncio.create_task(self._watch(queue, start))
        reading: tuple[asyncio.Task[str | None], bool] | None = None
        stream_open = await self._catch_up(queue, self.view.last_sequence)
        update: asyncio.Task[gs.WatchGameResponse | BaseException | None] = asyncio.create_task(
            queue.get()
        )
        try:
            self.draw()
            while True:
                if self.view.status in _OVER:
                    if reading is not None:
                        reading[0].cancel()
                    await self._game_over()
                    return 0
                decision = self._deciding()
                if reading is None or reading[1] != decision:
                    if reading is not None:
                        reading[0].cancel()
                    prompt = self._say_prompt(decision)
                    choices = len(self.shown.legal_actions) if self.shown is not None else 0
                    reading = (
                        asyncio.create_task(
                            self.source.readline(prompt, decision=decision, choices=choices)
                        ),
                        decision,
                    )
                waits: set[asyncio.Task[object]] = {reading[0]}
                if stream_open:
                    waits.add(update)
                done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if update in done:
                    stream_open = self._take(update.result(), queue)
                    if stream_open:
                        update = asyncio.create_task(queue.get())
                    elif self.view.status not in _OVER:
                        await self._refresh()
                        if self.view.status not in _OVER:
                            raise CommandError("the server keeps ending the game stream")
                    if self._needs_redraw():
                        self.draw()
                        reading = self._reprompt(reading)
                if reading is not None and reading[0] in done:
                    line = reading[0].result()
                    reading = None
                    if line is None or not await self._command(line.strip()):
                        return 0
        finally:
            for task in (watcher, update, reading[0] if reading else None):
                if task is not None:
                    task.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await watcher

    async def _catch_up(
        self,
        queue: asyncio.Queue[gs.WatchGameResponse | BaseException | None],
        sequence: int,
        timeout_s: float = 1.0,
    ) -> bool:
        """Take the stream's messages until event ``sequence`` is in the log (so that the
        first screen shows the recent events), for ``timeout_s`` at most; False if the
        stream ended meanwhile."""
        try:
            async with asyncio.timeout(timeout_s):
                while sequence and max(self.event_log, default=0) < sequence:
                    if not self._take(await queue.get(), queue):
                        return False
        except TimeoutError:
            pass
        return True

    def _deciding(self) -> bool:
        return bool(self.shown is not None and self.shown.legal_actions)

    async def _game_over(self) -> None:
        """The result stays on screen until the person leaves: a key (Enter, q) ends the
        command; ``l`` shows the log first, ``r`` draws the game again."""
        if self.shown is not self.view:
            self.draw()
        while True:
            prompt = "The game is over (l: the log, r: draw again, Enter or q: leave): "
            self.console.print(prompt, end="", markup=False, highlight=False)
            line = await self.source.readline(prompt, decision=True)
            if line is None:
                return
            command = line.strip().lower()
            if command in ("l", "b", "f"):
                self._show_log(command)
            elif command == "r":
                self.draw()
            else:
                return

    def _show_log(self, command: str) -> None:
        """The event log a page at a time, newest page first: ``l`` opens it, ``b`` goes to
        older events, ``f`` back to newer ones."""
        lines = [f"#{seq} {line}" for seq, line in sorted(self.event_log.items()) if line]
        rows = max(3, (self.height or 40) - 3)
        pages = max(1, -(-len(lines) // rows))
        page = 0 if self.log_page is None or command == "l" else self.log_page
        if command == "b":
            page = min(page + 1, pages - 1)
        elif command == "f":
            page = max(page - 1, 0)
        end = len(lines) - page * rows
        shown = lines[max(0, end - rows) : end]
        if self.clear:
            self.console.clear()
        self.console.print(
            f"Event log: page {pages - page} of {pages} (b: older, f: newer, Enter: back)",
            style="bold",
            markup=False,
            highlight=False,
        )
        for line in shown or ["(no event yet)"]:
            self.console.print(
                line, markup=False, highlight=False, overflow="ellipsis", no_wrap=True
            )
        self.log_page = page

    def _say_prompt(self, decision: bool) -> str:
        prompt = self._prompt()
        if decision:
            self.console.print(prompt, end="", markup=False, highlight=False)
        else:
            self.console.print(
                "Waiting for the other players… (r = refresh, q = quit)", style="dim"
            )
        return prompt

    def _reprompt(
        self, reading: tuple[asyncio.Task[str | None], bool] | None
    ) -> tuple[asyncio.Task[str | None], bool] | None:
        """After a redraw, keep a pending read of the right kind (its source may already hold
        a typed line) and say the prompt again; a read of the wrong kind is cancelled (the
        loop starts a new one)."""
        if reading is None or reading[0].done():
            return reading
        if reading[1] == self._deciding():
            self._say_prompt(reading[1])
            return reading
        reading[0].cancel()
        return None

    async def _watch(
        self, queue: asyncio.Queue[gs.WatchGameResponse | BaseException | None], start: int
    ) -> None:
        try:
            async for message in follow(
                self.stub, self.game_id, seat_token=self.token, from_sequence=start
            ):
                queue.put_nowait(message)
        except grpc.aio.AioRpcError as error:
            queue.put_nowait(error)
        finally:
            queue.put_nowait(None)

    def _take(
        self,
        first: gs.WatchGameResponse | BaseException | None,
        queue: asyncio.Queue[gs.WatchGameResponse | BaseException | None],
    ) -> bool:
        """Apply every queued watch message; False once the stream has ended."""
        item = first
        while True:
            if item is None:
                return False
            if isinstance(item, BaseException):
                raise item
            if item.HasField("event"):
                self._log(item.event)
            if item.HasField("view"):
                self._accept(item.view)
            try:
                item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return True

    def _needs_redraw(self) -> bool:
        shown = self.shown
        if shown is None:
            return False
        if self.view is shown:
            return self.log_changed and not shown.legal_actions
        if self.view.status != shown.status:
            return True
        if shown.legal_actions:
            # Mid-decision: redraw only if the choices changed (keep the menu steady while
            # the others commit in a simultaneous step).
            return _choices_key(self.view) != _choices_key(shown)
        return True

    async def _command(self, line: str) -> bool:
        """Handle one typed line; False to quit."""
        lowered = line.lower()
        if lowered in ("q", "quit", "exit"):
            return False
        if self.helping:
            self.draw()  # any line leaves the help screen
            if not lowered:
                return True
        if self.log_page is not None and lowered in ("b", "f", "l"):
            self._show_log(lowered)
        elif lowered in ("l", "log"):
            self._show_log("l")
        elif self.log_page is not None and not lowered:
            self.draw()  # Enter leaves the log
        elif lowered in ("r", "refresh"):
            await self._refresh()
            self.draw()
        elif lowered in ("m", "more"):
            if self.pages > 1:
                self.page += 1
                self.draw()
            else:
                self.console.print("Every action is shown already.")
        elif lowered in ("h", "help", "?"):
            if self.clear:
                self.console.clear()
            self.console.print(self.terminal.help_screen())
            self.console.print("Enter: back to the game.", style="dim")
            self.helping = True
        elif lowered in ("c", "cards"):
            cards = self.terminal.own_cards(self.view, self.catalog)
            if cards is None:
                self.console.print("You hold no cards.")
            else:
                if self.clear:
                    self.console.clear()
                self.console.print(cards)
                self.console.print("Enter: back to the game.", style="dim")
                self.helping = True
        elif lowered.isdigit():
            await self._choose(int(lowered))
        elif line:
            self.console.print(f"Unknown command {line!r}. {_HELP}", markup=False)
        return True

    async def _choose(self, number: int) -> None:
        shown = self.shown
        if shown is None or not shown.legal_actions:
            self.console.print("It is not your decision now.")
            return
        if not 1 <= number <= len(shown.legal_actions):
            self.console.print(f"There is no action {number}: type 1-{len(shown.legal_actions)}.")
            return
        chosen = shown.legal_actions[number - 1]
        target = self.view
        if target.state_version != shown.state_version and _choices_key(target) != _choices_key(
            shown
        ):
            self.notice = "The game moved on before your choice was sent: choose again."
            self.draw()
            return
        for _attempt in range(3):
            index = _choices_key(target).index(_choices_key(shown)[number - 1])
            request = gs.SubmitActionRequest(
                game_id=self.game_id,
                seat_token=self.token,
                legal_index=index,
                state_version=target.state_version,
                idempotency_key=new_key(),
                include_view=True,
            )
            try:
                reply = await submit(self.stub, request)
            except grpc.aio.AioRpcError as error:
                code = error.code()
                if code == grpc.StatusCode.INVALID_ARGUMENT:
                    self.notice = f"The server refused that: {error.details()}"
                    self.draw()
                    return
                if code != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                mismatch = version_mismatch(error)
                await self._refresh()
                stale = (
                    mismatch is None or mismatch.reason == gp.VersionMismatch.REASON_STALE_VERSION
                )
                if (
                    stale
                    and self.view.legal_actions
                    and _choices_key(self.view) == _choices_key(shown)
                ):
                    target = self.view  # same choices on a newer version: send it there
                    continue
                reasons: dict[int, str] = {
                    gp.VersionMismatch.REASON_STALE_VERSION: "the game moved on",
                    gp.VersionMismatch.REASON_NOT_AWAITED: "it is not your decision",
                    gp.VersionMismatch.REASON_NOT_IN_PROGRESS: "the game is not in progress",
                }
                why = reasons.get(mismatch.reason if mismatch else 0, error.details() or "refused")
                self.notice = f"Not applied ({why}): here is the current position."
                self.draw()
                return
            self.decisions += 1
            # What happened before this decision is known now: the summary starts again
            # from it (its own battle, for one, is what the next screen sums up).
            self.story_from = shown.last_sequence + 1
            for event in reply.events:
                self._log(event)
            self._accept(reply.view)
            self.notice = f"You chose: {chosen.label}"
            self.draw()
            return
        self.notice = "The game keeps moving; choose again."
        self.draw()


# ============================================================================================
# bot
# ============================================================================================


class _CliBot:
    """``yggdrasil bot``'s player: one of the SDK's bots (``--strategy``), optionally slowed
    down and narrated."""

    def __init__(
        self,
        bot: Bot,
        console: Console | None,
        delay_s: float,
        verbose: bool,
        terminal: Terminal | None = None,
    ) -> None:
        self.bot = bot
        self.terminal = terminal
        self.name = bot.name
        self.wants_state = bool(getattr(bot, "wants_state", True))
        self.console = console
        self.delay_s = delay_s
        self.verbose = verbose

    def choose(self, view: View, rng: random.Random) -> int:
        index = self.bot.choose(view, rng)
        if self.delay_s:
            time.sleep(self.delay_s)  # (the SDK runs choose in a thread)
        if self.verbose and self.console is not None:
            label = view["legal_actions"][index]["label"]
            seat = int(view["viewer"])
            who = self.terminal.seat_name(seat) if self.terminal is not None else f"seat {seat}"
            self.console.print(f"{who} v{view['version']}: {label}", markup=False)
        return index


async def run_bot(
    stub: GameServiceAsyncStub,
    game_id: str,
    token: str,
    *,
    rng: random.Random,
    bot: Bot | None = None,
    console: Console | None = None,
    delay_s: float = 0.0,
    verbose: bool = False,
    terminal: Terminal | None = None,
) -> int:
    """Play a seat with ``bot`` (uniformly random if None) until the game ends, over one
    PlaySession stream on ``stub``'s channel (the SDK's client: resumed after a dropped
    stream, unanswered decisions resent with their keys); returns the number of decisions
    applied."""
    client = BotClient(
        "",
        game_id,
        _CliBot(bot or RandomBot(), console, delay_s, verbose, terminal),
        token=token,
        rng=rng,
        stub=stub,
    )
    result = await client.run()
    return result.decisions


# ============================================================================================
# Commands
# ============================================================================================


class _Context:
    def __init__(
        self,
        args: argparse.Namespace,
        stub: GameServiceAsyncStub,
        out: Console,
        err: Console,
        source: LineSource | None,
    ) -> None:
        self.args = args
        self.stub = stub
        self.out = out
        self.err = err
        self.source = source

    @property
    def tokens(self) -> TokenStore:
        path = self.args.token_file
        return TokenStore(Path(path) if path else default_token_file())

    async def kit(self, game_id: str) -> ClientKit:
        """The client kit of the game ``game_id`` hosts (from its kind in a spectator's view);
        CommandError if this client does not know the game."""
        request = gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator())
        reply = await self.stub.GetView(request)
        try:
            return kit_for_kind(reply.view.kind)
        except KeyError:
            raise CommandError(
                f"game {game_id} is of a kind this client does not know ({reply.view.kind})"
            ) from None

    async def catalog(self, game: ClientKit) -> Any:
        kind = registry.entry(game.name).kind
        try:
            reply = await self.stub.GetCatalog(gs.GetCatalogRequest(kind=kind))  # type: ignore[arg-type]
        except grpc.aio.AioRpcError:
            return game.terminal.catalog(None)  # names fall back on the enums and ids
        return game.terminal.catalog(reply)

    async def join(
        self, game_id: str, seat: int | None, name: str, role: str = "player"
    ) -> SavedSeat:
        # A token of our own makes the join safe to resend (the channel resends it after a
        # transient end: the same seat back, never a second one).
        code = getattr(self.args, "code", None) or default_join_code()
        request = gs.JoinGameRequest(
            game_id=game_id,
            player_name=name,
            seat_token=secrets.token_urlsafe(32),
            join_code=code,
        )
        if seat is not None:
            request.seat = seat
        reply = await self.stub.JoinGame(request)
        saved = SavedSeat(game_id, reply.seat, reply.seat_token, self.args.server, name, role)
        self.tokens.save(saved)
        return saved

    async def seat_token(self, *, role: str) -> tuple[str, int | None]:
        """The token to play with: --token; else the saved token of --seat; else, for a
        player, the only player seat saved for the game; else a newly joined seat (a bot
        without --seat always joins a free seat)."""
        args = self.args
        if args.token:
            return args.token, args.seat
        if args.seat is not None or role == "player":
            try:
                saved = self.tokens.lookup(args.game, args.seat, role)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
            if saved is not None:
                return saved.token, saved.seat
        joined = await self.join(args.game, args.seat, args.name or "", role)
        seat_name = (await self.kit(args.game)).terminal.seat_name(joined.seat)
        self.err.print(
            f"Joined game {args.game} as seat {joined.seat} ({seat_name}); "
            f"token saved to {self.tokens.path}",
            markup=False,
            highlight=False,
        )
        return joined.token, joined.seat


def _reservation(text: str) -> tuple[int, str]:
    seat, sep, name = text.partition("=")
    if not sep or not seat.strip().isdigit() or not name.strip():
        raise argparse.ArgumentTypeError(f"expected SEAT=KEY_NAME, got {text!r}")
    return int(seat), name.strip()


def _names_list(text: str) -> list[str]:
    return [n.strip() for n in text.split(",")]


async def _cmd_create(ctx: _Context) -> int:
    a = ctx.args
    options = gp.GameOptions(player_count=a.players, decision_time_limit_ms=a.time_limit_ms)
    if a.seed is not None:
        options.seed = a.seed
    if a.names:
        options.seat_names.extend(_names_list(a.names))
    kit(a.game).create_options(a, options)
    access = gs.GameAccess(unlisted=a.unlisted)
    for seat, name in a.reserve:
        access.reservations.add(seat=seat, api_key_name=name)
    for seat in a.invite:
        access.reservations.add(seat=seat, join_code=True)
    reply = await ctx.stub.CreateGame(gs.CreateGameRequest(options=options, access=access))
    if reply.creator_token:  # what proves this creator to AbortGame (`yggdrasil abort`)
        ctx.tokens.save_creator_token(reply.game_id, reply.creator_token)
    ctx.out.print(reply.game_id, markup=False, highlight=False, soft_wrap=True)
    # (the invitations go to standard error: GAME=$(yggdrasil create ...) keeps the id alone)
    for code in reply.join_codes:
        ctx.err.print(
            f"seat {code.seat}: join code {code.join_code} "
            f"(the player runs: yggdrasil join {reply.game_id} --code {code.join_code})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if a.seed is not None and not reply.game.seed_chosen:
        ctx.err.print(
            "note: the server mixed --seed with its own randomness (only admin and tournament "
            "API keys choose a game's seed); the seed it played with comes with its replay",
            markup=False,
            highlight=False,
        )
    return 0


async def _cmd_join(ctx: _Context) -> int:
    a = ctx.args
    saved = await ctx.join(a.game, a.seat, a.name or "")
    seat_name = (await ctx.kit(a.game)).terminal.seat_name(saved.seat)
    ctx.out.print(f"seat: {saved.seat} ({seat_name})", markup=False, highlight=False)
    ctx.out.print(f"token: {saved.token}", markup=False, highlight=False, soft_wrap=True)
    ctx.err.print(f"token saved to {ctx.tokens.path}", markup=False, highlight=False)
    return 0


def _echo(console: Console) -> Callable[[str], None]:
    def echo(text: str) -> None:
        console.file.write(text)
        console.file.flush()

    return echo


async def _cmd_play(ctx: _Context) -> int:
    a = ctx.args
    token, _seat = await ctx.seat_token(role="player")
    game = await ctx.kit(a.game)
    catalog = await ctx.catalog(game)
    with contextlib.ExitStack() as stack:
        source = ctx.source
        if source is None and sys.stdin.isatty() and ctx.out.is_terminal:
            # Keys, not lines: a number that cannot start another choice needs no Enter.
            source = stack.enter_context(KeyInput(sys.stdin, _echo(ctx.out)))
        elif source is None:
            source = StreamInput(sys.stdin)
        session = PlaySession(ctx.stub, a.game, token, source, ctx.out, game.terminal, catalog)
        await session.run()
    if session.view.status == gp.GAME_STATUS_FINISHED:
        winners = ", ".join(game.terminal.seat_name(s) for s in session.view.result.winners)
        ctx.out.print(f"Game over. Winner(s): {winners}", markup=False)
    return 0


async def _cmd_watch(ctx: _Context) -> int:
    a = ctx.args
    game = await ctx.kit(a.game)
    terminal = game.terminal
    catalog = await ctx.catalog(game)
    out = ctx.out
    if a.once:
        reply = await ctx.stub.GetView(gs.GetViewRequest(game_id=a.game, spectator=gs.Spectator()))
        out.print(terminal.render_view(reply.view, catalog, width=out.width))
        return 0
    redraw = out.is_terminal and not a.log
    events: deque[str] = deque(maxlen=_RECENT_EVENTS)
    story: deque[gp.Event] = deque(maxlen=_CATCH_UP_EVENTS)  # the latest battles, summed up
    group: list[gp.Event] = []  # the events of the latest decision (context of the next one)
    latest: gp.View | None = None
    drawn: gp.View | None = None
    queue: asyncio.Queue[gs.WatchGameResponse | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for message in follow(ctx.stub, a.game, from_sequence=a.from_sequence):
                queue.put_nowait(message)
        finally:
            queue.put_nowait(None)

    def show(view: gp.View) -> None:
        if redraw:
            out.clear()
            screen = terminal.render_screen(
                view,
                catalog,
                width=out.width,
                height=out.height - 1,
                events=list(events),
                story=list(story),
            )
            out.print(screen.renderable)
        else:
            out.print(terminal.render_view(view, catalog, events=list(events), width=out.width))

    task = asyncio.create_task(pump())
    try:
        ended = False
        while not ended:
            item: gs.WatchGameResponse | None = await queue.get()
            batch = [item]
            while not queue.empty():
                batch.append(queue.get_nowait())
            for message in batch:
                if message is None:
                    ended = True
                    break
                if message.HasField("view"):
                    latest = message.view
                if message.HasField("event"):
                    names = {s.seat: s.name for s in latest.seats} if latest else {}
                    event = message.event
                    group = [e for e in group if e.state_version == event.state_version]
                    line = terminal.describe_event(event, names, catalog, group)
                    group.append(event)
                    story.append(event)
                    if not line:
                        continue
                    events.append(line)
                    if not redraw:
                        out.print(f"#{message.sequence} {line}", markup=False, highlight=False)
            if latest is not None and latest is not drawn and redraw:
                show(latest)
                drawn = latest
        if latest is not None and latest is not drawn and redraw:
            show(latest)
        if not redraw and not a.log and latest is not None:
            show(latest)  # not a terminal: the view once the stream ended
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return 0


_STATUS_WORDS: dict[int, str] = {
    gp.GAME_STATUS_UNSPECIFIED: "unknown",
    gp.GAME_STATUS_OPEN: "open",
    gp.GAME_STATUS_IN_PROGRESS: "in progress",
    gp.GAME_STATUS_FINISHED: "finished",
    gp.GAME_STATUS_ABORTED: "aborted",
}


def _seat_name(kind: int, seat: int) -> str:
    try:
        return kit_for_kind(kind).terminal.seat_name(seat)
    except KeyError:  # a game this client does not know
        return f"seat {seat}"


def game_list_table(games: Sequence[gp.GameSummary]) -> Table:
    """The games of ``yggdrasil list``: id, status, players and seats (named as each game names
    them: Blood Rage by clan), version."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("Game")
    table.add_column("Status")
    table.add_column("Players", justify="right")
    table.add_column("Seats")
    table.add_column("Version", justify="right")
    for g in games:
        seats = ", ".join(
            f"{_seat_name(g.kind, s.seat)}:{s.name or '-'}"
            + ("" if s.claimed else " (reserved)" if s.reserved else " (free)")
            for s in g.seats
        )
        table.add_row(
            Text(g.game_id + (" (unlisted)" if g.unlisted else "")),
            _STATUS_WORDS.get(g.status, "?"),
            str(g.options.player_count),
            Text(seats),
            str(g.state_version),
        )
    return table


async def _cmd_list(ctx: _Context) -> int:
    a = ctx.args
    games: list[gp.GameSummary] = []
    token = ""
    while True:
        reply = await ctx.stub.ListGames(
            gs.ListGamesRequest(
                status=_STATUS_CHOICES.get(a.status or "", gp.GAME_STATUS_UNSPECIFIED),
                page_token=token,
            )
        )
        games.extend(reply.games)
        token = reply.next_page_token
        if not token or len(games) >= a.limit:
            break
    games = games[: a.limit]
    if not games:
        ctx.out.print("No games.")
        return 0
    ctx.out.print(game_list_table(games))
    return 0


async def _cmd_result(ctx: _Context) -> int:
    reply = await ctx.stub.GetResult(gs.GetResultRequest(game_id=ctx.args.game))
    result = reply.result
    terminal = (await ctx.kit(ctx.args.game)).terminal
    ctx.out.print(terminal.render_result(result))
    names = {s.seat: s.name for s in result.seats}
    winners = ", ".join(
        f"{terminal.seat_name(s)} ({names[s]})" if names.get(s) else terminal.seat_name(s)
        for s in result.winners
    )
    ctx.out.print(f"Winner(s): {winners}", markup=False, highlight=False)
    return 0


async def _cmd_abort(ctx: _Context) -> int:
    """Abort a game (its creator: its key, or the creator token `create` saved; or an admin
    key): it becomes ABORTED for good."""
    reply = await ctx.stub.AbortGame(
        gs.AbortGameRequest(
            game_id=ctx.args.game,
            reason=ctx.args.reason,
            creator_token=ctx.tokens.creator_token(ctx.args.game),
        )
    )
    ctx.out.print(
        f"game {reply.game.game_id} aborted after {reply.game.state_version} decision(s)",
        markup=False,
        highlight=False,
    )
    return 0


async def _cmd_replay(ctx: _Context) -> int:
    """Write the replay in the documented JSON form (docs/replay.md); ``--verify`` also
    re-plays it with the engine and compares the final state hash and scores."""
    reply = await ctx.stub.GetReplay(gs.GetReplayRequest(game_id=ctx.args.game))
    document = replay_from_response(reply, ctx.args.game)
    text = dumps(document).rstrip("\n")
    if ctx.args.verify:
        check = verify_replay(document)
        if not check.ok:
            ctx.err.print(f"replay does NOT re-play: {check}", markup=False, highlight=False)
            return 1
        ctx.err.print(
            f"replay verified: {len(reply.steps)} decisions re-play to the recorded state",
            markup=False,
            highlight=False,
        )
    if ctx.args.out and ctx.args.out != "-":
        out = Path(ctx.args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
        ctx.err.print(
            f"replay of {ctx.args.game} ({len(reply.steps)} decisions) written to {ctx.args.out}",
            markup=False,
            highlight=False,
        )
    else:
        ctx.out.print(text, markup=False, highlight=False, soft_wrap=True)
    return 0


async def _cmd_bot(ctx: _Context) -> int:
    a = ctx.args
    game = await ctx.kit(a.game)
    try:  # before a seat is taken: a strategy this game has not got takes none
        bot = make_bot(a.strategy, game.name)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    # Without --seat a bot always takes a free seat (never the person's saved one).
    token, _seat = await ctx.seat_token(role="bot")
    rng = random.Random(a.rng_seed)
    decisions = await run_bot(
        ctx.stub,
        a.game,
        token,
        rng=rng,
        bot=bot,
        console=ctx.err,
        delay_s=a.delay_ms / 1000.0,
        verbose=a.verbose,
        terminal=game.terminal,
    )
    reply = await ctx.stub.GetView(gs.GetViewRequest(game_id=a.game, seat_token=token))
    view = reply.view
    seat = view.viewer_seat
    if view.status == gp.GAME_STATUS_FINISHED:
        mine = next((s for s in view.result.seats if s.seat == seat), None)
        outcome = ""
        if mine is not None:
            score_name = registry.rules(game.name).score_name
            outcome = f": rank {mine.rank}, {mine.score} {score_name}" + (
                ", WINNER" if mine.winner else ""
            )
        ctx.out.print(
            f"bot {game.terminal.seat_name(seat)} ({bot.name}) made {decisions} decisions; "
            f"game over{outcome}",
            markup=False,
            highlight=False,
        )
    else:
        ctx.out.print(
            f"bot {game.terminal.seat_name(seat)} ({bot.name}) stopped after {decisions} decisions",
            markup=False,
        )
    return 0


def _cmd_data(args: argparse.Namespace, out: Console, err: Console) -> int:
    """``yggdrasil data validate FILE``: the game's own check of one of its data files (Fire &
    Axe: a data pack), without a server."""
    able = [g.name for g in registry.GAMES if kit(g.name).validate_data is not None]
    game = args.game
    if game is None:
        if len(able) != 1:
            raise CommandError(f"name the game with --game ({', '.join(able)})")
        game = able[0]
    check = kit(game).validate_data
    if check is None:
        raise CommandError(
            f"{game} has no data files to validate (games that do: {', '.join(able)})"
        )
    buffer = io.StringIO()
    status = check(args.file, buffer)
    (out if status == 0 else err).print(
        buffer.getvalue().rstrip("\n"), markup=False, highlight=False, soft_wrap=True
    )
    return status


_COMMANDS = {
    "create": _cmd_create,
    "join": _cmd_join,
    "play": _cmd_play,
    "watch": _cmd_watch,
    "list": _cmd_list,
    "result": _cmd_result,
    "replay": _cmd_replay,
    "abort": _cmd_abort,
    "bot": _cmd_bot,
}


# ============================================================================================
# Arguments and entry points
# ============================================================================================


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text}")
    return value


def _strategy(text: str) -> str:
    """A strategy some registered game's bots have (which game's is checked once the game is
    known)."""
    problems = []
    for game in registry.GAMES:
        try:
            make_bot(text, game.name)
            return text
        except ValueError as exc:
            problems.append(str(exc))
    raise argparse.ArgumentTypeError(problems[0])


def _seats_help() -> str:
    """Which seat number is which, as each game names its seats (``0 Wolf, 1 Raven, ...``)."""
    parts = []
    for game in registry.GAMES:
        rules = registry.rules(game.name)
        names = ", ".join(
            f"{seat} {kit(game.name).terminal.seat_name(seat)}" for seat in range(rules.max_players)
        )
        parts.append(names if len(registry.GAMES) == 1 else f"{game.name}: {names}")
    return "; ".join(parts)


# What ``yggdrasil play --help`` lists after the options: the keys of the game screen.
_PLAY_KEYS = """\
keys while playing (on a terminal a key is taken at once; a number as soon as it can only
mean one action, so 5 of 8 needs no Enter, 1 of 12 does):
  1, 2, ...  take that action (the numbers on the screen; any page)
  m          more actions, when they do not all fit on the screen
  l          the log of every event (b: older, f: newer, Enter: back)
  c          the texts of your cards
  r          draw the game again
  h          what the columns and marks mean
  q          quit (the same command again resumes the seat)
The last battle, quest round and Ragnarök stay summed up on screen until your next decision."""


def _command(
    sub: Any, name: str, parents: list[argparse.ArgumentParser], summary: str, **more: Any
) -> argparse.ArgumentParser:
    """A subcommand whose one-line summary is also the first line of its own --help."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        parents=parents,
        help=summary,
        description=summary[:1].upper() + summary[1:] + ".",
        **more,
    )
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="yggdrasil",
        description="Command-line client of a Yggdrasil server "
        f"(games: {', '.join(g.name for g in registry.GAMES)}).",
    )
    parser.add_argument(
        "--server",
        default=default_server(),
        help="host:port of the server (default: $YGGDRASIL_SERVER or 127.0.0.1:50051)",
    )
    parser.add_argument(
        "--token-file",
        default=None,
        help="where seat tokens are saved (default: $YGGDRASIL_TOKEN_FILE or "
        "~/.yggdrasil/tokens.json)",
    )
    parser.add_argument(
        "--api-key",
        default=None,
        help=f"API key sent to the server (default: ${API_KEY_ENV}; prefer the variable, "
        "flags are visible to other users)",
    )
    # The same options are accepted after the command too (`yggdrasil list --server X`).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    common.add_argument("--token-file", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    common.add_argument("--api-key", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    add_tls_arguments(parser)
    add_tls_arguments(common, repeated=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = _command(sub, "create", [common], "create a game and print its id")
    p.add_argument(
        "--game",
        default=registry.DEFAULT,
        choices=[g.name for g in registry.GAMES],
        help=f"which game (default {registry.DEFAULT})",
    )
    p.add_argument("--players", type=int, required=True, help="number of seats")
    p.add_argument(
        "--seed",
        type=_non_negative,
        default=None,
        help="seed of the random draws: the game's with an admin or tournament API key, else "
        "mixed with the server's randomness",
    )
    p.add_argument(
        "--time-limit-ms", type=_non_negative, default=0, help="decision time limit (0 = none)"
    )
    p.add_argument("--names", default="", help="seat names, comma-separated, in seat order")
    p.add_argument(
        "--unlisted",
        action="store_true",
        help="leave the game out of other callers' `list` (its id is the invitation)",
    )
    p.add_argument(
        "--reserve",
        type=_reservation,
        action="append",
        default=[],
        metavar="SEAT=KEY_NAME",
        help="keep SEAT for the API key named KEY_NAME (repeatable)",
    )
    p.add_argument(
        "--invite",
        type=_non_negative,
        action="append",
        default=[],
        metavar="SEAT",
        help="keep SEAT behind a join code, printed for you to hand out (repeatable)",
    )
    for game in registry.GAMES:
        kit(game.name).create_arguments(p.add_argument_group(f"{game.name} options"))

    def seat_args(p: argparse.ArgumentParser, *, token: bool) -> None:
        p.add_argument("game", help="game id")
        group = p.add_mutually_exclusive_group()
        group.add_argument(
            "--seat",
            type=_non_negative,
            default=None,
            help=f"seat number, from 0 ({_seats_help()}); default: the lowest free seat",
        )
        if token:
            group.add_argument(
                "--token",
                default=None,
                help="seat token (default: the one saved when joining; prefer that: flags "
                "are visible to other users)",
            )
        p.add_argument("--name", default="", help="your display name when joining")
        p.add_argument(
            "--code",
            default=None,
            help="join code of a reserved seat you were given (default $YGGDRASIL_JOIN_CODE)",
        )

    p = _command(sub, "join", [common], "claim a seat; prints and saves its token")
    seat_args(p, token=False)

    p = _command(
        sub,
        "play",
        [common],
        "play a seat in the terminal (joins if no token is saved)",
        epilog=_PLAY_KEYS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    seat_args(p, token=True)

    p = _command(sub, "watch", [common], "spectate a game live")
    p.add_argument("game", help="game id")
    p.add_argument(
        "--from-sequence",
        type=_non_negative,
        default=0,
        help="show the events from this sequence number on (events are numbered from 1, so 1 "
        "shows every event the server still keeps; 0, the default, starts from now)",
    )
    p.add_argument("--once", action="store_true", help="print the current view and exit")
    p.add_argument(
        "--log",
        action="store_true",
        help="print the events as lines (#sequence line), and nothing else",
    )

    p = _command(sub, "list", [common], "list hosted games, newest first")
    p.add_argument(
        "--status",
        choices=sorted(_STATUS_CHOICES),
        default=None,
        help="only the games with this status (default: any)",
    )
    p.add_argument("--limit", type=_non_negative, default=100, help="at most this many games")

    p = _command(sub, "result", [common], "print a finished game's result")
    p.add_argument("game", help="game id")

    p = _command(
        sub, "abort", [common], "abort a game you created (or any game, with an admin key)"
    )
    p.add_argument("game", help="game id")
    p.add_argument("--reason", default="", help="why (shown to its watchers; 200 characters)")

    p = _command(sub, "replay", [common], "write a finished game's replay as JSON")
    p.add_argument("game", help="game id")
    p.add_argument("--out", default=None, help="output file (default: standard output)")
    p.add_argument(
        "--verify", action="store_true", help="re-play it with the engine and compare the result"
    )

    p = _command(sub, "bot", [common], "play a seat with a bot until the game ends")
    seat_args(p, token=True)
    p.add_argument(
        "--strategy",
        type=_strategy,
        default="random",
        metavar="random|heuristic|ismcts[:MS]|duct[:MS]",
        help="random: any legal action (the default); heuristic: rules of thumb, fast (every "
        "game); ismcts: searches MS milliseconds per decision (default 50); duct: the same "
        "search with secret simultaneous choices searched as such, the strongest (ismcts and "
        "duct: Blood Rage)",
    )
    p.add_argument("--rng-seed", type=int, default=None, help="seed of the bot's choices")
    p.add_argument("--delay-ms", type=_non_negative, default=0, help="pause before each move")
    p.add_argument("--verbose", "-v", action="store_true", help="print each decision")

    p = _command(sub, "data", [common], "check a game's data files, offline (no server)")
    data = p.add_subparsers(
        dest="data_command", required=True, metavar="ACTION", help="validate: check a file"
    )
    check = _command(
        data, "validate", [], "check a data file (Fire & Axe: a data pack), naming every problem"
    )
    check.add_argument("file", help="the file")
    check.add_argument(
        "--game",
        default=None,
        choices=[g.name for g in registry.GAMES],
        help="whose data (default: the only game that has data files)",
    )
    return parser


async def amain(
    argv: Sequence[str] | None = None,
    *,
    out: Console | None = None,
    err: Console | None = None,
    source: LineSource | None = None,
) -> int:
    """Run one command; ``out``/``err`` and the input ``source`` can be injected."""
    args = build_parser().parse_args(argv)
    out = out if out is not None else Console(highlight=False)
    err = err if err is not None else Console(stderr=True, highlight=False)
    if args.command == "data":  # offline: no server
        try:
            return _cmd_data(args, out, err)
        except CommandError as exc:
            err.print(Text(f"error: {exc}", style="red"))
            return 1
    tls = tls_from_args(args)
    try:
        api_key = args.api_key if args.api_key is not None else default_api_key()
        async with open_channel(args.server, api_key=api_key, tls=tls) as channel:
            ctx = _Context(args, stub_for(channel), out, err, source)
            return await _COMMANDS[args.command](ctx)
    except grpc.aio.AioRpcError as error:
        message = error_text(error)
        if error.code() == grpc.StatusCode.UNAVAILABLE:
            message = f"cannot reach the server at {args.server} ({message})"
            hint = connection_hint(error, tls is not None)
            if hint:
                message += f": {hint}"
        err.print(Text(f"error: {message}", style="red"))
        return 1
    except (CommandError, DecisionRefused, ValueError, OSError) as exc:
        err.print(Text(f"error: {exc}", style="red"))
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return asyncio.run(amain(argv))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
