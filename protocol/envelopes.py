"""The game-agnostic parts of the API's messages, built around a game's payload.

Every game shares the envelopes of proto/yggdrasil/v1/game.proto: a view's ids, status, seats,
awaited and committed seats, legal actions, clock and result; a result's seats, scores, ranks
and winners; the events of a game's life (a seat claimed, a status change, a timeout, the end,
an abort). They are built here from what the contract promises of every game (the common view
keys, ``engine.core.contract.VIEW_KEYS``; ``Result``), and the game's :class:`~protocol.wire.Wire`
adds its payload.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any, TypeAlias

from engine.core.contract import SPECTATOR, Action, Result
from protocol.readers import as_dict, as_int, as_list, as_str
from protocol.wire import ConversionError, ConvertedEvent, ViewEnvelope, Wire
from yggdrasil.v1 import game_pb2 as gp

__all__ = [
    "EventPb",
    "GameResultPb",
    "ViewPb",
    "action_label",
    "add_legal_actions",
    "awaiting_and_committed",
    "engine_state_json",
    "game_aborted_event",
    "game_ended_event",
    "is_game_ended",
    "replay_step_pb",
    "result_to_pb",
    "seat_claimed_event",
    "seat_infos",
    "status_changed_event",
    "status_to_pb",
    "timed_out_event",
    "view_to_pb",
]

# Re-exported so that modules that only pass messages along need not import the stubs.
ViewPb: TypeAlias = gp.View
EventPb: TypeAlias = gp.Event
GameResultPb: TypeAlias = gp.GameResult


def status_to_pb(status: int) -> gp.GameStatus.ValueType:
    """The host's status number (``server.games.record.Status`` uses the proto's numbers)."""
    return gp.GameStatus.ValueType(status if 0 <= status <= 4 else 0)


def seat_infos(
    names: Sequence[str], claimed: Sequence[bool], reserved: Collection[int] = ()
) -> list[gp.SeatInfo]:
    """The seats' public information (``reserved``: the seats only their holder may claim)."""
    return [
        gp.SeatInfo(seat=seat, name=name, claimed=claimed[seat], reserved=seat in reserved)
        for seat, name in enumerate(names)
    ]


# -- legal actions -----------------------------------------------------------------------------

# Per (game, action code): the LegalAction at index 0 (a decision and its label depend on the
# code only). Bounded: codes are few in practice, and a full cache just starts again.
_LEGAL_TEMPLATES: dict[tuple[int, int], gp.LegalAction] = {}
_LEGAL_TEMPLATES_MAX = 8192


def _legal_template(wire: Wire, code: int, label: str | None = None) -> gp.LegalAction:
    key = (wire.kind, code)
    template = _LEGAL_TEMPLATES.get(key)
    if template is None:
        action = wire.rules.action_from_code(code)
        try:
            message = wire.action_to_pb(action)
        except ConversionError:
            message = gp.Action()  # a kind this API cannot name yet: legal_index still works
        template = gp.LegalAction(
            action=message,
            label=label if label is not None else action_label(wire, action),
            code=code,
        )
        if len(_LEGAL_TEMPLATES) >= _LEGAL_TEMPLATES_MAX:
            _LEGAL_TEMPLATES.clear()
        _LEGAL_TEMPLATES[key] = template
    return template


def action_label(wire: Wire, action: Action) -> str:
    """The rules' description of ``action`` for its own seat (its kind if it has none)."""
    try:
        return wire.rules.describe(action)
    except (KeyError, ValueError, IndexError):
        return wire.action_kind(action).replace("_", " ")


def add_legal_actions(
    wire: Wire, target: Any, actions: Sequence[Action], state: Any = None
) -> None:
    """Append a seat's legal actions, in order, to a repeated LegalAction field (the same
    entries as a view's legal_actions, from templates converted once per action code; with
    ``state``, labels the game words from it, as :meth:`Wire.label`)."""
    for index, action in enumerate(actions):
        entry = target.add()
        entry.CopyFrom(_legal_template(wire, action.code()))
        entry.index = index
        if state is not None:
            label = wire.label(state, action)
            if label:
                entry.label = label


def _legal_from_view(wire: Wire, entries: Sequence[Any], target: Any) -> None:
    for position, raw in enumerate(entries):
        e = as_dict(raw)
        code = as_int(e.get("code"), -1)
        label = as_str(e.get("label"))
        entry = target.add()
        if code >= 0:
            # A code the rules do not know: show what the view says.
            with contextlib.suppress(ValueError):
                entry.CopyFrom(_legal_template(wire, code, label))
        # The view's own label: the template is shared by every game of the kind, and a
        # label may name what only this game has (Fire & Axe: its data pack's places).
        if label:
            entry.label = label
        entry.index = as_int(e.get("index"), position)


