"""Pillage: Call to Battle, secret battle cards, resolution (blood-rage.md §5, Pillage).

A battle runs through steps: CALL_TO_BATTLE_NEXT finds who may answer the call next,
CALL_TO_BATTLE waits for that seat, BATTLE_CARDS_START asks every participant holding cards
for one card at once, BATTLE_CARDS waits for all of them, BATTLE_RESOLVE reveals and resolves.
"""

from __future__ import annotations

from engine.actions import Action, ActionKind
from engine.board import ADJACENT, SUPPORTING_FJORDS, TOKEN_GLORY, Token
from engine.cards import CardType, card_of
from engine.effects import fire_card, fire_upgrades
from engine.figures import destroy, figure_of_unit_in, movable_in, raise_stat
from engine.ids import NUM_FIGS, Stat, Step
from engine.state import EMPTY, Battle, GameState

NO_CARD = -2  # a participant with an empty hand plays nothing


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
    state.step = Step.CALL_TO_BATTLE_NEXT


def call_options(state: GameState, seat: int, province: int) -> list[Action]:
    """One figure (not a ship) from an adjacent live province into the battle."""
    out: list[Action] = []
    for src in ADJACENT[province]:
        if not state.destroyed[src]:
            for unit in movable_in(state, seat, src):
                out.append(Action(ActionKind.CALL_TO_BATTLE, src, unit))
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
    return [*call_options(state, seat, b.province), Action(ActionKind.DECLINE)]


def apply_call(state: GameState, seat: int, action: Action) -> None:
    b = state.battle
    assert b is not None
    if action[0] == ActionKind.CALL_TO_BATTLE:
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
    if b.participants == [b.pillager]:
        state.emit(
            -1,
            {
                "type": "pillage",
                "seat": b.pillager,
                "province": b.province,
                "battle": False,
                "success": True,
            },
        )
        pillage_success(state, b.pillager, b.province)
        state.step = Step.TURN_END
        return
    state.step = Step.BATTLE_CARDS_START


def cards_start(state: GameState) -> None:
    b = state.battle
    assert b is not None
    b.choice = [NO_CARD] * state.players
    for s in b.participants:
        if state.clans[s].hand:
            b.choice[s] = EMPTY
    state.step = Step.BATTLE_CARDS if EMPTY in b.choice else Step.BATTLE_RESOLVE


def awaiting_cards(state: GameState) -> list[int]:
    b = state.battle
    assert b is not None
    return [s for s in b.participants if b.choice[s] == EMPTY]


def legal_card(state: GameState, seat: int) -> list[Action]:
    return [Action(ActionKind.BATTLE_CARD, c) for c in state.clans[seat].hand]


def apply_card(state: GameState, seat: int, action: Action) -> None:
    """Commit a card face down; when every participant has, the battle resolves."""
    b = state.battle
    assert b is not None
    state.clans[seat].hand.remove(action[1])
    b.choice[seat] = action[1]
    state.emit(seat, {"type": "battle_card_chosen", "seat": seat, "card": action[1]})
    if EMPTY not in b.choice:
        state.step = Step.BATTLE_RESOLVE


def card_strength(state: GameState, seat: int, card: int) -> int:
    """+STR a revealed card adds: battle cards their value; quests and upgrades nothing."""
    if card < 0:
        return 0
    d = card_of(card)
    return d.value if d.type == CardType.BATTLE else 0


def resolve(state: GameState) -> None:
    """Reveal, compare, destroy the losers, reward the pillager, Glory to the winner."""
    b = state.battle
    assert b is not None
    b.revealed = True
    state.emit(
        -1,
        {
            "type": "battle_revealed",
            "province": b.province,
            "cards": {s: b.choice[s] for s in b.participants},
        },
    )
    for s in b.participants:
        if b.choice[s] >= 0:
            fire_card(state, s, b.choice[s], "on_reveal")
    for s in b.participants:
        if b.choice[s] >= 0:
            fire_card(state, s, b.choice[s], "before_compare")
    best = -1
    winner = EMPTY
    for s in b.participants:
        total = state.strength_in(s, b.province) + card_strength(state, s, b.choice[s])
        b.totals[s] = total
        if total > best:
            best, winner = total, s
        elif total == best:
            winner = EMPTY  # a tie for the highest total: everyone loses
    b.winner = winner
    losers = [s for s in b.participants if s != winner]
    destroyed: list[tuple[int, int]] = []
    for s in losers:
        for fig in state.figures_in_battle(s, b.province):
            destroy(state, s, fig)
            destroyed.append((s, fig))
    for s in b.participants:
        card = b.choice[s]
        if card >= 0:
            if s == winner:
                state.discard.append(card)
            else:
                state.clans[s].hand.append(card)
    state.emit(
        -1,
        {
            "type": "battle_resolved",
            "province": b.province,
            "winner": winner,
            "totals": {s: b.totals[s] for s in b.participants},
            "destroyed": destroyed,
        },
    )
    if winner >= 0:
        win_card = b.choice[winner]
        if win_card >= 0:
            fire_card(state, winner, win_card, "on_win")
        fire_upgrades(state, winner, "on_win")
    for s in losers:
        if b.choice[s] >= 0:
            fire_card(state, s, b.choice[s], "on_lose")
        fire_upgrades(state, s, "on_lose")
    success = winner == b.pillager
    state.emit(
        -1,
        {
            "type": "pillage",
            "seat": b.pillager,
            "province": b.province,
            "battle": True,
            "success": success,
        },
    )
    if success:
        pillage_success(state, b.pillager, b.province)
    if winner >= 0:
        state.clans[winner].glory += state.clans[winner].axes
    state.step = Step.TURN_END


def pillage_success(state: GameState, seat: int, province: int) -> None:
    """Gain the token's reward and flip it to its pillaged side."""
    token = state.token[province]
    if token == Token.ALL_STATS:
        for stat in (Stat.RAGE, Stat.AXES, Stat.HORNS):
            raise_stat(state, seat, stat)
    elif token == Token.GLORY5:
        state.clans[seat].glory += TOKEN_GLORY
    elif token >= 0:
        raise_stat(state, seat, token - 1)  # RAGE=1 → stat 0, AXES → 1, HORNS → 2
    state.pillaged[province] = True
    fire_upgrades(state, seat, "on_pillage_success", province=province)
