"""The phase machine: who decides now, what they may do, and applying it.

The whole contract is four functions (OpenSpiel style): ``awaiting`` (the seats whose decision
is awaited — several during simultaneous steps), ``legal_actions``, ``apply`` (checked) and
``apply_unchecked`` (the fast path for bots that pick from the legal list). After every action
``advance`` runs the automatic steps until a decision is needed again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.blood_rage import action_phase, battle, draft, end_of_age
from engine.blood_rage import card_effects as _card_effects  # noqa: F401  (registers every card text)
from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.choices import choice_details, choice_label
from engine.blood_rage.destruction import settle
from engine.blood_rage.explain import why_illegal
from engine.blood_rage.ids import Step
from engine.blood_rage.prompts import PROMPTS
from engine.blood_rage.state import DOOM_PROMPTS, GameState
from engine.core.errors import GameOverError, IllegalActionError, NotYourDecisionError

AutoStep = Callable[[GameState], None]
Legal = Callable[[GameState, int], list[Action]]
Apply = Callable[[GameState, int, Action], None]

AUTO_STEPS: Final[dict[int, AutoStep]] = {
    Step.DRAFT_DEAL: draft.deal,
    Step.ACTION_START: action_phase.start,
    Step.CALL_TO_BATTLE_NEXT: battle.call_next,
    Step.BATTLE_CARDS_START: battle.cards_start,
    Step.BATTLE_RESOLVE: battle.resolve,
    Step.TURN_END: action_phase.end_turn,
    Step.DISCARD_START: end_of_age.discard_start,
    Step.QUEST_START: end_of_age.quest_start,
    Step.RAGNAROK: end_of_age.ragnarok,
    Step.RAGNAROK_DESTROY: end_of_age.ragnarok_destroy,
    Step.RELEASE_VALHALLA: end_of_age.release,
    Step.AGE_END: end_of_age.age_end,
}

DECISION_STEPS: Final[dict[int, tuple[Legal, Apply]]] = {
    Step.DRAFT_PICK: (draft.legal, draft.apply),
    Step.ACTION: (action_phase.legal, action_phase.apply),
    Step.MARCH: (action_phase.legal_march, action_phase.apply_march),
    Step.CALL_TO_BATTLE: (battle.legal_call, battle.apply_call),
    Step.BATTLE_CARDS: (battle.legal_card, battle.apply_card),
    Step.DISCARD: (end_of_age.legal_keep, end_of_age.apply_keep),
}


def advance(state: GameState) -> None:
    """Run automatic steps until some seat must decide (or the game is over)."""
    while not state.prompts:
        if state.step == _TURN_END:  # after every action of the Action phase
            action_phase.end_turn(state)
            continue
        step = AUTO_STEPS.get(state.step)
        if step is None:
            return
        step(state)


# The steps the hot paths compare against, as plain ints: the compiled build (make accel) keeps
# a Final int in a C variable, where an IntEnum member is an object looked up at every use.
# The most frequent steps are also called directly rather than through the tables above: from
# a table, even a compiled function is a generic Python call (arguments boxed and parsed).
_ACTION: Final = int(Step.ACTION)
_MARCH: Final = int(Step.MARCH)
_DRAFT_PICK: Final = int(Step.DRAFT_PICK)
_CALL_TO_BATTLE: Final = int(Step.CALL_TO_BATTLE)
_BATTLE_CARDS: Final = int(Step.BATTLE_CARDS)
_DISCARD: Final = int(Step.DISCARD)
_GAME_OVER: Final = int(Step.GAME_OVER)
_TURN_END: Final = int(Step.TURN_END)


def awaiting(state: GameState) -> list[int]:
    """Seats whose decision is awaited now (several at once for simultaneous steps)."""
    if state.prompts:
        return [state.prompts[0].seat]
    step = state.step
    if step in (_ACTION, _MARCH):
        return [state.turn]
    if step == _DRAFT_PICK:
        return draft.awaiting(state)
    if step == _CALL_TO_BATTLE:
        assert state.battle is not None
        return [state.battle.order[state.battle.pos]]
    if step == _BATTLE_CARDS:
        return battle.awaiting_cards(state)
    if step == _DISCARD:
        return end_of_age.awaiting_keep(state)
    return []


def is_simultaneous(state: GameState) -> bool:
    """True while several seats choose in secret (draft, battle cards, keep)."""
    if state.prompts:
        return False
    step = state.step
    return step in (_DRAFT_PICK, _BATTLE_CARDS, _DISCARD)


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """The seat's legal actions now (empty if its decision is not awaited)."""
    if seat not in awaiting(state):
        return []
    if state.prompts:
        prompt = state.prompts[0]
        return PROMPTS[prompt.kind][0](state, prompt)
    step = state.step
    if step == _ACTION:
        return action_phase.legal(state, seat)
    if step == _DRAFT_PICK:
        return draft.legal(state, seat)
    return DECISION_STEPS[step][0](state, seat)


def apply_unchecked(state: GameState, seat: int, action: Action) -> None:
    """Apply an action known to be legal (from ``legal_actions``). Fast; no validation."""
    if state.events is not None:
        payload = {
            "type": "action",
            "seat": seat,
            "action": action.code(),
            "text": choice_label(state, seat, action),
        }
        details = choice_details(state, seat, action)
        if details:  # what it costs and is about, as it stands before it is applied
            payload["details"] = details
        state.emit(-1 if action[0] not in _SECRET_KINDS else seat, payload)
    if state.prompts:
        prompt = state.prompts.pop(0)
        PROMPTS[prompt.kind][1](state, prompt, action)
        if prompt.kind in DOOM_PROMPTS:
            settle(state)
    elif state.step == _ACTION:
        action_phase.apply(state, seat, action)
    elif state.step == _DRAFT_PICK:
        draft.apply(state, seat, action)
    else:
        DECISION_STEPS[state.step][1](state, seat, action)
    state.version += 1
    advance(state)


_SECRET_KINDS: Final = frozenset(
    {
        ActionKind.DRAFT_PICK,
        ActionKind.BATTLE_CARD,
        ActionKind.KEEP_CARD,
        ActionKind.KEEP_NONE,
        ActionKind.QUEST,
    }
)


def apply(state: GameState, seat: int, action: Action) -> None:
    """Apply an action after checking it; on error the state is unchanged."""
    if state.step == _GAME_OVER:
        raise GameOverError("the game is over")
    waiting = awaiting(state)
    if seat not in waiting:
        raise NotYourDecisionError(
            f"seat {seat} has no decision to take now; waiting for seat(s) {waiting}"
        )
    action = Action(*action)
    legal = legal_actions(state, seat)
    if action not in legal:
        raise IllegalActionError(why_illegal(state, seat, action, legal))
    apply_unchecked(state, seat, action)
