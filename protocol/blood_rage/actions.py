"""Blood Rage's decisions ⇄ ``BloodRageAction``, and the form other seats see of a secret one.

A Python client that re-plays or checks a game (the JSON replay of ``protocol.replay_json``,
a bot that reads replays) needs the same mapping between the engine's actions and the API's
``BloodRageAction`` as the server that accepts them; it lives here so that neither side has to
import the other.

Actions go through one table, :data:`ACTION_FIELDS`: engine ``ActionKind`` → the field of the
``BloodRageAction`` oneof and the proto field names of the action's ``a``, ``b`` and ``c``
arguments. A field typed with one of the +1 enums (Area, Unit, Stat) is shifted; plain ints
(card instances, slot indexes) are copied. A new action kind is one line in that table.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.descriptor import FieldDescriptor

from engine.blood_rage.actions import Action, ActionKind, describe
from protocol.wire import ConversionError
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

__all__ = [
    "ACTION_FIELDS",
    "action_from_pb",
    "action_label",
    "action_to_pb",
    "draft_mode_from_pb",
    "draft_mode_to_pb",
    "hidden_action_label",
    "hidden_action_to_pb",
    "kind_name",
]


# ActionKind → (BloodRageAction oneof field, proto field names of the arguments a, b, c).
ACTION_FIELDS: dict[int, tuple[str, tuple[str, ...]]] = {
    ActionKind.DRAFT_PICK: ("draft_pick", ("card",)),
    ActionKind.PASS: ("pass_turn", ()),
    ActionKind.INVADE: ("invade", ("unit", "area")),
    ActionKind.MARCH: ("march", ("from_area", "to_area", "unit")),
    ActionKind.MARCH_MORE: ("march_more", ("unit",)),
    ActionKind.MARCH_DONE: ("march_done", ()),
    ActionKind.UPGRADE: ("upgrade", ("card", "slot_index")),
    ActionKind.QUEST: ("quest", ("card",)),
    ActionKind.PILLAGE: ("pillage", ("province",)),
    ActionKind.FREE_INVADE: ("free_invade", ("unit", "area")),
    ActionKind.DECLINE: ("decline", ()),
    ActionKind.CALL_TO_BATTLE: ("call_to_battle", ("from_area", "unit")),
    ActionKind.BATTLE_CARD: ("battle_card", ("card",)),
    ActionKind.KEEP_CARD: ("keep_card", ("card",)),
    ActionKind.KEEP_NONE: ("keep_none", ()),
    ActionKind.RAISE_STAT: ("raise_stat", ("stat",)),
    ActionKind.LATE_CARD: ("late_card", ("card",)),
    ActionKind.SAVE_FIGURE: ("save_figure", ("unit", "area")),
    ActionKind.ACCEPT: ("accept", ()),
    ActionKind.KEEP_REVEALED: ("keep_revealed", ("card",)),
    ActionKind.KEEP_FIGURE: ("keep_figure", ("unit", "area")),
    ActionKind.MOVE_LEADER: ("move_leader", ("area",)),
    ActionKind.CHALLENGE: ("challenge", ("province",)),
    ActionKind.SACRIFICE: ("sacrifice", ("unit", "area")),
    ActionKind.INVADE_FROM_VALHALLA: ("invade_from_valhalla", ("unit", "area")),
}


@dataclass(frozen=True, slots=True)
class _ArgSpec:
    name: str
    shifted: bool  # a +1 enum (Area, Unit, Stat)
    presence: bool  # an `optional` field: unset means "not given"
    known: frozenset[int] = frozenset()  # the enum's defined values


@dataclass(frozen=True, slots=True)
class _KindSpec:
    kind: int
    field: str
    args: tuple[_ArgSpec, ...]


def _build_kind_specs() -> tuple[dict[int, _KindSpec], dict[str, _KindSpec]]:
    oneof = br.BloodRageAction.DESCRIPTOR
    by_kind: dict[int, _KindSpec] = {}
    for kind, (field_name, arg_names) in ACTION_FIELDS.items():
        message = oneof.fields_by_name[field_name].message_type
        assert message is not None, field_name
        args = []
        for name in arg_names:
            fd: FieldDescriptor = message.fields_by_name[name]
            enum = fd.enum_type
            known = frozenset(enum.values_by_number) if enum is not None else frozenset()
            args.append(_ArgSpec(name, enum is not None, fd.has_presence, known))
        by_kind[kind] = _KindSpec(kind, field_name, tuple(args))
    by_field = {spec.field: spec for spec in by_kind.values()}
    return by_kind, by_field


_SPEC_BY_KIND, _SPEC_BY_FIELD = _build_kind_specs()


_KIND_NAMES: dict[int, str] = {int(k): k.name.lower() for k in ActionKind}


def _kind_name(kind: int) -> str:
    name = _KIND_NAMES.get(kind)
    return name if name is not None else f"kind_{kind}"


def kind_name(action: Action) -> str:
    """A short metric/log label for an action's kind, e.g. ``invade``."""
    return _kind_name(action[0])


