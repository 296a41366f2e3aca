"""Defensive readers of the JSON-able dicts the rules hand out (views, events).

A game's dicts may gain keys at any time, and a conversion must never fail on a view it
half-knows: these read a value of the expected type or give the proto default, so unknown
keys are ignored and missing ones read as unset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["as_dict", "as_int", "as_list", "as_str"]

_EMPTY: Mapping[str, Any] = {}


def as_int(value: object, default: int = 0) -> int:
    """``value`` if it is an int (not a bool), else ``default``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def as_str(value: object) -> str:
    return value if isinstance(value, str) else ""


def as_dict(value: object) -> Mapping[Any, Any]:
    if type(value) is dict:  # the usual case, without the ABC check
        return value
    return value if isinstance(value, Mapping) else _EMPTY


def as_list(value: object) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()
