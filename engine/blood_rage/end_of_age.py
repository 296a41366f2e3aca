"""Phases 3–6 and the end of the game: Discard, Quest, Ragnarök, Release Valhalla
(blood-rage.md §6–§10)."""

from __future__ import annotations

from typing import Final

from engine.blood_rage.actions import KEEP_ACTIONS, KEEP_NONE, Action, ActionKind
from engine.blood_rage.board import (
    END_GAME_BONUS,
    LAST_STEP,
    RAGNAROK_GLORY,
    REGION_PROVINCES,
    Region,
)
from engine.blood_rage.cards import QuestKind, card_of
from engine.blood_rage.destruction import destroy
from engine.blood_rage.effects import HOOKS, fire_upgrades, upgrade_shares
from engine.blood_rage.figures import raise_stat
from engine.blood_rage.ids import PROVINCES, RESERVE, VALHALLA, Area, Phase, Step
from engine.blood_rage.prompts import register_prompt
from engine.blood_rage.state import (
    EMPTY,
    ClanState,
    GameState,
    GloryReason,
    Prompt,
    PromptKind,
    StatReason,
)

KEEP_OPEN: Final = EMPTY  # the seat has yet to choose
KEEP_NOTHING: Final = -2


# -- Discard ---------------------------------------------------------------------------


def discard_start(state: GameState) -> None:
    state.phase = Phase.DISCARD
    state.emit(-1, {"type": "phase", "age": state.age, "phase": "discard"})
    if state.age == 3:  # nothing is kept after the last Age
        for c in state.clans:
            state.unseen.extend(c.hand)
            c.hand.clear()
            c.kept = EMPTY
        state.step = Step.QUEST_START
        return
    state.keep = [KEEP_OPEN if c.hand else KEEP_NOTHING for c in state.clans]
    state.step = Step.DISCARD if KEEP_OPEN in state.keep else Step.QUEST_START


def awaiting_keep(state: GameState) -> list[int]:
    return [s for s in range(state.players) if state.keep[s] == KEEP_OPEN]


def legal_keep(state: GameState, seat: int) -> list[Action]:
    out = [KEEP_ACTIONS[c] for c in state.clans[seat].hand]
    out.append(KEEP_NONE)
    return out


def apply_keep(state: GameState, seat: int, action: Action) -> None:
    """Choose in secret; once all have chosen, every other card leaves face down.

    Decision: discarded hands go to the unseen pile — §11 lists no Discard-phase cards as
    public, so nobody learns what the others threw away.

    Decision: the kept card is marked (``ClanState.kept``) only once every choice has taken
    effect: until then, whether a seat keeps a card at all is its secret.
    """
    state.keep[seat] = action[1] if action[0] == ActionKind.KEEP_CARD else KEEP_NOTHING
    state.emit(seat, {"type": "kept", "seat": seat, "card": state.keep[seat]})
    if KEEP_OPEN in state.keep:
        return
    for s, c in enumerate(state.clans):
        kept = state.keep[s]
        for card in c.hand:
            if card != kept:
                state.unseen.append(card)
        c.hand = [kept] if kept >= 0 else []
        c.kept = kept if kept >= 0 else EMPTY
    state.keep = [EMPTY] * state.players
    state.step = Step.QUEST_START


# -- Quest -----------------------------------------------------------------------------


def has_most_strength(state: GameState, seat: int, province: int) -> bool:
    """Strictly more STR than every other clan there (fjords count); zero never qualifies."""
    mine = state.strength_in(seat, province)
    if mine <= 0:
        return False
    return all(state.strength_in(o, province) < mine for o in range(state.players) if o != seat)


def quest_fulfilled(state: GameState, seat: int, kind: QuestKind) -> bool:
    if kind == QuestKind.GLORIOUS_DEATH:
        return sum(1 for x in state.clans[seat].loc if x == VALHALLA) >= 4
    if kind == QuestKind.YGGDRASIL:
        return has_most_strength(state, seat, Area.YGGDRASIL)
    if kind == QuestKind.WIDESPREAD:
        return sum(1 for p in PROVINCES if has_most_strength(state, seat, p)) >= 2
    region = {
        QuestKind.ALFHEIM: Region.ALFHEIM,
        QuestKind.JOTUNHEIM: Region.JOTUNHEIM,
        QuestKind.MANHEIM: Region.MANHEIM,
    }[kind]
    return any(has_most_strength(state, seat, p) for p in REGION_PROVINCES[region])


def quest_start(state: GameState) -> None:
    """Reveal every committed quest, first player first; successes ask for a stat.

    Every quest is revealed (one event each, together) before any Glory is scored, so that
    the reveal reads as one; whether a quest is fulfilled depends on the board only."""
    state.phase = Phase.QUEST
    state.emit(-1, {"type": "phase", "age": state.age, "phase": "quest"})
    n = state.players
    fulfilled: list[tuple[int, int, list[tuple[int, int]]]] = []
    for i in range(n):
        seat = (state.first_player + i) % n
        clan = state.clans[seat]
        for card in clan.quests:
            d = card_of(card)
            ok = quest_fulfilled(state, seat, d.quest)
            glory = 0
            if ok:  # the printed Glory, and what upgrades add to it (Odin's Throne)
                shares = upgrade_shares(state, seat, "quest_glory", d.value, quest=card)
                fulfilled.append((seat, card, shares))
                glory = d.value + sum(extra for _, extra in shares)
            state.emit(
                -1, {"type": "quest", "seat": seat, "card": card, "success": ok, "glory": glory}
            )
            state.discard.append(card)
        clan.quests = []
    for seat, card, shares in fulfilled:
        state.gain_glory(seat, card_of(card).value, GloryReason.QUEST, card=card)
        for upgrade, extra in shares:
            state.gain_glory(seat, extra, GloryReason.CARD, card=upgrade)
        if min(state.clans[seat].steps) < LAST_STEP:
            state.prompts.append(Prompt(PromptKind.QUEST_STAT, seat))
    state.step = Step.RAGNAROK