def action_to_pb(action: Action) -> br.BloodRageAction:
    """An engine action as a BloodRageAction (unfiltered: for its own seat and replays)."""
    spec = _SPEC_BY_KIND.get(action[0])
    if spec is None:
        raise ConversionError(f"action kind {_kind_name(action[0])} has no API form yet")
    out = br.BloodRageAction()
    sub = getattr(out, spec.field)
    sub.SetInParent()
    for i, arg in enumerate(spec.args):
        value = action[i + 1]
        setattr(sub, arg.name, value + 1 if arg.shifted else value)
    return out


def action_label(action: Action) -> str:
    """The engine's readable description (for the deciding seat)."""
    try:
        return describe(action)
    except (KeyError, ValueError, IndexError):
        return _kind_name(action[0]).replace("_", " ")


def action_from_pb(message: gp.Action) -> Action:
    """A client's Action as an engine action; ConversionError if malformed.

    Whether it is legal is the engine's business: this only checks its shape.
    """
    if message.WhichOneof("game") != "blood_rage":
        raise ConversionError("the action carries no Blood Rage decision")
    inner = message.blood_rage
    kind_field = inner.WhichOneof("kind")
    if kind_field is None:
        raise ConversionError("the Blood Rage action sets no kind")
    spec = _SPEC_BY_FIELD.get(kind_field)
    if spec is None:
        raise ConversionError(f"{kind_field} is not a decision this server accepts")
    sub = getattr(inner, kind_field)
    args = [0, 0, 0]
    for i, arg in enumerate(spec.args):
        if arg.presence and not sub.HasField(arg.name):
            raise ConversionError(f"{kind_field}.{arg.name} must be set")
        value = int(getattr(sub, arg.name))
        if arg.shifted:
            if value == 0:
                raise ConversionError(f"{kind_field}.{arg.name} must be set")
            if value not in arg.known:
                raise ConversionError(f"{kind_field}.{arg.name} has no value {value}")
            value -= 1
        if not 0 <= value <= 255:
            raise ConversionError(f"{kind_field}.{arg.name} is out of range ({value})")
        args[i] = value
    return Action(spec.kind, args[0], args[1], args[2])


def draft_mode_from_pb(value: int) -> int:
    """DraftMode → the engine's (UNSPECIFIED means NORMAL); ConversionError if unknown."""
    if value == 0:
        return 0
    if 1 <= value <= 2:
        return value - 1
    raise ConversionError(f"unknown draft_mode {value}")


def draft_mode_to_pb(mode: int) -> br.DraftMode.ValueType:
    """The engine's draft mode → DraftMode (UNSPECIFIED for an unknown one)."""
    return br.DraftMode.ValueType(mode + 1 if 0 <= mode < 2 else 0)


# Secret decisions whose kind itself is hidden from other viewers (keeping a card or none
# tells whether the hand held one worth keeping); other secret kinds only hide their cards.
_HIDDEN_KIND: frozenset[int] = frozenset({ActionKind.KEEP_CARD, ActionKind.KEEP_NONE})
_HIDDEN_LABELS: dict[int, str] = {
    ActionKind.DRAFT_PICK: "pick a card",
    ActionKind.QUEST: "commit a quest",
    ActionKind.BATTLE_CARD: "choose a battle card",
    ActionKind.KEEP_CARD: "choose what to keep",
    ActionKind.KEEP_NONE: "choose what to keep",
}
# Argument fields that name a card instance: blanked in another seat's secret decision.
_CARD_FIELDS = frozenset({"card"})


def hidden_action_to_pb(action: Action) -> br.BloodRageAction | None:
    """Another viewer's form of a secret decision: cards blanked, or nothing at all."""
    if action[0] in _HIDDEN_KIND:
        return None
    out = action_to_pb(action)
    kind = out.WhichOneof("kind")
    if kind is not None:
        sub = getattr(out, kind)
        for name in _CARD_FIELDS:
            if name in sub.DESCRIPTOR.fields_by_name:
                sub.ClearField(name)
    return out


def hidden_action_label(action: Action) -> str:
    return _HIDDEN_LABELS.get(action[0], "make a secret choice")
