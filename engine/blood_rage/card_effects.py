"""Every card text of ``shared/rules/cards.md``, as small functions keyed by card key.

Each function is registered for the moment it acts at (see ``engine.blood_rage.effects`` for the
moments); decisions a text creates are prompts registered here too, so the phase machine
knows no card by name. Decisions taken where cards.md is silent are marked **Decision**.
"""

from __future__ import annotations

from engine.blood_rage import battle
from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.board import ADJACENT, SUPPORTING_FJORDS, Token
from engine.blood_rage.cards import card_of
from engine.blood_rage.destruction import Cause, destroy, doom, report_destroyed
from engine.blood_rage.effects import register
from engine.blood_rage.figures import (
    can_invade_more,
    figure_of_unit_in,
    invade,
    invade_targets,
    raise_stat,
    reserve_figure,
)
from engine.blood_rage.ids import (
    FIG_LEADER,
    FIG_UNIT,
    FIG_WARRIORS,
    NUM_AREAS,
    NUM_FIGS,
    OUTER_PROVINCES,
    PROVINCES,
    VALHALLA,
    Area,
    Step,
    Unit,
    monster_fig,
)
from engine.blood_rage.prompts import register_action, register_prompt
from engine.blood_rage.state import (
    EMPTY,
    Battle,
    GameState,
    GloryReason,
    Prompt,
    PromptKind,
    StatReason,
    is_ship,
)

# The Rage a card's choice costs (cards.md); ``engine.blood_rage.choices`` reports them too.
PROTECTION_RAGE = 1  # Frigga's Protection: save one doomed figure
PROWESS_RAGE = 1  # Tyr's Prowess: keep one revealed card
THORS_DOMAIN_RAGE = 2  # Thor's Domain: pillage the invaded province at once
CHALLENGE_RAGE = 2  # Tyr's Challenge: pillage a province again
VALHALLA_INVADE_RAGE = 1  # Frigga's Domain: invade from Valhalla (instead of the usual cost)

# -- helpers -----------------------------------------------------------------------------


def _battle(state: GameState) -> Battle:
    b = state.battle
    assert b is not None, "a battle effect outside a battle"
    return b


def _enemy_kills(b: Battle, seat: int) -> int:
    return sum(k for s, k in enumerate(b.killed) if s != seat)


def _battle_glory(state: GameState, seat: int, card: int, glory: int) -> None:
    """Glory a card's text gives in a battle (reported with the battle's province)."""
    state.gain_glory(seat, glory, GloryReason.CARD, card=card, area=_battle(state).province)


def _ask_stat(state: GameState, seat: int, excluded: int = EMPTY) -> None:
    state.prompts.append(Prompt(PromptKind.RAISE_STAT, seat, excluded))


def _figures_choice(state: GameState, seat: int, figs: list[int], kind: int) -> list[Action]:
    """One action per distinct (unit, area) among the figures (warriors are alike)."""
    loc = state.clans[seat].loc
    seen: list[Action] = []
    for f in figs:
        a = Action(kind, FIG_UNIT[f], loc[f])
        if a not in seen:
            seen.append(a)
    return seen


def _figure_at(state: GameState, seat: int, unit: int, area: int, among: list[int]) -> int:
    loc = state.clans[seat].loc
    for f in among:
        if FIG_UNIT[f] == unit and loc[f] == area:
            return f
    raise AssertionError("no such figure")


# -- Monsters ----------------------------------------------------------------------------


@register("on_invade", "troll")
def _troll(state: GameState, seat: int, card: int, fig: int, area: int, source: str) -> None:
    """Troll: when it invades a province, every enemy warrior there is destroyed."""
    if fig == monster_fig(Unit.TROLL) and area < 9:
        victims = [
            (s, f)
            for s in range(state.players)
            if s != seat
            for f in FIG_WARRIORS
            if state.clans[s].loc[f] == area
        ]
        doom(state, victims, Cause.EFFECT, card)


