"""Card texts, hooked at named moments of the rules and keyed by card key.

The phase machine never names a card: it calls ``fire`` at a moment (``on_invade``,
``on_destroyed``, …) and every card in play that registered for that moment runs. Adding a
card's text means registering a small function here (or in a module that imports this one);
the phase modules do not change.

Moments and their keyword arguments:

- ``on_invade(state, seat, card, fig, area)`` — an upgrade of the invader, after a figure
  entered an area by any invade (action, free invade, card).
- ``on_destroyed(state, seat, card, fig, area)`` — an upgrade of the owner, after one of its
  figures went to Valhalla from ``area``.
- ``on_release(state, seat, card, count)`` — an upgrade, after ``count`` figures came back.
- ``on_reveal(state, seat, card)`` — a battle card just revealed (cancel, discard, then the
  rest, each clockwise from the pillager).
- ``before_compare(state, seat, card)`` — a battle card, before totals are compared.
- ``on_win`` / ``on_lose(state, seat, card)`` — a battle card or an upgrade, after the
  battle's outcome.
- ``after_winner_keeps(state, seat, card)`` — a losing battle card, once the winner has
  kept what it may keep (Tyr's Prowess): Loki's Trickery.
- ``on_pillage_success(state, seat, card, province)`` — an upgrade or the played card.
- ``end_of_game(state, seat, card)`` — an upgrade, before the end-game bonuses.

Modifiers return a number instead of acting: ``battle_value(state, seat, card) -> int``,
``upgrade_cost(state, seat, card, cost) -> int``, ``quest_glory(state, seat, card, glory)``,
``ragnarok_glory(state, seat, card, glory)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from engine.blood_rage.cards import CARDS, INSTANCE_DEF

if TYPE_CHECKING:
    from engine.blood_rage.state import GameState

Hook = Callable[..., Any]

# moment -> card key -> function
HOOKS: Final[dict[str, dict[str, Hook]]] = {}


def register(moment: str, *keys: str) -> Callable[[Hook], Hook]:
    """Decorator: run the function at ``moment`` for cards with one of ``keys``."""

    def wrap(fn: Hook) -> Hook:
        table = HOOKS.setdefault(moment, {})
        for key in keys:
            if key in table:
                raise ValueError(f"{key} already has a {moment} effect")
            table[key] = fn
        return fn

    return wrap


def acts_at(state: GameState, seat: int, moment: str) -> bool:
    """Does an upgrade on the clan's sheet act at ``moment``? Hot callers ask first, rather
    than build the keyword arguments of a call that would find nothing to run."""
    table = HOOKS.get(moment)
    if not table:
        return False
    for inst in state.clans[seat].slots:
        if inst >= 0 and CARDS[INSTANCE_DEF[inst]].key in table:
            return True
    return False


def fire_upgrades(state: GameState, seat: int, moment: str, **kw: Any) -> None:
    """Run ``moment`` for every upgrade on one clan sheet."""
    table = HOOKS.get(moment)
    if not table:
        return
    for inst in state.clans[seat].slots:
        if inst >= 0:
            fn = table.get(CARDS[INSTANCE_DEF[inst]].key)
            if fn is not None:
                fn(state, seat, inst, **kw)


def fire_card(state: GameState, seat: int, card: int, moment: str, **kw: Any) -> None:
    """Run ``moment`` for one played card."""
    table = HOOKS.get(moment)
    if table:
        fn = table.get(CARDS[INSTANCE_DEF[card]].key)
        if fn is not None:
            fn(state, seat, card, **kw)


def upgrade_shares(
    state: GameState, seat: int, moment: str, value: int, **kw: Any
) -> list[tuple[int, int]]:
    """What each upgrade modifying ``value`` at ``moment`` adds to it, in the order
    ``modify_upgrades`` folds them: ``(card instance, change)`` for every non-zero change.
    For rules that report each source of a number apart (Odin's Throne's share of a quest's
    Glory, the Frost Giant's second reward)."""
    table = HOOKS.get(moment)
    out: list[tuple[int, int]] = []
    if not table:
        return out
    for inst in state.clans[seat].slots:
        if inst >= 0:
            fn = table.get(CARDS[INSTANCE_DEF[inst]].key)
            if fn is not None:
                new = fn(state, seat, inst, value, **kw)
                if new != value:
                    out.append((inst, new - value))
                value = new
    return out


def modify_upgrades(state: GameState, seat: int, moment: str, value: int, **kw: Any) -> int:
    """Fold a number through every upgrade of a clan that modifies it at ``moment``."""
    table = HOOKS.get(moment)
    if not table:
        return value
    for inst in state.clans[seat].slots:
        if inst >= 0:
            fn = table.get(CARDS[INSTANCE_DEF[inst]].key)
            if fn is not None:
                value = fn(state, seat, inst, value, **kw)
    return value
