"""Destroying figures: doom, the reactions it allows, then Valhalla.

A rule or card that destroys figures *dooms* them first. Owners whose cards react to their
figures' destruction (Frigga's Protection, the Volur Witch) get prompts, answered before
anything else; once none is left the doomed figures go to Valhalla together. Code that
destroys figures therefore never needs to know which cards can react.
"""

from __future__ import annotations

from enum import IntEnum

from engine.blood_rage.effects import acts_at, fire_upgrades
from engine.blood_rage.ids import NUM_AREAS, VALHALLA
from engine.blood_rage.state import DOOM_PROMPTS, EMPTY, GameState


class Cause(IntEnum):
    BATTLE = 0  # losing a battle
    EFFECT = 1  # an enemy effect: Odin's Smite, Troll, Fire Giant
    OWN_CHOICE = 2  # the owner's own choice: Odin's Tide
    RAGNAROK = 3


def doom(state: GameState, victims: list[tuple[int, int]], cause: Cause, card: int = EMPTY) -> None:
    """Mark figures for destruction; let their owners react; destroy when all have.
    ``card`` is the card whose text destroys them (EMPTY for a rule: a lost battle)."""
    victims = [(s, f) for s, f in victims if state.clans[s].loc[f] < NUM_AREAS]
    if not victims:
        return
    state.doomed.extend(victims)
    state.doom_cause = int(cause)
    state.doom_card = card
    owners = sorted({s for s, _ in victims}, key=lambda s: (s - _first_seat(state)) % state.players)
    reactions = state.prompts
    state.prompts = []
    for seat in owners:
        fire_upgrades(state, seat, "on_doomed", cause=cause)
    state.prompts.extend(reactions)  # reactions to the doom come before anything else
    settle(state)


def _first_seat(state: GameState) -> int:
    return state.battle.pillager if state.battle is not None else state.turn


def settle(state: GameState) -> None:
    """Destroy the doomed figures once no reaction to them is pending."""
    if not state.doomed or any(p.kind in DOOM_PROMPTS for p in state.prompts):
        return
    victims = state.doomed
    state.doomed = []
    dead = [(s, f, state.clans[s].loc[f]) for s, f in victims if state.clans[s].loc[f] < NUM_AREAS]
    if state.events is not None:  # events are built only for a game that records them
        report_destroyed(state, Cause(state.doom_cause), dead, state.doom_card)
    state.doom_card = EMPTY
    for seat, fig, _ in dead:
        destroy(state, seat, fig)


def report_destroyed(
    state: GameState, cause: Cause, dead: list[tuple[int, int, int]], card: int = EMPTY
) -> None:
    """The public event of figures about to go to Valhalla: (seat, figure, area) each, why,
    and the card whose text did it (EMPTY for a rule)."""
    state.emit(
        -1,
        {
            "type": "figures_destroyed",
            "cause": cause.name.lower(),
            "destroyed": [list(d) for d in dead],
            "card": card,
        },
    )


def destroy(state: GameState, seat: int, fig: int) -> None:
    """Send a figure to Valhalla now and fire its owner's on_destroyed effects."""
    area = state.clans[seat].loc[fig]
    state.move_figure(seat, fig, VALHALLA)
    b = state.battle
    if b is not None and b.participants:
        b.killed[seat] += 1
        b.destroyed.append([seat, fig, area])
    if acts_at(state, seat, "on_destroyed"):
        fire_upgrades(state, seat, "on_destroyed", fig=fig, area=area)