@register("on_invade", "fire_giant")
def _fire_giant(state: GameState, seat: int, card: int, fig: int, area: int, source: str) -> None:
    """Fire Giant: every enemy non-monster figure in the province dies, ships in its fjords
    included (board.md decision)."""
    if fig == monster_fig(Unit.FIRE_GIANT) and area < 9:
        reach = (area, *SUPPORTING_FJORDS[area])
        victims = [
            (s, f)
            for s in range(state.players)
            if s != seat
            for f in range(10)  # leader, warriors, ship: the non-monster figures
            if state.clans[s].loc[f] in reach
        ]
        doom(state, victims, Cause.EFFECT, card)


@register("after_battle", "valkyrie")
def _valkyrie(state: GameState, seat: int, card: int) -> None:
    """Valkyrie: 2 Glory per enemy figure destroyed in a battle she took part in."""
    b = _battle(state)
    if battle.took_part(b, seat, Unit.VALKYRIE):
        _battle_glory(state, seat, card, 2 * _enemy_kills(b, seat))


@register("on_doomed", "volur_witch")
def _witch_doomed(state: GameState, seat: int, card: int, cause: Cause) -> None:
    witch = monster_fig(Unit.VOLUR_WITCH)
    if (seat, witch) in state.doomed and state.clans[seat].loc[witch] in OUTER_PROVINCES:
        state.prompts.append(Prompt(PromptKind.WITCH_RETREAT, seat))


@register("before_ragnarok", "volur_witch")
def _witch_ragnarok(state: GameState, seat: int, card: int, province: int) -> None:
    """Volur Witch: Ragnarök would destroy her in an outer province; she may retreat."""
    if state.clans[seat].loc[monster_fig(Unit.VOLUR_WITCH)] == province:
        state.prompts.append(Prompt(PromptKind.WITCH_RETREAT, seat, 0, 1))


def _legal_yes_no(state: GameState, prompt: Prompt) -> list[Action]:
    return [Action(ActionKind.ACCEPT), Action(ActionKind.DECLINE)]


def _apply_witch(state: GameState, prompt: Prompt, action: Action) -> None:
    witch = monster_fig(Unit.VOLUR_WITCH)
    doomed = (prompt.seat, witch) in state.doomed
    if action[0] != ActionKind.ACCEPT or not (doomed or prompt.b == 1):
        return
    if doomed:
        state.doomed.remove((prompt.seat, witch))
    origin = state.clans[prompt.seat].loc[witch]
    state.move_figure(prompt.seat, witch, Area.YGGDRASIL)
    state.emit(
        -1,
        {
            "type": "witch_retreat",
            "seat": prompt.seat,
            "unit": int(Unit.VOLUR_WITCH),
            "from": origin,
            "to": int(Area.YGGDRASIL),
            "card": upgrade_of(state, prompt.seat, "volur_witch"),
        },
    )


@register("pillage_reward_times", "frost_giant")
def _frost_giant(state: GameState, seat: int, card: int, value: int, province: int) -> int:
    """Frost Giant: the pillage reward twice if it is in the pillaged province."""
    here = state.clans[seat].loc[monster_fig(Unit.FROST_GIANT)] == province
    return value * 2 if here else value


# -- Leader upgrades: after a successful pillage with the leader in it --------------------


def _leader_there(state: GameState, seat: int, province: int) -> bool:
    return state.clans[seat].loc[FIG_LEADER] == province


def _leader_moves(state: GameState, seat: int) -> list[int]:
    here = state.clans[seat].loc[FIG_LEADER]
    if here >= 9:
        return []
    return [p for p in ADJACENT[here] if not state.destroyed[p] and state.free_villages(p) > 0]


@register("on_pillage_success", "lord_of_hammers")
def _lord_of_hammers(state: GameState, seat: int, card: int, province: int) -> None:
    if _leader_there(state, seat, province) and _leader_moves(state, seat):
        state.prompts.append(Prompt(PromptKind.MOVE_LEADER, seat))


def _legal_move_leader(state: GameState, prompt: Prompt) -> list[Action]:
    moves = [Action(ActionKind.MOVE_LEADER, p) for p in _leader_moves(state, prompt.seat)]
    return [*moves, Action(ActionKind.DECLINE)]


