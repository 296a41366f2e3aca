"""A guard against API fields nobody fills (issue 12, point 6).

Many seeded random games are played through the server's own game objects (the conversion of
engine views, events and results into API messages, exactly as the gRPC service serves them),
every event is read as every viewer receives it, and views as every viewer sees them. Every
field of every message a client can receive (reachable from Event, View, GameResult and the
catalog), read from the descriptors, must then have been seen set to something other than its
default at least once, and every value of every enum they use (but 0, "unspecified") at least
once: a field the proto documents but nothing fills fails here, including one added tomorrow,
and so does a value nothing sends (Glory that always arrives as GLORY_REASON_OTHER).
``ALWAYS_DEFAULT`` and ``NEVER_SENT`` list, with the reason, the only exceptions.

The games seek coverage: a seat picks an action not taken before in the run (by its kind and,
for a card played, drafted or put on the sheet, the card's name) when one is legal, else a
random one. Some games have a decision time limit on a manual clock and let a few decisions
time out; a few start from a scripted position (``RARE_POSITIONS``), for offers random play
almost never reaches in a few dozen games. All of it is seeded: a run is the same every time.
If a change to the engine leaves a rare field unseen, add games or a scripted position here;
ALWAYS_DEFAULT is only for fields that cannot be filled.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterable

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from engine.blood_rage import flow
from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.cards import card_of
from engine.blood_rage.view import SPECTATOR
from protocol.blood_rage import catalog as br_catalog
from server.games.access import AccessRequest
from server.games.decision_clock import ManualClock
from server.games.game import Game
from server.games.record import GameSettings
from server.games.registry import GameRegistry
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from server.stores.memory import MemoryStore
from tests.scenario_tokens import TOKENS
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

GAMES = 24
TIME_LIMIT_MS = 1000  # on the manual clock: only the decisions the test lets run out do

# (message, field) allowed to stay at the default in every game, and why.
ALWAYS_DEFAULT: dict[tuple[str, str], str] = {
    ("yggdrasil.v1.BloodRageAction", "no_card"): (
        "never offered: a participant without cards plays none by itself (engine.blood_rage.battle)"
    ),
}

# (enum, value name) this server never sends, and why.
NEVER_SENT: dict[tuple[str, str], str] = {
    ("yggdrasil.v1.GloryReason", "GLORY_REASON_OTHER"): (
        "for reasons a later server may add; this one names every reason it reports"
    ),
    ("yggdrasil.v1.Step", "STEP_OTHER"): "for steps a later server may add",
    ("yggdrasil.v1.StatReason", "STAT_REASON_OTHER"): (
        "for reasons a later server may add; this one names every reason it reports"
    ),
}

Field = tuple[str, str]
EnumValue = tuple[str, str]

# (scenario, the labels of the first decisions, in order); the game then goes on at random.
RARE_POSITIONS: list[tuple[dict[str, object], list[str]]] = [
    (  # Frigga's Grace after a won pillage of a Horns token: a stat step, but not Horns
        {
            "players": 3,
            "age": 2,
            "phase": "action",
            "turn": 0,
            "pillage_tokens": TOKENS,
            "clans": [
                {"hand": ["friggas_grace"], "figures": {"Elvagar": ["leader"]}},
                {"figures": {"Elvagar": ["warrior"]}},
                {},
            ],
        },
        ["pillage Elvagar", "play Frigga's Grace"],
    ),
    (  # the Volur Witch loses a battle and retreats to Yggdrasil
        {
            "players": 3,
            "age": 3,
            "phase": "action",
            "turn": 0,
            "pillage_tokens": TOKENS,
            "clans": [
                {"hand": ["tyrs_crush"], "figures": {"Elvagar": ["leader", "warrior"]}},
                {"upgrades": ["volur_witch"], "figures": {"Elvagar": ["volur_witch"]}},
                {},
            ],
        },
        ["pillage Elvagar", "play Tyr's Crush", "Volur Witch: retreat"],
    ),
    (  # Loki's Trickery: the loser takes 1 Rage from the winner
        {
            "players": 3,
            "age": 1,
            "phase": "action",
            "turn": 0,
            "pillage_tokens": TOKENS,
            "clans": [
                {"hand": ["tyrs_smash"], "figures": {"Elvagar": ["leader"]}},
                {"hand": ["lokis_trickery"], "figures": {"Elvagar": ["warrior"]}},
                {},
            ],
        },
        ["pillage Elvagar", "play Tyr's Smash", "play Loki's Trickery"],
    ),
    (  # Lord of Spears: a stat step given by a card, with the card's id
        {
            "players": 3,
            "age": 3,
            "phase": "action",
            "turn": 0,
            "pillage_tokens": TOKENS,
            "clans": [{"upgrades": ["lord_of_spears"], "figures": {"Elvagar": ["leader"]}}, {}, {}],
        },
        ["pillage Elvagar"],
    ),
]


def api_fields(roots: Iterable[Descriptor]) -> set[Field]:
    """Every (message full name, field name) reachable from the roots."""
    out: set[Field] = set()
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        message = stack.pop()
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        for fd in message.fields:
            out.add((message.full_name, fd.name))
            if fd.message_type is not None:
                stack.append(fd.message_type)
    return out


def api_enum_values(roots: Iterable[Descriptor]) -> set[EnumValue]:
    """Every (enum full name, value name) but the zero value, of the enums the fields
    reachable from the roots use."""
    out: set[EnumValue] = set()
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        message = stack.pop()
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        for fd in message.fields:
            if fd.enum_type is not None:
                out |= {(fd.enum_type.full_name, v.name) for v in fd.enum_type.values if v.number}
            if fd.message_type is not None:
                stack.append(fd.message_type)
    return out


def mark_set(message: Message, found: set[Field], values: set[EnumValue] | None = None) -> None:
    """Note every field set to a non-default value in the message and its sub-messages
    (ListFields lists exactly those: scalars other than their default, present optionals
    and sub-messages, non-empty repeated fields), and every enum value sent."""
    for fd, value in message.ListFields():
        found.add((message.DESCRIPTOR.full_name, fd.name))
        items = value if fd.is_repeated else (value,)
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            for item in items:
                mark_set(item, found, values)
        elif fd.enum_type is not None and values is not None:
            for number in items:
                known = fd.enum_type.values_by_number.get(number)
                values.add((fd.enum_type.full_name, known.name if known else str(number)))


_CARD_KINDS = frozenset(
    {ActionKind.DRAFT_PICK, ActionKind.UPGRADE, ActionKind.BATTLE_CARD, ActionKind.LATE_CARD}
)


def _novelty(action: Action) -> tuple[int, str]:
    """What makes an action new to the run: its kind, and the card's name if it plays one."""
    return action[0], card_of(action[1]).key if action[0] in _CARD_KINDS else ""


