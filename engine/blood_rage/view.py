"""What one seat, or a spectator, may see (blood-rage.md §11).

Every byte that leaves the engine for a player passes through ``view``: public facts for all,
plus the viewer's own hand, pack, committed quests, pending battle card, keep choice and
kept card (that a clan holds a kept card is public). Deck
order, other hands and unseen discards never appear. The result is plain JSON-able data with
a stable layout, so two views can be compared byte for byte.
"""

from __future__ import annotations

from typing import Any

from engine.blood_rage.battle import STAGES, stage_compare
from engine.blood_rage.board import STAT_TRACK, TOKEN_NAMES
from engine.blood_rage.cards import card_of
from engine.blood_rage.choices import choice_details, choice_label
from engine.blood_rage.determinize import redacted_snapshot
from engine.blood_rage.draft import picks_per_round
from engine.blood_rage.end_of_age import end_card_bonus, end_stat_bonus
from engine.blood_rage.flow import awaiting, is_simultaneous, legal_actions
from engine.blood_rage.ids import (
    AREA_NAMES,
    CLAN_NAMES,
    FIG_UNIT,
    NUM_FIGS,
    PROVINCES,
    STAT_NAMES,
    UNIT_NAMES,
    Phase,
    Step,
)
from engine.blood_rage.results import result
from engine.blood_rage.state import EMPTY, GameState, PromptKind

SPECTATOR = -1
_COMPARE_STAGE = STAGES.index(stage_compare)


def card_info(card: int) -> dict[str, Any]:
    d = card_of(card)
    return {"instance": card, "card": d.id, "name": d.name}


def _cards(cards: list[int]) -> list[dict[str, Any]]:
    return [card_info(c) for c in cards]


def view(state: GameState, seat: int = SPECTATOR, include_state: bool = False) -> dict[str, Any]:
    """The seat's view (``SPECTATOR`` for public information only).

    ``include_state`` adds ``engine_state``: the whole engine state with every card the
    viewer cannot see blanked (``engine.blood_rage.determinize.redacted_snapshot``), for bots
    that rebuild states to search.
    """
    n = state.players
    me = seat if 0 <= seat < n else SPECTATOR
    waiting = awaiting(state)
    simultaneous = is_simultaneous(state)
    committed: list[int] = []
    if simultaneous:
        involved = _involved(state)
        committed = [s for s in involved if s not in waiting]
    clans = []
    for s, c in enumerate(state.clans):
        figures = [
            {"unit": UNIT_NAMES[FIG_UNIT[f]], "location": AREA_NAMES[c.loc[f]]}
            for f in range(NUM_FIGS)
            if c.loc[f] != 15
        ]
        clans.append(
            {
                "seat": s,
                "clan": CLAN_NAMES[s],
                "stats": {
                    STAT_NAMES[i]: {"step": c.steps[i] + 1, "value": STAT_TRACK[i][c.steps[i]]}
                    for i in range(3)
                },
                "rage": c.rage,
                "glory": c.glory,
                "upgrades": [card_info(x) if x >= 0 else None for x in c.slots],
                "figures": figures,
                "hand_count": len(c.hand),
                "quest_count": len(c.quests),
                "pack_count": len(state.packs[s]),
                "has_kept_card": c.kept >= 0,
                # Glory scored at the end of the game (§10), 0 until then.
                "end_stat_bonus": end_stat_bonus(c) if state.step == Step.GAME_OVER else 0,
                "end_card_bonus": end_card_bonus(state, s),
            }
        )
    # The Doom token: the next Ragnarök province not yet destroyed (moves after each Ragnarök).
    doom = next((p for p in state.ragnarok[state.age - 1 :] if not state.destroyed[p]), EMPTY)
    provinces = [
        {
            "area": AREA_NAMES[p],
            "destroyed": state.destroyed[p],
            "pillage_token": TOKEN_NAMES[state.token[p]] if state.token[p] >= 0 else None,
            "pillaged": state.pillaged[p],
            "ragnarok_age": state.ragnarok.index(p) + 1 if p in state.ragnarok else None,
        }
        for p in PROVINCES
    ]
    battle = None
    b = state.battle
    if b is not None:
        battle = {
            "province": AREA_NAMES[b.province],
            "pillager": b.pillager,
            "participants": list(b.participants),
            "committed": [s for s in b.participants if not b.revealed and b.choice[s] >= 0],
            "revealed": {str(s): _cards(b.played[s]) for s in b.participants if b.played[s]},
            "cancelled": _cards(b.cancelled),
            "strengths": {str(s): state.strength_in(s, b.province) for s in b.participants},
            "totals": {str(s): b.totals[s] for s in b.participants}
            if b.stage > _COMPARE_STAGE
            else None,
            "winner": b.winner if b.stage > _COMPARE_STAGE else None,
            "reveal_round": b.reveals,
            "killed": list(b.killed),
        }
    out: dict[str, Any] = {
        "viewer": me,
        "players": n,
        "age": state.age,
        "phase": Phase(state.phase).name.lower(),
        "step": Step(state.step).name.lower(),
        "version": state.version,
        "first_player": state.first_player,
        "turn": state.turn if state.phase == Phase.ACTION else None,
        "awaiting": waiting,
        "simultaneous": simultaneous,
        "committed": committed,
        "prompt": _prompt(state),
        "provinces": provinces,
        "doom": AREA_NAMES[doom] if doom >= 0 else None,
        "deck_sizes": [len(d) for d in state.decks],
        "discard": _cards(state.discard),
        "unseen_count": len(state.unseen),
        "clans": clans,
        "battle": battle,
        "march": [AREA_NAMES[x] for x in state.march] if state.march else None,
        "march_moved": [UNIT_NAMES[u] for u in state.march_moved],
        "doomed_count": len(state.doomed),
        "private": None,
        "legal_actions": [],
        "result": None,
    }
    if include_state:
        out["engine_state"] = redacted_snapshot(state, me)
    r = result(state)
    if r is not None:
        out["result"] = {
            "glory": list(r.scores),
            "winners": list(r.winners),
            "ranks": list(r.ranks),
        }
    if me != SPECTATOR:
        c = state.clans[me]
        pending_card = None
        if b is not None and not b.revealed and b.choice[me] >= 0:
            pending_card = card_info(b.choice[me])
        out["private"] = {
            "hand": _cards(c.hand),
            "pack": _cards(state.packs[me]),
            "pending_picks": _cards(_picked_this_round(state, me)),
            "picks_left": state.picks[me] if state.step == Step.DRAFT_PICK else 0,
            "quests": _cards(c.quests),
            "battle_card": pending_card,
            "keep": card_info(state.keep[me]) if state.keep[me] >= 0 else None,
            "kept": card_info(c.kept) if c.kept >= 0 else None,
        }
        out["legal_actions"] = [
            {
                "index": i,
                "code": a.code(),
                "kind": a[0],
                "args": [a[1], a[2], a[3]],
                "label": choice_label(state, me, a),
                "details": choice_details(state, me, a),
            }
            for i, a in enumerate(legal_actions(state, me))
        ]
    return out