def _apply_move_leader(state: GameState, prompt: Prompt, action: Action) -> None:
    if action[0] == ActionKind.MOVE_LEADER:
        state.move_figure(prompt.seat, FIG_LEADER, action[1])


@register("on_pillage_success", "lord_of_axes")
def _lord_of_axes(state: GameState, seat: int, card: int, province: int) -> None:
    if _leader_there(state, seat, province):
        _ask_stat(state, seat)


@register("on_pillage_success", "lord_of_spears")
def _lord_of_spears(state: GameState, seat: int, card: int, province: int) -> None:
    if _leader_there(state, seat, province):
        for stat in range(3):
            raise_stat(state, seat, stat, StatReason.CARD, card=card, area=province)


# -- Ship upgrades -----------------------------------------------------------------------

_DRAGON_GLORY = {"lokis_dragons": 4, "fire_dragons": 8, "eternal_dragons": 12}


@register("on_destroyed", *_DRAGON_GLORY)
def _dragons(state: GameState, seat: int, card: int, fig: int, area: int) -> None:
    """Dragons: Glory whenever a ship of yours (the Sea Serpent too) is destroyed."""
    if is_ship(fig):
        glory = _DRAGON_GLORY[card_of(card).key]
        state.gain_glory(seat, glory, GloryReason.CARD, card=card, area=area)


# -- Clan upgrades -----------------------------------------------------------------------

_RELEASE_GLORY = {"lokis_domain": 1, "lokis_eminence": 2, "lokis_wrath": 3}


@register("on_release", *_RELEASE_GLORY)
def _loki_release(state: GameState, seat: int, card: int, count: int) -> None:
    glory = _RELEASE_GLORY[card_of(card).key] * count
    state.gain_glory(seat, glory, GloryReason.CARD, card=card)


@register("upgrade_cost", "friggas_charm")
def _friggas_charm(state: GameState, seat: int, card: int, value: int, **_: object) -> int:
    return value - 1


@register("after_battle", "thors_glory")
def _thors_glory(state: GameState, seat: int, card: int) -> None:
    if _enemy_kills(_battle(state), seat) >= 2:
        _battle_glory(state, seat, card, 2)


def _free_warrior_possible(state: GameState, seat: int, province: int) -> bool:
    return (
        province < 9
        and not state.destroyed[province]
        and state.free_villages(province) > 0
        and reserve_figure(state, seat, Unit.WARRIOR) >= 0
        and can_invade_more(state, seat)
    )


@register("on_invade", "friggas_succor")
def _friggas_succor(
    state: GameState, seat: int, card: int, fig: int, area: int, source: str
) -> None:
    """Frigga's Succor: a free warrior follows any invade into a province.

    **Decision**: the warrior Succor brings does not trigger Succor again.
    """
    if source != "succor" and _free_warrior_possible(state, seat, area):
        state.prompts.append(Prompt(PromptKind.SUCCOR, seat, area))


def _legal_free_warrior(state: GameState, prompt: Prompt) -> list[Action]:
    out = [Action(ActionKind.DECLINE)]
    if _free_warrior_possible(state, prompt.seat, prompt.a):
        out.insert(0, Action(ActionKind.FREE_INVADE, Unit.WARRIOR, prompt.a))
    return out


def _apply_free_warrior(state: GameState, prompt: Prompt, action: Action) -> None:
    if action[0] == ActionKind.FREE_INVADE:
        source = "succor" if prompt.kind == PromptKind.SUCCOR else "battle"
        fig = reserve_figure(state, prompt.seat, Unit.WARRIOR)
        invade(state, prompt.seat, fig, prompt.a, source)


_QUEST_AS_BATTLE = {"tyrs_domain": 3, "tyrs_wrath": 5}


@register("quest_battle_value", *_QUEST_AS_BATTLE)
def _tyr_quest_value(state: GameState, seat: int, card: int, value: int, **_: object) -> int:
    """Tyr's Domain / Wrath: a quest card revealed in battle counts as a +3 / +5 card.
    **Decision**: with both, the better one counts (a card counts once)."""
    return max(value, _QUEST_AS_BATTLE[card_of(card).key])