class _Run:
    """Plays the games and collects what was seen."""

    def __init__(self) -> None:
        self.clock = ManualClock()
        self.registry = GameRegistry(
            MemoryStore(), Metrics(new_registry(process_collectors=False)), clock=self.clock
        )
        self.found: set[Field] = set()
        self.values: set[EnumValue] = set()
        self.taken: set[tuple[int, str]] = set()
        self.rng = random.Random(2024)

    def see(self, message: Message) -> None:
        mark_set(message, self.found, self.values)

    def see_events(self, game: Game, after: int) -> int:
        """Every event after sequence ``after``, as each seat and a spectator receive it."""
        viewers = [*range(game.state.players), SPECTATOR]
        if game.compacted and after + 1 < game.first_kept_sequence:
            # A game that is over and unwatched drops its events (server.games.compact); a watcher
            # gets them rebuilt from the log, so the guard does the same.
            assert game.recover_events(after + 1)
        for stored in game.events_from(after + 1):
            for viewer in viewers:
                self.see(stored.for_viewer(viewer))
            after = stored.sequence
        return after

    def choose(self, game: Game, seat: int) -> int:
        legal = [_novelty(a) for a in flow.legal_actions(game.state, seat)]
        fresh = [i for i, key in enumerate(legal) if key not in self.taken]
        index = fresh[0] if fresh else self.rng.randrange(len(legal))
        self.taken.add(legal[index])
        return index

    async def play(
        self, number: int, scenario: dict[str, object] | None = None, script: Iterable[str] = ()
    ) -> None:
        timed = number % 4 == 3
        settings = GameSettings(
            players=2 + number % 4,
            seed=number,
            # now and then the "first game" deal-6-keep-6 mode
            options={"draft_mode": int(number % 5 == 4)},
            decision_time_limit_ms=TIME_LIMIT_MS if timed else 0,
            # now and then a seed an admin or tournament key chose (views say by whom)
            seed_chosen_by="league" if number % 3 == 1 else "",
        )
        # now and then seat 0 is reserved for a key (SeatInfo.reserved), which takes it
        reserved = number % 3 == 1
        access = AccessRequest(key_seats={0: "player0"}) if reserved else None
        game = await self.registry.create(
            settings, json.dumps(scenario) if scenario else "", access=access
        )
        players = game.state.players
        script = list(script)
        self.see(game.view(SPECTATOR))  # OPEN: no seat claimed yet
        for seat in range(players):
            await game.join(seat, f"seat {seat}", claimant="player0" if seat == 0 else "")
        seen_up_to = self.see_events(game, 0)
        shape = None
        while game.status == 2:  # IN_PROGRESS
            state = game.state
            waiting = [s for s in flow.awaiting(state) if flow.legal_actions(state, s)]
            now = (state.phase, state.step, state.prompts[:1], state.battle is not None)
            viewers = [*range(players), SPECTATOR] if now != shape else waiting[:1]
            for viewer in viewers:
                self.see(game.view(viewer))
            shape = now
            if timed and self.rng.random() < 0.05:  # let this decision time out
                version = game.version
                assert self.clock.advance_to_next()
                async with asyncio.timeout(5):
                    while game.version == version:
                        await asyncio.sleep(0)
            else:
                seat = waiting[0]
                index = self.choose(game, seat)
                if script:  # a scripted opening: the first legal action with that label
                    labels = [a.label for a in game.view(seat).legal_actions]
                    index = next(i for i, x in enumerate(labels) if x.startswith(script[0]))
                    script.pop(0)
                await game.submit(seat, None, index, state.version)
                self.see(game.view(seat))  # e.g. its committed, unrevealed battle card
            seen_up_to = self.see_events(game, seen_up_to)
        self.see(game.view(0, include_state=True))
        for viewer in (*range(players), SPECTATOR):
            self.see(game.view(viewer))
        assert game.result is not None
        self.see(game.result)
        game.close()

    async def play_fire_and_axe(self) -> None:
        """A Fire & Axe game through the same game objects, from a position one Trade before
        its end, every viewer's views and events seen."""
        settings = GameSettings(players=2, seed=1, game="fire_and_axe")
        game = await self.registry.create(settings, json.dumps(FAE_SAGAS_DONE))
        for seat in range(2):
            await game.join(seat, f"seat {seat}")
        seen_up_to = self.see_events(game, 0)
        while game.status == 2:  # IN_PROGRESS
            seat = game.awaiting()[0]
            view = game.view(seat)
            self.see(view)
            self.see(game.view(SPECTATOR))
            labels = [a.label for a in view.legal_actions]
            await game.submit(seat, None, labels.index("trade fur"), game.state.version)
            seen_up_to = self.see_events(game, seen_up_to)
        assert game.result is not None
        self.see(game.result)
        game.close()

    async def abort(self, cause: int, decisions: int) -> None:
        """A game stopped for ``cause`` after ``decisions`` random decisions (0: still OPEN)."""
        game = await self.registry.create(GameSettings(players=3, seed=100 + cause))
        if decisions:
            for seat in range(3):
                await game.join(seat, f"seat {seat}")
        for _ in range(decisions):
            seat = flow.awaiting(game.state)[0]
            await game.submit(seat, None, self.choose(game, seat), game.state.version)
        await game.abort(cause, f"the guard stops it ({cause})")
        self.see_events(game, 0)
        for viewer in (*range(3), SPECTATOR):
            self.see(game.view(viewer))
        game.close()