def _picked_this_round(state: GameState, seat: int) -> list[int]:
    """The cards the seat took from its pack this draft round: while the round lasts they
    are the last ones added to its hand (nothing else joins a hand during the draft)."""
    if state.step != Step.DRAFT_PICK:
        return []
    taken = picks_per_round(state) - state.picks[seat]
    hand = state.clans[seat].hand
    return hand[len(hand) - taken :] if taken > 0 else []


def _involved(state: GameState) -> list[int]:
    """Seats taking part in the current simultaneous decision."""
    if state.step == Step.BATTLE_CARDS and state.battle is not None:
        return [s for s in state.battle.participants if state.battle.choice[s] != -2]
    if state.step == Step.DISCARD:
        return [s for s in range(state.players) if state.keep[s] != -2 or state.clans[s].hand]
    return list(range(state.players))


# The card whose text opens each prompt (empty: a rule, or one of several cards).
_PROMPT_SOURCE: dict[int, str] = {
    PromptKind.PROTECT: "friggas_protection",
    PromptKind.WITCH_RETREAT: "volur_witch",
    PromptKind.TIDE_KEEP: "odins_tide",
    PromptKind.PROWESS: "tyrs_prowess",
    PromptKind.MOVE_LEADER: "lord_of_hammers",
    PromptKind.THORS_DOMAIN: "thors_domain",
    PromptKind.SUCCOR: "friggas_succor",
    PromptKind.BLESSING: "lokis_blessing",
    PromptKind.SACRIFICE: "friggas_sacrifice",
}


def _prompt(state: GameState) -> dict[str, Any] | None:
    """The offer or question awaiting an answer (public: everyone sees who must answer what;
    the options are in the answering seat's legal actions)."""
    if not state.prompts:
        return None
    p = state.prompts[0]
    out: dict[str, Any] = {
        "kind": PromptKind(p.kind).name.lower(),
        "seat": p.seat,
        "source": _PROMPT_SOURCE.get(p.kind, ""),
    }
    if p.kind == PromptKind.FREE_INVADE:
        out["unit"] = UNIT_NAMES[p.a]
    elif p.kind in (PromptKind.SUCCOR, PromptKind.BLESSING, PromptKind.THORS_DOMAIN):
        out["area"] = AREA_NAMES[p.a]
    elif p.kind == PromptKind.RAISE_STAT and p.a >= 0:
        out["excluded_stat"] = STAT_NAMES[p.a]
    if p.kind == PromptKind.PROTECT:
        out["doomed"] = [
            {"unit": UNIT_NAMES[FIG_UNIT[f]], "location": AREA_NAMES[state.clans[s].loc[f]]}
            for s, f in state.doomed
            if s == p.seat
        ]
    out["queued"] = len(state.prompts) - 1
    return out