@register("after_lost_battle", "lokis_blessing")
def _lokis_blessing(state: GameState, seat: int, card: int, province: int) -> None:
    if _free_warrior_possible(state, seat, province):
        state.prompts.append(Prompt(PromptKind.BLESSING, seat, province))


@register("ragnarok_glory", "odins_inspiration")
def _odins_inspiration(state: GameState, seat: int, card: int, value: int, **_: object) -> int:
    return value * 2


@register("extra_actions", "tyrs_challenge")
def _tyrs_challenge_actions(state: GameState, seat: int, card: int) -> list[Action]:
    """Tyr's Challenge: for 2 Rage, pillage a province already pillaged this Age."""
    if state.clans[seat].rage < CHALLENGE_RAGE:
        return []
    return [
        Action(ActionKind.CHALLENGE, p)
        for p in PROVINCES
        if state.pillaged[p] and not state.destroyed[p] and battle.present(state, seat, p)
    ]


def _apply_challenge(state: GameState, seat: int, action: Action) -> None:
    state.clans[seat].rage -= CHALLENGE_RAGE
    battle.begin(state, seat, action[1])


@register("on_doomed", "friggas_protection")
def _friggas_protection(state: GameState, seat: int, card: int, cause: Cause) -> None:
    """Frigga's Protection: pay 1 Rage to save one of the figures about to die.

    **Decision**: offered once per destruction by a battle or an enemy effect; not against
    Ragnarök or the owner's own choices (Odin's Tide, Frigga's Sacrifice).
    """
    if cause in (Cause.BATTLE, Cause.EFFECT) and state.clans[seat].rage >= PROTECTION_RAGE:
        state.prompts.append(Prompt(PromptKind.PROTECT, seat))


def _doomed_figs(state: GameState, seat: int) -> list[int]:
    return [f for s, f in state.doomed if s == seat]


def _legal_protect(state: GameState, prompt: Prompt) -> list[Action]:
    can_pay = state.clans[prompt.seat].rage >= PROTECTION_RAGE
    figs = _doomed_figs(state, prompt.seat) if can_pay else []
    return [
        *_figures_choice(state, prompt.seat, figs, ActionKind.SAVE_FIGURE),
        Action(ActionKind.DECLINE),
    ]


def _apply_protect(state: GameState, prompt: Prompt, action: Action) -> None:
    if action[0] == ActionKind.SAVE_FIGURE:
        fig = _figure_at(state, prompt.seat, action[1], action[2], _doomed_figs(state, prompt.seat))
        state.doomed.remove((prompt.seat, fig))
        state.clans[prompt.seat].rage -= PROTECTION_RAGE
        state.emit(
            -1,
            {
                "type": "figure_saved",
                "seat": prompt.seat,
                "unit": action[1],
                "area": action[2],
                "card": upgrade_of(state, prompt.seat, "friggas_protection"),
            },
        )


@register("winner_keeps", "tyrs_prowess")
def _tyrs_prowess(state: GameState, seat: int, card: int) -> None:
    if state.clans[seat].rage >= PROWESS_RAGE and _battle(state).played[seat]:
        state.prompts.append(Prompt(PromptKind.PROWESS, seat))


def _legal_prowess(state: GameState, prompt: Prompt) -> list[Action]:
    b = _battle(state)
    keep = [Action(ActionKind.KEEP_REVEALED, c) for c in b.played[prompt.seat]]
    return [*keep, Action(ActionKind.DECLINE)]


def _apply_prowess(state: GameState, prompt: Prompt, action: Action) -> None:
    if action[0] != ActionKind.KEEP_REVEALED:
        return
    b = _battle(state)
    b.played[prompt.seat].remove(action[1])
    state.clans[prompt.seat].hand.append(action[1])
    state.clans[prompt.seat].rage -= PROWESS_RAGE
    _tyrs_prowess(state, prompt.seat, EMPTY)  # offer the next card while Rage lasts


