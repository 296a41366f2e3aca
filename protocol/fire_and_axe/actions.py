"""Fire & Axe's decisions ⇄ ``FireAndAxeAction``.

An engine action is ``(kind, a, b, c)`` (``engine.fire_and_axe.actions``); the proto's oneof
field number is the kind + 1, and :data:`ACTION_FIELDS` names each kind's field and the proto
fields of its arguments. Goods and items are +1 enums; locations and Runes are pack indices,
copied; the dial turn's enum numbers are the engine's (0 none, 1 clockwise, 2
counter-clockwise). Nothing here needs the game's pack: an action's shape is checked here, its
legality (a location on the map, a Rune in the hand) by the rules.
"""

from __future__ import annotations

from engine.fire_and_axe.actions import Action, ActionKind
from protocol.wire import ConversionError
from yggdrasil.v1 import fire_and_axe_pb2 as fa
from yggdrasil.v1 import game_pb2 as gp

__all__ = ["ACTION_FIELDS", "action_from_pb", "action_to_pb", "kind_name"]

# Argument kinds: how a proto field maps to an engine argument.
_INDEX = "index"  # a pack index (location, Rune) or a count: copied, 0-255
_GOOD = "good"  # FireAndAxeGood: engine + 1, goods only
_ITEM = "item"  # FireAndAxeItem: engine + 1, goods or crew
_DIAL = "dial"  # FireAndAxeDialTurn: the engine's own numbers 0-2

# ActionKind -> (FireAndAxeAction oneof field, ((proto field, argument kind) for a, b, c)).
ACTION_FIELDS: dict[int, tuple[str, tuple[tuple[str, str], ...]]] = {
    ActionKind.LOAD_CREW: ("load_crew", ()),
    ActionKind.LOAD_GOOD: ("load_goods", (("good", _GOOD),)),
    ActionKind.LEAVE_WINTERING: ("leave_wintering", (("homeland", _INDEX),)),
    ActionKind.DRAW_RUNE: ("draw_rune", ()),
    ActionKind.SAIL: ("sail", (("to", _INDEX),)),
    ActionKind.TRADE: ("trade", (("good", _GOOD),)),
    ActionKind.RAID: ("raid", ()),
    ActionKind.RAID_AGAIN: ("raid_again", ()),
    ActionKind.RAID_STOP: ("raid_stop", ()),
    ActionKind.SETTLE: ("settle", (("dice", _INDEX),)),
    ActionKind.CONVERT: ("convert", ()),
    ActionKind.DECLINE: ("decline", ()),
    ActionKind.LOSE: ("lose", (("item", _ITEM),)),
    ActionKind.PLAY_RUNE: ("play_rune", (("rune", _INDEX), ("dial", _DIAL), ("choice", _INDEX))),
    ActionKind.DISCARD_RUNE: ("discard_rune", (("rune", _INDEX), ("dial", _DIAL))),
    ActionKind.WINTER: ("winter", ()),
    ActionKind.END_TURN: ("end_turn", ()),
    ActionKind.PASS: ("pass_window", ()),
}
_KIND_BY_FIELD = {field: kind for kind, (field, _) in ACTION_FIELDS.items()}
_LIMITS = {_INDEX: (0, 255), _GOOD: (1, 3), _ITEM: (1, 4), _DIAL: (0, 2)}


def kind_name(action: Action) -> str:
    """The action's kind for metrics and logs (its proto field: ``sail``, ``play_rune``)."""
    spec = ACTION_FIELDS.get(action[0])
    return spec[0] if spec is not None else f"kind_{action[0]}"


def action_to_pb(action: Action) -> fa.FireAndAxeAction:
    """An engine action as the API's (ConversionError for a kind or value it cannot name)."""
    kind, *args = tuple(action)
    spec = ACTION_FIELDS.get(kind)
    if spec is None:
        raise ConversionError(f"no Fire & Axe action kind {kind}")
    field, arg_specs = spec
    out = fa.FireAndAxeAction()
    message = getattr(out, field)
    message.SetInParent()
    for (name, arg_kind), value in zip(arg_specs, args, strict=False):
        shifted = value + 1 if arg_kind in (_GOOD, _ITEM) else value
        low, high = _LIMITS[arg_kind]
        if not low <= shifted <= high:
            raise ConversionError(f"{field}.{name} cannot be {value}")
        setattr(message, name, shifted)
    return out


def action_from_pb(message: gp.Action) -> Action:
    """A client's Fire & Axe decision as the engine's action (its shape: ConversionError if
    the payload is missing, of another game, or a value is out of range)."""
    if message.WhichOneof("game") != "fire_and_axe":
        raise ConversionError("the action carries no fire_and_axe decision")
    mine = message.fire_and_axe
    field = mine.WhichOneof("kind")
    if field is None:
        raise ConversionError("the fire_and_axe action has no kind set")
    kind = _KIND_BY_FIELD[field]
    sub = getattr(mine, field)
    args = [0, 0, 0]
    for i, (name, arg_kind) in enumerate(ACTION_FIELDS[kind][1]):
        value = int(getattr(sub, name))
        low, high = _LIMITS[arg_kind]
        if not low <= value <= high:
            raise ConversionError(f"{field}.{name} = {value} is out of range {low}..{high}")
        args[i] = value - 1 if arg_kind in (_GOOD, _ITEM) else value
    return Action(kind, *args)