def _not_fire_and_axe(name: str) -> bool:
    """Fire & Axe's own messages and enums have their own guard (below)."""
    return not name.startswith(FAE_PREFIX)


async def test_every_api_field_is_filled_in_some_game() -> None:
    configure_logging("WARNING")  # a line per decision at INFO would only slow this down
    run = _Run()
    for number in range(GAMES):
        await run.play(number)
    for scenario, script in RARE_POSITIONS:
        await run.play(0, scenario, script)
    for cause in gp.GameAborted.Cause.values():
        if cause:
            await run.abort(cause, decisions=0 if cause == gp.GameAborted.CAUSE_OPEN_TIMEOUT else 9)
    await run.play_fire_and_axe()  # the envelopes' field for the second game
    run.see(br_catalog.catalog())
    roots = [
        gp.Event.DESCRIPTOR,
        gp.View.DESCRIPTOR,
        gp.GameResult.DESCRIPTOR,
        br.BloodRageCatalog.DESCRIPTOR,
    ]
    universe = {f for f in api_fields(roots) if _not_fire_and_axe(f[0])}
    assert set(ALWAYS_DEFAULT) <= universe, "an allowed field that no longer exists"
    never = sorted(universe - run.found - set(ALWAYS_DEFAULT))
    assert not never, f"fields no game ever filled: {never}"
    filled_anyway = sorted(set(ALWAYS_DEFAULT) & run.found)
    assert not filled_anyway, f"fields allowed to stay unset were filled: {filled_anyway}"
    values = {v for v in api_enum_values(roots) if _not_fire_and_axe(v[0])}
    run.values = {v for v in run.values if _not_fire_and_axe(v[0])}
    assert set(NEVER_SENT) <= values, "an excused enum value that no longer exists"
    unsent = sorted(values - run.values - set(NEVER_SENT))
    assert not unsent, f"enum values no game ever sent: {unsent}"
    sent_anyway = sorted(set(NEVER_SENT) & run.values)
    assert not sent_anyway, f"enum values excused as never sent were sent: {sent_anyway}"
    assert run.values <= values, f"values no enum defines: {sorted(run.values - values)}"