@register("on_invade", "thors_domain")
def _thors_domain(state: GameState, seat: int, card: int, fig: int, area: int, source: str) -> None:
    """Thor's Domain: after invading a province, pay 2 Rage to pillage it at once.

    **Decision**: only for invades on the clan's own turn, outside a battle (a battle cannot
    start inside another); not for Frigga's Succor's warrior, which follows an invade that
    was offered the pillage already (a second offer would pillage the province twice at once,
    or ask 2 Rage for nothing once the first took them).
    """
    if (
        source == "turn"
        and state.battle is None
        and area < 9
        and not state.destroyed[area]
        and not state.pillaged[area]
        and state.clans[seat].rage >= THORS_DOMAIN_RAGE
    ):
        state.prompts.append(Prompt(PromptKind.THORS_DOMAIN, seat, area))


def _apply_thors_domain(state: GameState, prompt: Prompt, action: Action) -> None:
    if action[0] == ActionKind.ACCEPT and state.clans[prompt.seat].rage >= THORS_DOMAIN_RAGE:
        state.clans[prompt.seat].rage -= THORS_DOMAIN_RAGE
        battle.begin(state, prompt.seat, prompt.a)


@register("extra_actions", "friggas_domain")
def _friggas_domain_actions(state: GameState, seat: int, card: int) -> list[Action]:
    """Frigga's Domain: as an invade, 1 Rage brings a figure back from Valhalla."""
    clan = state.clans[seat]
    if clan.rage < VALHALLA_INVADE_RAGE or not can_invade_more(state, seat):
        return []
    units: list[int] = []
    for f in range(NUM_FIGS):
        if clan.loc[f] == VALHALLA and FIG_UNIT[f] not in units:
            units.append(FIG_UNIT[f])
    return [
        Action(ActionKind.INVADE_FROM_VALHALLA, u, area)
        for u in units
        for area in invade_targets(state, u)
    ]


def _apply_friggas_domain(state: GameState, seat: int, action: Action) -> None:
    state.clans[seat].rage -= VALHALLA_INVADE_RAGE  # replaces the usual cost (cards.md ruling)
    invade(state, seat, figure_of_unit_in(state, seat, action[1], VALHALLA), action[2])


@register("quest_glory", "odins_throne")
def _odins_throne(state: GameState, seat: int, card: int, value: int, **kw: int) -> int:
    """Odin's Throne: double the quest's printed Glory (not the stat step)."""
    return value + card_of(kw["quest"]).value


@register("end_of_game", "thors_conquest")
def _thors_conquest(state: GameState, seat: int, card: int) -> None:
    glory = 3 * state.clans[seat].on_board()
    state.gain_glory(seat, glory, GloryReason.CARD, card=card)


def upgrade_of(state: GameState, seat: int, key: str) -> int:
    """The instance of the upgrade with that key on the clan's sheet (EMPTY if none)."""
    for inst in state.clans[seat].slots:
        if inst >= 0 and card_of(inst).key == key:
            return inst
    return EMPTY


def _board_figs(state: GameState, seat: int) -> list[int]:
    loc = state.clans[seat].loc
    return [f for f in range(NUM_FIGS) if loc[f] < NUM_AREAS]


@register("extra_actions", "friggas_sacrifice")
def _friggas_sacrifice_actions(state: GameState, seat: int, card: int) -> list[Action]:
    """Frigga's Sacrifice: as an action, destroy 2 of your figures to raise a stat by 1."""
    figs = _board_figs(state, seat)
    if len(figs) < 2:
        return []
    return _figures_choice(state, seat, figs, ActionKind.SACRIFICE)


def _sacrifice(state: GameState, seat: int, action: Action) -> None:
    """Destroy one of the clan's own figures (reported like any destruction: own choice, by
    Frigga's Sacrifice; no reaction applies to the owner's own choice)."""
    fig = _figure_at(state, seat, action[1], action[2], _board_figs(state, seat))
    card = upgrade_of(state, seat, "friggas_sacrifice")
    report_destroyed(state, Cause.OWN_CHOICE, [(seat, fig, state.clans[seat].loc[fig])], card)
    destroy(state, seat, fig)


