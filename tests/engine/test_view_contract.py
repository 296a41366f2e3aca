"""The view contract (engine/blood_rage/view.py): in random games, at every decision and for
every seat and a spectator, each public field of the view equals what an independent reading
of the game state says it must be (issue 30, point 3).

``test_views.py`` checks that nothing hidden leaks; this checks that what is shown is right:
a battle's revealed and committed cards, the march under way, the prompt, who is awaited and
who has committed, the phase that goes with the step, the end-of-game bonuses only at the end,
the result only then. The expectations are written from the rules and the state's fields,
not with the view's helpers; tables of the rules (stat tracks, end-game bonus) are written out
here again. The draft picks of a round are followed move by move, from outside the engine.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine.blood_rage import awaiting, legal_actions, new_game
from engine.blood_rage.actions import ActionKind
from engine.blood_rage.battle import STAGES
from engine.blood_rage.board import TOKEN_NAMES
from engine.blood_rage.cards import card_of
from engine.blood_rage.choices import choice_details, choice_label
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import (
    AREA_NAMES,
    BOX,
    CLAN_NAMES,
    FIG_UNIT,
    NUM_AREAS,
    UNIT_NAMES,
    DraftMode,
    Phase,
    Step,
)
from engine.blood_rage.state import GameState, PromptKind
from engine.blood_rage.view import SPECTATOR, view

# Written out again from board.md: value of each stat at steps 1..6, and the Glory a stat
# scores at the end of the game on its 4th/5th (10) and last (20) step.
STAT_TRACKS = {
    "rage": (6, 7, 8, 9, 12, 12),
    "axes": (3, 4, 5, 6, 8, 8),
    "horns": (4, 5, 6, 7, 10, 10),
}
END_BONUS = (0, 0, 0, 10, 10, 20)
# The phase a game is in while it waits at each step (an automatic step waits only for a
# question asked before it runs). RAGNAROK: the Quest phase is over and its successes choose
# a stat before Ragnarök begins; RAGNAROK_DESTROY: Ragnarök has begun (the Volur Witch may
# flee it); RELEASE_VALHALLA: the province is destroyed; AGE_END: Valhalla was released.
PHASE_OF_STEP = {
    Step.DRAFT_PICK: "draft",
    Step.ACTION: "action",
    Step.MARCH: "action",
    Step.CALL_TO_BATTLE_NEXT: "action",
    Step.CALL_TO_BATTLE: "action",
    Step.BATTLE_CARDS_START: "action",
    Step.BATTLE_CARDS: "action",
    Step.BATTLE_RESOLVE: "action",
    Step.TURN_END: "action",
    Step.DISCARD: "discard",
    Step.RAGNAROK: "quest",
    Step.RAGNAROK_DESTROY: "ragnarok",
    Step.RELEASE_VALHALLA: "ragnarok",
    Step.AGE_END: "release_valhalla",
    Step.GAME_OVER: "game_over",
}
SECRET_STEPS = (Step.DRAFT_PICK, Step.BATTLE_CARDS, Step.DISCARD)
# The card whose text asks each question (cards.md); the others are the rules' own.
PROMPT_SOURCES = {
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
NO_CHOICE, KEEP_NOTHING = -1, -2
COMPARE_STAGE = [stage.__name__ for stage in STAGES].index("stage_compare")


def card(instance: int) -> dict[str, Any]:
    d = card_of(instance)
    return {"instance": instance, "card": f"{d.key}_{d.age}", "name": d.name}


def cards(instances: list[int]) -> list[dict[str, Any]]:
    return [card(i) for i in instances]


def picks_per_round(state: GameState) -> int:
    """blood-rage.md §4: one card a round, two with two players; 6 at once without a draft."""
    if state.draft_mode == DraftMode.NO_DRAFT:
        return 6
    return 2 if state.players == 2 else 1


class Game:
    """A random game, and what the draft picks of the current round were (followed from the
    actions applied: the engine is not asked)."""

    def __init__(self, players: int, seed: int, draft_mode: DraftMode) -> None:
        self.state = new_game(players, seed, draft_mode)
        self.rng = random.Random(seed * 31 + players)
        self.picked: list[list[int]] = [[] for _ in range(players)]

    def positions(self) -> Iterator[GameState]:
        """Every position where a decision is awaited, then the end of the game."""
        state = self.state
        while state.step != Step.GAME_OVER:
            yield state
            seat = self.rng.choice(awaiting(state))
            action = self.rng.choice(legal_actions(state, seat))
            apply_unchecked(state, seat, action)
            if action.kind == ActionKind.DRAFT_PICK:
                self.picked[seat].append(action.a)
                if all(len(p) == picks_per_round(state) for p in self.picked):
                    self.picked = [[] for _ in range(state.players)]  # the packs move on
            elif state.step != Step.DRAFT_PICK:
                self.picked = [[] for _ in range(state.players)]
        yield state


# -- expectations, field by field --------------------------------------------------------


def expected_awaiting(state: GameState) -> list[int]:
    if state.prompts:
        return [state.prompts[0].seat]
    step, n, b = state.step, state.players, state.battle
    if step in (Step.ACTION, Step.MARCH):
        return [state.turn]
    if step == Step.DRAFT_PICK:
        return [s for s in range(n) if state.picks[s] > 0]
    if step == Step.CALL_TO_BATTLE:
        assert b is not None
        return [b.order[b.pos]]
    if step == Step.BATTLE_CARDS:
        assert b is not None
        return [s for s in b.participants if b.choice[s] == NO_CHOICE]
    if step == Step.DISCARD:
        return [s for s in range(n) if state.keep[s] == NO_CHOICE]
    return []


def expected_committed(state: GameState) -> list[int]:
    """Seats that made their secret choice of this step and wait for the others."""
    if state.prompts or state.step not in SECRET_STEPS:
        return []
    n, b = state.players, state.battle
    if state.step == Step.DRAFT_PICK:
        return [s for s in range(n) if state.picks[s] == 0]
    if state.step == Step.BATTLE_CARDS:
        assert b is not None
        return [s for s in b.participants if b.choice[s] >= 0]
    # A choice made: a card to keep, or none kept although the hand held some.
    chose_none = [state.keep[s] == KEEP_NOTHING and bool(state.clans[s].hand) for s in range(n)]
    return [s for s in range(n) if state.keep[s] >= 0 or chose_none[s]]


def expected_prompt(state: GameState) -> dict[str, Any] | None:
    if not state.prompts:
        return None
    p = state.prompts[0]
    out: dict[str, Any] = {
        "kind": p.kind.name.lower(),
        "seat": p.seat,
        "source": PROMPT_SOURCES.get(p.kind, ""),
    }
    if p.kind == PromptKind.FREE_INVADE:
        out["unit"] = UNIT_NAMES[p.a]
    if p.kind in (PromptKind.SUCCOR, PromptKind.BLESSING, PromptKind.THORS_DOMAIN):
        out["area"] = AREA_NAMES[p.a]
    if p.kind == PromptKind.RAISE_STAT and p.a >= 0:
        out["excluded_stat"] = ("rage", "axes", "horns")[p.a]
    if p.kind == PromptKind.PROTECT:
        loc = state.clans[p.seat].loc
        out["doomed"] = [
            {"unit": UNIT_NAMES[FIG_UNIT[f]], "location": AREA_NAMES[loc[f]]}
            for s, f in state.doomed
            if s == p.seat
        ]
    out["queued"] = len(state.prompts) - 1
    return out


def expected_clan(state: GameState, seat: int) -> dict[str, Any]:
    c = state.clans[seat]
    over = state.step == Step.GAME_OVER
    conquest = any(x >= 0 and card_of(x).key == "thors_conquest" for x in c.slots)
    on_board = sum(1 for where in c.loc if where < NUM_AREAS)
    return {
        "seat": seat,
        "clan": CLAN_NAMES[seat],
        "stats": {
            name: {"step": c.steps[i] + 1, "value": track[c.steps[i]]}
            for i, (name, track) in enumerate(STAT_TRACKS.items())
        },
        "rage": c.rage,
        "glory": c.glory,
        "upgrades": [card(x) if x >= 0 else None for x in c.slots],
        "figures": [
            {"unit": UNIT_NAMES[FIG_UNIT[f]], "location": AREA_NAMES[where]}
            for f, where in enumerate(c.loc)
            if where != BOX
        ],
        "hand_count": len(c.hand),
        "quest_count": len(c.quests),
        "pack_count": len(state.packs[seat]),
        "has_kept_card": c.kept >= 0,
        "end_stat_bonus": sum(END_BONUS[step] for step in c.steps) if over else 0,
        "end_card_bonus": 3 * on_board if over and conquest else 0,
    }


def expected_battle(state: GameState) -> dict[str, Any] | None:
    b = state.battle
    if b is None:
        return None
    compared = b.stage > COMPARE_STAGE
    return {
        "province": AREA_NAMES[b.province],
        "pillager": b.pillager,
        "participants": b.participants,
        "committed": [s for s in b.participants if b.choice[s] >= 0] if not b.revealed else [],
        "revealed": {str(s): cards(b.played[s]) for s in b.participants if b.played[s]},
        "cancelled": cards(b.cancelled),
        "strengths": {str(s): state.strength_in(s, b.province) for s in b.participants},
        "totals": {str(s): b.totals[s] for s in b.participants} if compared else None,
        "winner": b.winner if compared else None,
        "reveal_round": b.reveals,
        "killed": b.killed,
    }


def expected_result(state: GameState) -> dict[str, Any] | None:
    if state.step != Step.GAME_OVER:
        return None
    glory = [c.glory for c in state.clans]
    ranks = [1 + sum(1 for g in glory if g > mine) for mine in glory]
    return {
        "glory": glory,
        "winners": [s for s, g in enumerate(glory) if g == max(glory)],
        "ranks": ranks,
    }


def expected_private(game: Game, seat: int) -> dict[str, Any]:
    state = game.state
    c, b = state.clans[seat], state.battle
    drafting = state.step == Step.DRAFT_PICK
    pending = b is not None and not b.revealed and b.choice[seat] >= 0
    return {
        "hand": cards(c.hand),
        "pack": cards(state.packs[seat]),
        "pending_picks": cards(game.picked[seat]) if drafting else [],
        "picks_left": state.picks[seat] if drafting else 0,
        "quests": cards(c.quests),
        "battle_card": card(b.choice[seat]) if b is not None and pending else None,
        "keep": card(state.keep[seat]) if state.keep[seat] >= 0 else None,
        "kept": card(c.kept) if c.kept >= 0 else None,
    }


def expected_legal(state: GameState, seat: int) -> list[dict[str, Any]]:
    actions = legal_actions(state, seat) if seat != SPECTATOR else []
    return [
        {"index": i, "code": a.code(), "kind": a.kind, "args": [a.a, a.b, a.c]}
        # The label and what a choice costs are read by the engine's own choices module; that
        # each decline names what it declines and each cost is the Rage really paid is checked
        # against the state in tests/api/test_api_choice_labels.py.
        | {"label": choice_label(state, seat, a)}
        | {"details": choice_details(state, seat, a)}
        for i, a in enumerate(actions)
    ]


def check_view(game: Game, seat: int) -> None:
    state = game.state
    seen = view(state, seat)
    phase = PHASE_OF_STEP[Step(state.step)]
    ragnarok = state.ragnarok[state.age - 1 :]
    expected = {
        "viewer": seat,
        "players": state.players,
        "age": state.age,
        "phase": phase,
        "step": Step(state.step).name.lower(),
        "version": state.version,
        "first_player": state.first_player,
        "turn": state.turn if phase == "action" else None,
        "awaiting": expected_awaiting(state),
        "simultaneous": not state.prompts and state.step in SECRET_STEPS,
        "committed": expected_committed(state),
        "prompt": expected_prompt(state),
        "provinces": [
            {
                "area": AREA_NAMES[p],
                "destroyed": state.destroyed[p],
                "pillage_token": TOKEN_NAMES[state.token[p]] if state.token[p] >= 0 else None,
                "pillaged": state.pillaged[p],
                "ragnarok_age": state.ragnarok.index(p) + 1 if p in state.ragnarok else None,
            }
            for p in range(9)
        ],
        "doom": next((AREA_NAMES[p] for p in ragnarok if not state.destroyed[p]), None),
        "deck_sizes": [len(d) for d in state.decks],
        "discard": cards(state.discard),
        "unseen_count": len(state.unseen),
        "clans": [expected_clan(state, s) for s in range(state.players)],
        "battle": expected_battle(state),
        "march": [AREA_NAMES[a] for a in state.march] if state.march is not None else None,
        "march_moved": [UNIT_NAMES[u] for u in state.march_moved],
        "doomed_count": len(state.doomed),
        "private": expected_private(game, seat) if seat != SPECTATOR else None,
        "legal_actions": expected_legal(state, seat),
        "result": expected_result(state),
    }
    assert set(seen) == set(expected), "the view's fields"
    for name, value in expected.items():
        assert seen[name] == value, f"{name} (seat {seat}, step {seen['step']})"
    # Who may act: exactly the awaited seats, with at least one action each.
    assert bool(seen["legal_actions"]) == (seat in seen["awaiting"]), "legal actions"
    codes = [a["code"] for a in seen["legal_actions"]]
    assert len(codes) == len(set(codes)), "each action is offered once"
    assert phase == Phase(state.phase).name.lower(), "the state's own phase agrees"


def play_and_check(players: int, seed: int, draft_mode: DraftMode = DraftMode.NORMAL) -> int:
    game = Game(players, seed, draft_mode)
    positions = 0
    for state in game.positions():
        positions += 1
        for seat in [SPECTATOR, *range(state.players)]:
            check_view(game, seat)
    return positions


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_public_field_in_random_games(players: int) -> None:
    for seed in range(4):
        assert play_and_check(players, seed) > 50, "a game of some length"


def test_every_public_field_in_a_game_without_draft() -> None:
    assert play_and_check(3, seed=11, draft_mode=DraftMode.NO_DRAFT) > 50


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_public_field_in_many_random_games(players: int) -> None:
    for seed in range(4, 104):
        play_and_check(players, seed, DraftMode(seed % 2))


def test_a_spectator_number_past_the_players_is_a_spectator() -> None:
    state = new_game(3, 5)
    assert view(state, 3) == view(state, SPECTATOR) == view(state, -7)
    assert view(state, -7)["viewer"] == SPECTATOR and view(state, -7)["private"] is None