def legal_raise_stat(state: GameState, prompt: Prompt) -> list[Action]:
    """Any stat (a RAISE_STAT prompt may exclude one: ``prompt.a``)."""
    excluded = prompt.a if prompt.kind == PromptKind.RAISE_STAT else -1
    return [Action(ActionKind.RAISE_STAT, s) for s in range(3) if s != excluded]


def apply_raise_stat(state: GameState, prompt: Prompt, action: Action) -> None:
    """A quest's step, or one a card's text gives (which card is not kept with the prompt:
    the state's hash covers prompts, and stored games must keep theirs)."""
    reason = StatReason.QUEST if prompt.kind == PromptKind.QUEST_STAT else StatReason.CARD
    raise_stat(state, prompt.seat, action[1], reason)


register_prompt(PromptKind.QUEST_STAT, legal_raise_stat, apply_raise_stat)
register_prompt(PromptKind.RAISE_STAT, legal_raise_stat, apply_raise_stat)


# -- Ragnarök, Release Valhalla, end of Age and game -----------------------------------


def ragnarok(state: GameState) -> None:
    """This Age's province is about to be destroyed: figures that may flee do so first."""
    state.phase = Phase.RAGNAROK
    state.emit(-1, {"type": "phase", "age": state.age, "phase": "ragnarok"})
    province = state.ragnarok[state.age - 1]
    for seat in range(state.players):
        fire_upgrades(state, seat, "before_ragnarok", province=province)
    state.step = Step.RAGNAROK_DESTROY


def ragnarok_destroy(state: GameState) -> None:
    """Destroy the province: its figures and its fjords' ships die for Glory (§8). The event
    that names every figure comes first, then what their deaths cause (Glory, Dragons)."""
    province = state.ragnarok[state.age - 1]
    per_figure = RAGNAROK_GLORY[state.age]
    victims = [state.figures_in_battle(seat, province) for seat in range(state.players)]
    state.emit(
        -1,
        {
            "type": "ragnarok",
            "age": state.age,
            "province": province,
            "deaths": {seat: len(figs) for seat, figs in enumerate(victims) if figs},
            "destroyed": [  # [seat, figure, the area it was in]
                [seat, fig, state.clans[seat].loc[fig]]
                for seat, figs in enumerate(victims)
                for fig in figs
            ],
        },
    )
    for seat, figs in enumerate(victims):
        for fig in figs:
            destroy(state, seat, fig)
        if figs:
            glory = per_figure * len(figs)
            state.gain_glory(seat, glory, GloryReason.RAGNAROK, area=province)
            for card, extra in upgrade_shares(state, seat, "ragnarok_glory", glory):
                state.gain_glory(seat, extra, GloryReason.CARD, card=card, area=province)
    state.destroyed[province] = True
    state.token[province] = EMPTY
    state.pillaged[province] = False
    state.step = Step.RELEASE_VALHALLA


def release(state: GameState) -> None:
    state.phase = Phase.RELEASE_VALHALLA
    state.emit(-1, {"type": "phase", "age": state.age, "phase": "release_valhalla"})
    released = [0] * state.players
    for seat, clan in enumerate(state.clans):
        count = 0
        for fig, where in enumerate(clan.loc):
            if where == VALHALLA:
                clan.loc[fig] = RESERVE
                count += 1
        released[seat] = count
        if count:
            fire_upgrades(state, seat, "on_release", count=count)
    state.emit(-1, {"type": "release", "age": state.age, "released": released})
    state.step = Step.AGE_END


def age_end(state: GameState) -> None:
    if state.age == 3:
        game_end(state)
        return
    state.pillaged = [False] * 9
    state.first_player = (state.first_player + 1) % state.players
    state.age += 1
    state.step = Step.DRAFT_DEAL


def game_end(state: GameState) -> None:
    """End-game effects, then +10 for a stat on its 4th/5th step, +20 on its last."""
    for seat, clan in enumerate(state.clans):
        fire_upgrades(state, seat, "end_of_game")
        for stat, step in enumerate(clan.steps):
            state.gain_glory(seat, END_GAME_BONUS[step], GloryReason.END_GAME, stat=stat)
    state.phase = Phase.GAME_OVER
    state.step = Step.GAME_OVER
    state.emit(-1, {"type": "game_over", "glory": [c.glory for c in state.clans]})


def end_stat_bonus(clan: ClanState) -> int:
    """The Glory a clan's stats give at the end of the game (§10)."""
    return sum(END_GAME_BONUS[step] for step in clan.steps)


def end_card_bonus(state: GameState, seat: int) -> int:
    """The Glory a clan's end-of-game card texts gave (Thor's Conquest, and any other), 0
    before the game is over. Worked out again from the final position, on a copy: those texts
    read the board, which nothing changes after them, and they only add Glory."""
    table = HOOKS.get("end_of_game", {})
    if state.step != Step.GAME_OVER or not any(
        inst >= 0 and card_of(inst).key in table for inst in state.clans[seat].slots
    ):
        return 0
    probe = state.copy()
    before = probe.clans[seat].glory
    fire_upgrades(probe, seat, "end_of_game")
    return probe.clans[seat].glory - before