def _apply_sacrifice_first(state: GameState, seat: int, action: Action) -> None:
    _sacrifice(state, seat, action)
    state.prompts.append(Prompt(PromptKind.SACRIFICE, seat))


def _legal_sacrifice_second(state: GameState, prompt: Prompt) -> list[Action]:
    return _figures_choice(
        state, prompt.seat, _board_figs(state, prompt.seat), ActionKind.SACRIFICE
    )


def _apply_sacrifice_second(state: GameState, prompt: Prompt, action: Action) -> None:
    _sacrifice(state, prompt.seat, action)
    _ask_stat(state, prompt.seat)


# -- Battle cards ------------------------------------------------------------------------


@register("before_compare", "odins_smite")
def _odins_smite(state: GameState, seat: int, card: int) -> None:
    """Odin's Smite: one warrior of each opponent in this battle is destroyed."""
    b = _battle(state)
    victims = []
    for s in b.participants:
        if s != seat:
            for f in FIG_WARRIORS:
                if state.clans[s].loc[f] == b.province and (s, f) not in state.doomed:
                    victims.append((s, f))
                    break
    doom(state, victims, Cause.EFFECT, card)


@register("battle_value", "heimdalls_sight")
def _heimdalls_sight(state: GameState, seat: int, card: int, value: int) -> int:
    """Heimdall's Sight: worth the highest enemy battle card revealed (their printed or
    upgrade-given value; another Sight counts 0)."""
    b = _battle(state)
    best = 0
    for s in b.participants:
        if s != seat:
            for c in b.played[s]:
                if card_of(c).key != "heimdalls_sight":
                    best = max(best, battle.base_value(state, s, c))
    return best


@register("on_pillage_success", "friggas_grace")
def _friggas_grace(state: GameState, seat: int, card: int, province: int) -> None:
    """Frigga's Grace: a further stat step, another stat than the reward's."""
    token = state.token[province]
    excluded = token - 1 if token in (Token.RAGE, Token.AXES, Token.HORNS) else EMPTY
    _ask_stat(state, seat, excluded)


@register("after_winner_keeps", "lokis_trickery")
def _lokis_trickery(state: GameState, seat: int, card: int) -> None:
    """Loki's Trickery: the loser takes 1 Rage from the winner.

    **Decision** (cards.md ruling, changed to follow seed 003): Tyr's Prowess resolves first,
    so Trickery takes 1 Rage from what the winner has left after keeping cards (nothing if
    nothing is left); the 2015 printed FAQ said the reverse.
    """
    winner = _battle(state).winner
    if winner >= 0 and state.clans[winner].rage >= 1:
        state.gain_rage(winner, -1, card, other_seat=seat)
        state.gain_rage(seat, 1, card, other_seat=winner)


@register("on_win", "thors_hammer")
def _thors_hammer(state: GameState, seat: int, card: int) -> None:
    _battle_glory(state, seat, card, 3)


@register("discard", "heimdalls_watch")
def _heimdalls_watch(state: GameState, seat: int, card: int) -> None:
    """Heimdall's Watch: discard every revealed card, gain their total +STR as Glory, then
    every participant plays a new card (no new Call to Battle)."""
    b = _battle(state)
    total = sum(battle.card_value(state, s, c) for s in b.participants for c in b.played[s])
    for s in b.participants:
        state.discard.extend(b.played[s])
        b.played[s] = []
    _battle_glory(state, seat, card, total)
    state.emit(
        -1,
        {
            "type": "heimdalls_watch",
            "seat": seat,
            "glory": total,
            "card": card,
            "province": b.province,
        },
    )
    state.step = Step.BATTLE_CARDS_START


@register("before_compare", "odins_tide")
def _odins_tide(state: GameState, seat: int, card: int) -> None:
    """Odin's Tide: every participant keeps one figure of its choice in the battle."""
    b = _battle(state)
    for s in b.participants:
        if len(state.figures_in_battle(s, b.province)) >= 2:
            state.prompts.append(Prompt(PromptKind.TIDE_KEEP, s))


