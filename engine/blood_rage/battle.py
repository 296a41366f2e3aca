"""Pillage: Call to Battle, secret battle cards, resolution (blood-rage.md §5, Pillage).

A battle runs through steps: CALL_TO_BATTLE_NEXT finds who may answer the call next,
CALL_TO_BATTLE waits for that seat, BATTLE_CARDS_START asks every participant holding cards
for one card at once, BATTLE_CARDS waits for all of them, and BATTLE_RESOLVE walks through the
resolution ``STAGES``. A stage may stop for prompts (late cards, Odin's Tide, Frigga's
Protection, …) and carries on where it stopped once they are answered; card texts run through
``engine.blood_rage.effects`` hooks, so no card is named here.

Order of resolution (cards.md rulings): reveal → late cards (pillager first, round and round)
→ cancel texts → discard texts → other texts before the comparison → compare (a tie for the
highest total: everyone loses) → losers' figures destroyed → the outcome reported → lose/win
texts → pillage reward
→ Glory = Axes → Tyr's Prowess → losers' texts that act after it (Loki's Trickery) → cards
discarded or taken back → after-battle offers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.blood_rage.actions import CALL_TABLE, CARD_ACTIONS, DECLINE, Action, ActionKind
from engine.blood_rage.board import ADJACENT, SUPPORTING_FJORDS, TOKEN_GLORY, TOKEN_NAMES, Token
from engine.blood_rage.cards import CardType, card_of
from engine.blood_rage.destruction import Cause, doom
from engine.blood_rage.effects import (
    HOOKS,
    fire_card,
    fire_upgrades,
    modify_upgrades,
    upgrade_shares,
)
from engine.blood_rage.figures import figure_of_unit_in, movable_in, raise_stat
from engine.blood_rage.ids import FIG_UNIT, NUM_FIGS, Stat, Step
from engine.blood_rage.prompts import register_prompt
from engine.blood_rage.state import (
    EMPTY,
    Battle,
    GameState,
    GloryReason,
    Prompt,
    PromptKind,
    StatReason,
)

NO_CARD: Final = -2  # a participant with an empty hand plays nothing

# The step and the action kind the hot paths compare ints with, as plain ints: compiled (make
# accel), a Final int is a C constant, where comparing an int with an IntEnum member is a
# generic Python comparison.
_BATTLE_RESOLVE: Final = int(Step.BATTLE_RESOLVE)
_CALL_TO_BATTLE: Final = int(ActionKind.CALL_TO_BATTLE)


def present(state: GameState, seat: int, province: int) -> bool:
    """Has the clan a figure in the province or a ship in one of its supporting fjords?"""
    loc = state.clans[seat].loc
    fjords = SUPPORTING_FJORDS[province]
    for f in range(NUM_FIGS):
        where = loc[f]
        if where == province or where in fjords:
            return True
    return False


def begin(state: GameState, seat: int, province: int) -> None:
    state.battle = Battle(province, seat, state.players)
    if state.events is not None:  # events are built only for a game that records them
        state.emit(-1, {"type": "pillage_started", "seat": seat, "province": province})
    state.step = Step.CALL_TO_BATTLE_NEXT


# -- Call to Battle ----------------------------------------------------------------------


def call_options(state: GameState, seat: int, province: int) -> list[Action]:
    """One figure (not a ship) from an adjacent live province into the battle."""
    out: list[Action] = []
    for src in ADJACENT[province]:
        if not state.destroyed[src]:
            for unit in movable_in(state, seat, src):
                out.append(CALL_TABLE[src][unit])
    return out


def call_next(state: GameState) -> None:
    """Find the next seat able to answer the Call to Battle; skip those who cannot."""
    b = state.battle
    assert b is not None
    n = state.players
    while state.free_villages(b.province) > 0:
        if b.pos >= n:
            if not b.moved:
                break  # everyone declined in this round
            b.pos = 0
            b.moved = False
        if call_options(state, b.order[b.pos], b.province):
            state.step = Step.CALL_TO_BATTLE
            return
        b.pos += 1
    end_call(state)


def legal_call(state: GameState, seat: int) -> list[Action]:
    b = state.battle
    assert b is not None
    return [*call_options(state, seat, b.province), DECLINE]


def apply_call(state: GameState, seat: int, action: Action) -> None:
    b = state.battle
    assert b is not None
    if action[0] == _CALL_TO_BATTLE:
        state.move_figure(seat, figure_of_unit_in(state, seat, action[2], action[1]), b.province)
        b.moved = True
    b.pos += 1
    state.step = Step.CALL_TO_BATTLE_NEXT


def end_call(state: GameState) -> None:
    """Fix the participants; with no enemy there, the pillage succeeds without a battle."""
    b = state.battle
    assert b is not None
    n = state.players
    b.participants = [
        s for s in ((b.pillager + i) % n for i in range(n)) if present(state, s, b.province)
    ]
    for s in b.participants:
        for fig in state.figures_in_battle(s, b.province):
            if fig >= 10:
                b.monsters.append(s * 32 + FIG_UNIT[fig])
    if b.participants == [b.pillager]:
        _report_pillage(state, b, battle=False, success=True)
        pillage_success(state, b.pillager, b.province)
        state.step = Step.TURN_END
        return
    state.step = Step.BATTLE_CARDS_START


def took_part(b: Battle, seat: int, unit: int) -> bool:
    """Was this monster of the seat in the battle when the Call to Battle ended?"""
    return seat * 32 + unit in b.monsters


# -- Secret cards ------------------------------------------------------------------------


def cards_start(state: GameState) -> None:
    b = state.battle
    assert b is not None
    b.choice = [NO_CARD] * state.players
    b.revealed = False
    for s in b.participants:
        if state.clans[s].hand:
            b.choice[s] = EMPTY
    b.stage = 0
    b.cursor = 0
    state.step = Step.BATTLE_CARDS if EMPTY in b.choice else Step.BATTLE_RESOLVE


def awaiting_cards(state: GameState) -> list[int]:
    b = state.battle
    assert b is not None
    return [s for s in b.participants if b.choice[s] == EMPTY]


def legal_card(state: GameState, seat: int) -> list[Action]:
    table = CARD_ACTIONS[ActionKind.BATTLE_CARD]
    return [table[c] for c in state.clans[seat].hand]


def apply_card(state: GameState, seat: int, action: Action) -> None:
    """Commit a card face down; when every participant has, the battle resolves."""
    b = state.battle
    assert b is not None
    state.clans[seat].take_from_hand(action[1])
    b.choice[seat] = action[1]
    if state.events is not None:
        state.emit(seat, {"type": "battle_card_chosen", "seat": seat, "card": action[1]})
    if EMPTY not in b.choice:
        state.step = Step.BATTLE_RESOLVE


# -- Values ------------------------------------------------------------------------------


def base_value(state: GameState, seat: int, card: int) -> int:
    """+STR a revealed card adds before card texts: battle cards their value; a quest card
    what an upgrade makes of it (Tyr's Domain, Tyr's Wrath); anything else 0."""
    d = card_of(card)
    if d.type == CardType.BATTLE:
        return d.value
    if d.type == CardType.QUEST:
        return modify_upgrades(state, seat, "quest_battle_value", 0, quest=card)
    return 0


def card_value(state: GameState, seat: int, card: int) -> int:
    """+STR of a revealed card, its own text included unless cancelled (Heimdall's Sight)."""
    value = base_value(state, seat, card)
    b = state.battle
    table = HOOKS.get("battle_value")
    if table and b is not None and card not in b.cancelled:
        fn = table.get(card_of(card).key)
        if fn is not None:
            value = int(fn(state, seat, card, value))
    return value


def active_cards(b: Battle) -> list[tuple[int, int]]:
    """(seat, card) of every revealed card whose text is not cancelled, clockwise."""
    return [(s, c) for s in b.participants for c in b.played[s] if c not in b.cancelled]


# -- Resolution stages -------------------------------------------------------------------
# Each returns True when done; False when it stopped for a prompt (it is called again).


def stage_reveal(state: GameState, b: Battle) -> bool:
    """Reveal the committed cards (again after Heimdall's Watch).

    **Decision** (cards.md, Thor's Primacy and the Watch): a cancellation holds for the
    reveal it was made in. Primacy cancels the texts of the opponents' cards revealed with
    it; the Watch discards those cards, and a new reveal shows new ones, which no earlier
    cancellation touches: every reveal starts with none. (With the printed cards no game
    meets the question: Primacy cancels every opponent's Watch, and nobody reveals both.)
    """
    b.revealed = True
    b.reveals += 1
    b.cancelled = []
    for s in b.participants:
        if b.choice[s] >= 0:
            b.played[s].append(b.choice[s])
    if state.events is not None:
        state.emit(
            -1,
            {
                "type": "battle_revealed",
                "province": b.province,
                "cards": {s: list(b.played[s]) for s in b.participants},
            },
        )
    return True


def stage_late_cards(state: GameState, b: Battle) -> bool:
    """Late cards (Heimdall's Eye / Gaze): pillager first, round and round until none."""
    n = len(b.participants)
    while True:
        if b.cursor >= n:
            if not b.late_played:
                return True
            b.cursor = 0
            b.late_played = False
        seat = b.participants[b.cursor]
        b.cursor += 1
        if late_cards(state, seat):
            state.prompts.append(Prompt(PromptKind.LATE_CARD, seat))
            return False


def late_cards(state: GameState, seat: int) -> list[int]:
    return [c for c in state.clans[seat].hand if card_of(c).late]


def _legal_late(state: GameState, prompt: Prompt) -> list[Action]:
    cards = [Action(ActionKind.LATE_CARD, c) for c in late_cards(state, prompt.seat)]
    return [*cards, Action(ActionKind.DECLINE)]


def _apply_late(state: GameState, prompt: Prompt, action: Action) -> None:
    b = state.battle
    assert b is not None
    if action[0] == ActionKind.LATE_CARD:
        state.clans[prompt.seat].take_from_hand(action[1])
        b.played[prompt.seat].append(action[1])
        b.late_played = True
        state.emit(-1, {"type": "late_card", "seat": prompt.seat, "card": action[1]})


def _stage_for_moment(moment: str) -> Callable[[GameState, Battle], bool]:
    """A stage running one text moment for each active card, clockwise from the pillager,
    pausing whenever a text asked for a decision."""

    def stage(state: GameState, b: Battle) -> bool:
        table = HOOKS.get(moment, {})
        while True:
            cards = active_cards(b)
            if b.cursor >= len(cards) or state.step != _BATTLE_RESOLVE:
                return state.step == _BATTLE_RESOLVE
            seat, card = cards[b.cursor]
            b.cursor += 1
            if b.revealed and card_of(card).key in table and card not in b.cancelled:
                fire_card(state, seat, card, moment)
                if state.prompts or state.step != _BATTLE_RESOLVE:
                    return False

    stage.__name__ = f"stage_{moment}"
    return stage


def stage_compare(state: GameState, b: Battle) -> bool:
    best = -1
    winner = EMPTY
    for s in b.participants:
        total = state.strength_in(s, b.province) + sum(card_value(state, s, c) for c in b.played[s])
        b.totals[s] = total
        if total > best:
            best, winner = total, s
        elif total == best:
            winner = EMPTY  # a tie for the highest total: everyone loses
    b.winner = winner
    return True


def stage_destroy_losers(state: GameState, b: Battle) -> bool:
    victims = [
        (s, fig)
        for s in b.participants
        if s != b.winner
        for fig in state.figures_in_battle(s, b.province)
    ]
    doom(state, victims, Cause.BATTLE)
    return True


def stage_outcome(state: GameState, b: Battle) -> bool:
    """Texts that look at the outcome ("if you win", "if you lose"), clockwise from the
    pillager (cards.md: everything else resolves in that order); then every participant's
    after-battle upgrades and card texts. A revealed card's text acts even if another text
    (Loki's Poison) has already moved the card itself.

    The battle's outcome is reported first, once the losers' figures are gone (after any
    reaction to their destruction): with every figure the battle and its card texts
    destroyed."""
    if state.events is not None:
        state.emit(
            -1,
            {
                "type": "battle_resolved",
                "province": b.province,
                "winner": b.winner,
                "totals": {s: b.totals[s] for s in b.participants},
                "destroyed": [d[:] for d in b.destroyed],  # [seat, figure, area]
            },
        )
    texts = [(s, c) for s in b.participants for c in b.played[s] if c not in b.cancelled]
    for s, c in texts:
        fire_card(state, s, c, "on_win" if s == b.winner else "on_lose")
    for s in b.participants:
        fire_upgrades(state, s, "after_battle")
    for s, c in texts:
        fire_card(state, s, c, "after_battle")
    return True


def stage_pillage(state: GameState, b: Battle) -> bool:
    success = b.winner == b.pillager
    _report_pillage(state, b, battle=True, success=success)
    if success:
        pillage_success(state, b.pillager, b.province)
    return True


def _report_pillage(state: GameState, b: Battle, battle: bool, success: bool) -> None:
    """The pillage's event: unopposed (no battle, always a success) or after the battle."""
    if state.events is not None:  # events are built only for a game that records them
        state.emit(
            -1,
            {
                "type": "pillage",
                "seat": b.pillager,
                "province": b.province,
                "battle": battle,
                "success": success,
            },
        )


def stage_glory(state: GameState, b: Battle) -> bool:
    if b.winner >= 0:
        axes = state.clans[b.winner].axes
        state.gain_glory(b.winner, axes, GloryReason.BATTLE, area=b.province)
    return True


def stage_winner_keeps(state: GameState, b: Battle) -> bool:
    if b.winner >= 0:
        fire_upgrades(state, b.winner, "winner_keeps")
    return True


def stage_cards(state: GameState, b: Battle) -> bool:
    """Losers' texts that wait for the winner's Tyr's Prowess (``after_winner_keeps``:
    Loki's Trickery takes Rage from what Prowess left, cards.md ruling from seed 003); then
    the winner discards what it played and the losers take their cards back.

    Those texts fire here rather than in a stage of their own so that the stage numbers kept
    in snapshots of battles paused at a later prompt stay what they were.
    """
    if b.winner >= 0:
        for s in b.participants:
            if s != b.winner:
                for c in b.played[s]:
                    if c not in b.cancelled:
                        fire_card(state, s, c, "after_winner_keeps")
    for s in b.participants:
        if s == b.winner:
            state.discard.extend(b.played[s])
        else:
            state.clans[s].hand.extend(b.played[s])
        b.played[s] = []
    return True


def stage_after(state: GameState, b: Battle) -> bool:
    for s in b.participants:
        if s != b.winner:
            fire_upgrades(state, s, "after_lost_battle", province=b.province)
    return True


def stage_end(state: GameState, b: Battle) -> bool:
    state.step = Step.TURN_END
    return True


STAGES: Final[tuple[Callable[[GameState, Battle], bool], ...]] = (
    stage_reveal,
    stage_late_cards,
    _stage_for_moment("cancel"),
    _stage_for_moment("discard"),
    _stage_for_moment("before_compare"),
    stage_compare,
    stage_destroy_losers,
    stage_outcome,
    stage_pillage,
    stage_glory,
    stage_winner_keeps,
    stage_cards,
    stage_after,
    stage_end,
)


def resolve(state: GameState) -> None:
    """Run resolution stages until one waits for a decision or the battle is over."""
    b = state.battle
    assert b is not None
    while state.step == _BATTLE_RESOLVE and not state.prompts:
        if STAGES[b.stage](state, b):
            b.stage += 1
            b.cursor = 0


def pillage_success(state: GameState, seat: int, province: int) -> None:
    """Gain the token's reward, once more for each repeat an upgrade gives (the Frost Giant:
    twice in all), and flip the token. A repeated reward is the upgrade's doing (its Glory is
    reported as that card's)."""
    token = state.token[province]
    gain_reward(state, seat, token, province)
    times = 1
    for card, repeats in upgrade_shares(state, seat, "pillage_reward_times", 1, province=province):
        for _ in range(repeats):
            gain_reward(state, seat, token, province, card)
        times += repeats
    state.pillaged[province] = True
    state.emit(
        -1,
        {
            "type": "pillage_reward",
            "seat": seat,
            "province": province,
            "reward": TOKEN_NAMES[state.token[province]] if state.token[province] >= 0 else None,
            "times": times,
        },
    )
    b = state.battle
    if b is not None:
        for c in b.played[seat]:
            if c not in b.cancelled:
                fire_card(state, seat, c, "on_pillage_success", province=province)
    fire_upgrades(state, seat, "on_pillage_success", province=province)


def gain_reward(state: GameState, seat: int, token: int, province: int, card: int = EMPTY) -> None:
    """One pillage reward; ``card`` is the upgrade that gave it again, if one did."""
    why = StatReason.PILLAGE if card < 0 else StatReason.CARD
    if token == Token.ALL_STATS:
        for stat in (Stat.RAGE, Stat.AXES, Stat.HORNS):
            raise_stat(state, seat, stat, why, card=card, area=province)
    elif token == Token.GLORY5:
        reason = GloryReason.PILLAGE if card < 0 else GloryReason.CARD
        state.gain_glory(seat, TOKEN_GLORY, reason, card=card, area=province)
    elif token >= 0:  # RAGE=1 → stat 0, AXES → 1, HORNS → 2
        raise_stat(state, seat, token - 1, why, card=card, area=province)


register_prompt(PromptKind.LATE_CARD, _legal_late, _apply_late)
