"""What a decision costs and is about (``engine.blood_rage.choices``) as the API's
``ActionDetails``: shared by the legal actions of views and the events of applied decisions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.blood_rage.values import (
    _NUM_CARDS,
    _int,
    _str,
    area_to_pb,
    card_pb,
    unit_to_pb,
    upgrade_slot_to_pb,
)
from yggdrasil.v1 import blood_rage_pb2 as br

__all__ = ["details_pb"]


def details_pb(details: Mapping[str, Any]) -> br.ActionDetails:
    """The rules' details of a decision (``engine.blood_rage.choices.choice_details``) as an
    ActionDetails; missing keys stay unset."""
    out = br.ActionDetails(
        rage_cost=_int(details.get("rage_cost")),
        strength=_int(details.get("strength")),
        offer=_str(details.get("offer")),
    )
    if "unit" in details:
        out.unit = unit_to_pb(_int(details.get("unit"), -1))
    if "area" in details:
        out.area = area_to_pb(_int(details.get("area"), -1))
    for key in ("card", "replaces"):
        card = _int(details.get(key), -1)
        if 0 <= card < _NUM_CARDS:
            getattr(out, key).CopyFrom(card_pb(card))
    if "slot" in details:
        out.slot = upgrade_slot_to_pb(_int(details.get("slot")))
    return out