def _legal_tide(state: GameState, prompt: Prompt) -> list[Action]:
    b = _battle(state)
    figs = state.figures_in_battle(prompt.seat, b.province)
    return _figures_choice(state, prompt.seat, figs, ActionKind.KEEP_FIGURE)


def _apply_tide(state: GameState, prompt: Prompt, action: Action) -> None:
    b = _battle(state)
    figs = state.figures_in_battle(prompt.seat, b.province)
    keep = _figure_at(state, prompt.seat, action[1], action[2], figs)
    tide = next(c for s, c in battle.active_cards(b) if card_of(c).key == "odins_tide")
    doom(state, [(prompt.seat, f) for f in figs if f != keep], Cause.OWN_CHOICE, tide)


@register("on_lose", "lokis_backstab")
def _lokis_backstab(state: GameState, seat: int, card: int) -> None:
    """**Decision**: takes up to 2 Glory; nobody's Glory goes below 0 by it."""
    b = _battle(state)
    winner = b.winner
    if winner >= 0:
        taken = min(2, max(0, state.clans[winner].glory))
        state.gain_glory(
            winner, -taken, GloryReason.CARD, card=card, area=b.province, other_seat=seat
        )
        state.gain_glory(
            seat, taken, GloryReason.CARD, card=card, area=b.province, other_seat=winner
        )


@register("on_win", "thors_oath")
def _thors_oath(state: GameState, seat: int, card: int) -> None:
    _ask_stat(state, seat)


@register("cancel", "thors_primacy")
def _thors_primacy(state: GameState, seat: int, card: int) -> None:
    """Thor's Primacy: cancel the text of every opponent's revealed card.
    **Decision**: two Primacies: the first clockwise from the pillager cancels the other."""
    b = _battle(state)
    for s in b.participants:
        if s != seat:
            for c in b.played[s]:
                if c not in b.cancelled:
                    b.cancelled.append(c)


@register("on_win", "thors_ascension")
def _thors_ascension(state: GameState, seat: int, card: int) -> None:
    state.gain_rage(seat, 3, card)
    _battle_glory(state, seat, card, 3)


@register("after_battle", "odins_judgement")
def _odins_judgement(state: GameState, seat: int, card: int) -> None:
    _battle_glory(state, seat, card, 2 * sum(_battle(state).killed))


@register("on_lose", "lokis_poison")
def _lokis_poison(state: GameState, seat: int, card: int) -> None:
    """Loki's Poison: the loser takes the winner's revealed cards (Tyr's Prowess cannot keep
    them). **Decision**: with two Poisons, the first loser clockwise takes them."""
    b = _battle(state)
    if b.winner >= 0 and b.played[b.winner]:
        state.clans[seat].hand.extend(b.played[b.winner])
        b.played[b.winner] = []


register_prompt(PromptKind.WITCH_RETREAT, _legal_yes_no, _apply_witch)
register_prompt(PromptKind.MOVE_LEADER, _legal_move_leader, _apply_move_leader)
register_prompt(PromptKind.SUCCOR, _legal_free_warrior, _apply_free_warrior)
register_prompt(PromptKind.BLESSING, _legal_free_warrior, _apply_free_warrior)
register_prompt(PromptKind.PROTECT, _legal_protect, _apply_protect)
register_prompt(PromptKind.PROWESS, _legal_prowess, _apply_prowess)
register_prompt(PromptKind.THORS_DOMAIN, _legal_yes_no, _apply_thors_domain)
register_prompt(PromptKind.TIDE_KEEP, _legal_tide, _apply_tide)
register_prompt(PromptKind.SACRIFICE, _legal_sacrifice_second, _apply_sacrifice_second)
register_action(ActionKind.CHALLENGE, _apply_challenge)
register_action(ActionKind.INVADE_FROM_VALHALLA, _apply_friggas_domain)
register_action(ActionKind.SACRIFICE, _apply_sacrifice_first)