# -- Fire & Axe ---------------------------------------------------------------------------------

FAE_PREFIX = "yggdrasil.v1.FireAndAxe"
# One Trade completes the last Saga on the table with an empty deck: the Sagas are done (F12.4).
FAE_SAGAS_DONE: dict[str, object] = {
    "players": 2,
    "seed": 1,
    "turn": 0,
    "first_player": 0,
    "sagas": {"spaces": ["i-island-trade", None, None], "deck": []},
    "goods": {"Faroe": "fish"},
    "final_markers": {"holder": 1, "placed": 0},
    "seats": [{"location": "Shetland", "crew": 2, "goods": {"fur": 1}}, {}],
}
FAE_GAMES = 3
# Rare moments, each with the labels of its first decisions: Runes that add to the dice and
# calm the weather before a Raid, or a Settle; a seat whose 15 crew are all Settlements (out,
# its turns skipped).
_SETTLED = ["brattahlid", "reykjanes", "eyjafjordur", "halogaland", "faroe", "shetland"]
_SETTLED += ["orkney", "iona", "lewis", "man", "cork", "nantes", "lisbon", "algeciras", "arles"]
FAE_RARE: list[tuple[dict[str, object], list[str]]] = [
    (
        {
            "players": 2,
            "seed": 3,
            "turn": 0,
            "first_player": 0,
            "seats": [{"location": "Bayeux", "crew": 4, "hand": ["berserkers", "calm-seas"]}, {}],
        },
        ["play Berserkers", "play Calm Seas", "raid"],
    ),
    (
        {
            "players": 2,
            "seed": 4,
            "turn": 0,
            "first_player": 0,
            "seats": [{"location": "Arles", "crew": 4, "hand": ["berserkers"]}, {}],
        },
        ["play Berserkers", "settle with 1"],
    ),
    (
        {
            "players": 2,
            "seed": 3,
            "turn": 0,
            "first_player": 0,
            "settlements": dict.fromkeys(_SETTLED, 1),
            "seats": [{"location": "Denmark", "crew": 2}, {}],
        },
        ["end the turn"],
    ),
]
FAE_NEVER_SENT: dict[EnumValue, str] = {
    ("yggdrasil.v1.FireAndAxeEndReason", "FIRE_AND_AXE_END_REASON_ALL_OUT"): (
        "every player with all 15 crew as Settlements: more ports than the demo pack's 24 "
        "even for two players (30), so never on it; the rule is tested in the engine"
    ),
    ("yggdrasil.v1.FireAndAxeEvent.VpReason", "VP_REASON_START_BONUS"): (
        "the starting bonus is given at set-up, before a host records events (views show it)"
    ),
}