# -- views and results -------------------------------------------------------------------------


def awaiting_and_committed(view: Mapping[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A View's ``awaiting_seats`` and ``committed_seats`` from the rules' view: the seats
    still awaited and those that already committed this round, both ascending (a seat that
    committed is listed as awaited too: the round still waits on the others)."""
    committed = tuple(sorted(as_int(s) for s in as_list(view.get("committed"))))
    awaiting = tuple(sorted({as_int(s) for s in as_list(view.get("awaiting"))} | set(committed)))
    return awaiting, committed


def view_to_pb(wire: Wire, view: Mapping[str, Any], envelope: ViewEnvelope) -> gp.View:
    """The rules' view of one viewer (already filtered for it) as a View: the envelope from
    the common view keys, the payload from the game's wire."""
    viewer = as_int(view.get("viewer"), SPECTATOR)
    awaiting, committed = awaiting_and_committed(view)
    out = gp.View(
        game_id=envelope.game_id,
        kind=gp.GameKind.ValueType(wire.kind),
        status=envelope.status,
        state_version=as_int(view.get("version")),
        last_sequence=envelope.last_sequence,
        seats=envelope.seats,
        awaiting_seats=awaiting,
        committed_seats=committed,
        decision_deadline_unix_ms=envelope.deadline_unix_ms,
        seed_chosen=bool(envelope.seed_chosen_by),
        seed_chosen_by=envelope.seed_chosen_by,
    )
    if viewer != SPECTATOR:
        out.viewer_seat = viewer
        _legal_from_view(wire, as_list(view.get("legal_actions")), out.legal_actions)
    # After the legal actions: the game may add to them what depends on the state (Blood
    # Rage: what each costs, and labels that say what a decline declines).
    wire.fill_view(view, envelope, out)
    if envelope.result is not None:
        out.result.CopyFrom(envelope.result)
    return out


def engine_state_json(view: Mapping[str, Any]) -> str | None:
    """The viewer's redacted engine state of a view asked with ``include_state`` (compact
    JSON), or None when the view does not carry one."""
    state = view.get("engine_state")
    return None if state is None else json.dumps(state, separators=(",", ":"))


def result_to_pb(
    wire: Wire, result: Result, names: Sequence[str], final_view: Mapping[str, Any]
) -> gp.GameResult:
    """A finished game's result; ``final_view`` is the final spectator view (public)."""
    out = gp.GameResult(
        seats=[
            gp.SeatResult(
                seat=seat,
                name=names[seat] if seat < len(names) else "",
                score=score,
                rank=result.ranks[seat],
                winner=seat in result.winners,
            )
            for seat, score in enumerate(result.scores)
        ],
        winners=list(result.winners),
    )
    wire.fill_result(result, final_view, out)
    return out


def replay_step_pb(
    wire: Wire, seat: int, action: Action, version: int, by_timeout: bool
) -> gp.ReplayStep:
    """One decision of a finished game's log, unfiltered."""
    return gp.ReplayStep(
        seat=seat, action=wire.action_to_pb(action), state_version=version, by_timeout=by_timeout
    )


# -- the events of a game's life (no game data in them) ------------------------------------------


def seat_claimed_event(seat: int, name: str) -> ConvertedEvent:
    return ConvertedEvent(-1, gp.Event(seat_claimed=gp.SeatClaimed(seat=seat, name=name)))


def status_changed_event(status: int) -> ConvertedEvent:
    return ConvertedEvent(
        -1, gp.Event(status_changed=gp.StatusChanged(status=status_to_pb(status)))
    )


def game_ended_event(result: gp.GameResult | None) -> ConvertedEvent:
    ended = gp.GameEnded()
    if result is not None:
        ended.result.CopyFrom(result)
    return ConvertedEvent(-1, gp.Event(game_ended=ended))


def game_aborted_event(cause: int, reason: str) -> ConvertedEvent:
    aborted = gp.GameAborted(cause=gp.GameAborted.Cause.ValueType(cause), reason=reason)
    return ConvertedEvent(-1, gp.Event(game_aborted=aborted))


def timed_out_event(seat: int) -> ConvertedEvent:
    return ConvertedEvent(-1, gp.Event(timed_out=gp.DecisionTimedOut(seat=seat)))


def is_game_ended(event: gp.Event) -> bool:
    """Whether ``event`` is a game's last one (it ended, or it was aborted)."""
    return event.WhichOneof("payload") in ("game_ended", "game_aborted")