def test_every_fire_and_axe_field_is_filled_in_some_game() -> None:
    """Fire & Axe's payloads, through the wire the server uses: seeded random games that seek
    decisions not taken before (by kind, and the Rune or item), views whenever a rare step or
    an attack is under way, one decision reported as timed out, and a game ended by its
    Sagas."""
    from engine.core.contract import SPECTATOR as NOBODY
    from engine.fire_and_axe.rules import RULES
    from protocol import envelopes
    from protocol.fire_and_axe.events import convert_events
    from protocol.fire_and_axe.wire import WIRE
    from protocol.wire import ViewEnvelope
    from yggdrasil.v1 import fire_and_axe_pb2 as fa

    envelope = ViewEnvelope("g", gp.GAME_STATUS_IN_PROGRESS, [], 0, {})
    found: set[Field] = set()
    values: set[EnumValue] = set()
    taken: set[tuple[int, int]] = set()
    rng = random.Random(7)

    def see_views(state: object, viewers: Iterable[int], include_state: bool = False) -> None:
        for v in viewers:
            d = RULES.view(state, v, include_state)
            mark_set(envelopes.view_to_pb(WIRE, d, envelope), found, values)

    def play(state: object, timed_out_at: int, script: Iterable[str] = ()) -> None:
        players = state.players  # type: ignore[attr-defined]
        script = list(script)
        n = 0
        while RULES.result(state) is None:
            seat = RULES.awaiting(state)[0]
            legal = RULES.legal_actions(state, seat)
            keys = [(a[0], a[1] if a[0] in (12, 13, 14) else 0) for a in legal]
            fresh = [i for i, key in enumerate(keys) if key not in taken]
            i = fresh[0] if fresh else rng.randrange(len(legal))
            if script:  # a scripted opening: the first legal action with that label
                labels = [WIRE.label(state, a) or "" for a in legal]
                wanted = script.pop(0)
                i = next(j for j, x in enumerate(labels) if x.startswith(wanted))
            taken.add(keys[i])
            state.events = []  # type: ignore[attr-defined]
            RULES.apply(state, seat, legal[i])
            for e in convert_events(state.events, n == timed_out_at):  # type: ignore[attr-defined]
                mark_set(e.full, found, values)
                if e.public is not None:
                    mark_set(e.public, found, values)
            waiting = RULES.awaiting(state)
            rare = waiting and (state.step != 0 or state.attack_bonus)  # type: ignore[attr-defined]
            if rare or n % 400 == 0:
                see_views(state, (NOBODY, waiting[0] if rare else seat), n == 0)
            n += 1
        see_views(state, (NOBODY, *range(players)))
        final = RULES.result(state)
        assert final is not None
        result = envelopes.result_to_pb(WIRE, final, [""] * players, RULES.view(state, NOBODY))
        mark_set(result, found, values)

    for number in range(FAE_GAMES):
        options = {
            "rune_timing": "any_time" if number % 2 else "own_turn",
            "settle_region_block": "any" if number % 3 == 0 else "all",
            "no_conflict": number == 2,
        }
        play(RULES.new_game(RULES.options(2 + number % 4, number, options)), 5)
    play(RULES.from_scenario(json.dumps(FAE_SAGAS_DONE)), -1, ["trade fur"])
    for scenario, script in FAE_RARE:
        play(RULES.from_scenario(json.dumps(scenario)), -1, script)
    mark_set(WIRE.catalog(), found, values)
    roots = [
        fa.FireAndAxeView.DESCRIPTOR,
        fa.FireAndAxeEvent.DESCRIPTOR,
        fa.FireAndAxeResult.DESCRIPTOR,
        fa.FireAndAxeCatalog.DESCRIPTOR,
    ]
    never = sorted(api_fields(roots) - found)
    assert not never, f"Fire & Axe fields no game ever filled: {never}"
    every = api_enum_values(roots)
    assert set(FAE_NEVER_SENT) <= every, "an excused enum value that no longer exists"
    unsent = sorted(every - values - set(FAE_NEVER_SENT))
    assert not unsent, f"Fire & Axe enum values no game ever sent: {unsent}"
    sent_anyway = sorted(set(FAE_NEVER_SENT) & values)
    assert not sent_anyway, f"enum values excused as never sent were sent: {sent_anyway}"


def test_the_guard_sees_a_field_nobody_fills_and_a_value_nobody_sends() -> None:
    """The walk finds unset fields (what a new, unfilled proto field would be) and the enum
    values never sent."""
    found: set[Field] = set()
    values: set[EnumValue] = set()
    changed = br.GloryChanged(seat=1, reason=br.GLORY_REASON_OTHER)
    mark_set(gp.Event(blood_rage=br.BloodRageEvent(glory_changed=changed)), found, values)
    missing = api_fields([br.GloryChanged.DESCRIPTOR]) - found
    assert ("yggdrasil.v1.GloryChanged", "seat") in found
    assert ("yggdrasil.v1.GloryChanged", "card_id") in missing
    assert ("yggdrasil.v1.GloryChanged", "other_seat") in missing
    assert values == {("yggdrasil.v1.GloryReason", "GLORY_REASON_OTHER")}
    unsent = api_enum_values([br.GloryChanged.DESCRIPTOR]) - values
    assert ("yggdrasil.v1.GloryReason", "GLORY_REASON_BATTLE") in unsent
