"""The terminal UI at 80×24: views from real five-player games (the tallest: five clans) fit,
with the board, the clan table, the decision and every action reachable; and what the screen
says beyond the server's words (regions, fjords, replaced upgrades, passing, figure names,
why Glory and stats changed, ``h``)."""

from __future__ import annotations

import random
import re

from cli_support import join_all, new_game, play_until, text_console, views

from clients.blood_rage.render import Catalog, action_labels, describe_event, to_text, view_text
from clients.blood_rage.screen import help_screen, render_screen, rows_of
from engine.blood_rage.actions import Action, ActionKind, describe
from engine.blood_rage.ids import Unit
from protocol.blood_rage import actions as br_actions
from protocol.blood_rage import catalog as br_catalog
from protocol.blood_rage import values as br_values
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp

WIDTH, HEIGHT = 80, 24
ROWS = HEIGHT - 1  # the input line
CLANS = ("Wolf", "Raven", "Serpent", "Bear", "Ram")
PROVINCES = ("Myrkulor", "Elvagar", "Angerboda", "Muspelheim", "Horgr", "Utgard", "Andlang")
CATALOG = Catalog.from_pb(br_catalog.catalog())


def _screens(view: gp.View, events: list[str] | None = None) -> list[str]:
    """Every page of the view at 80×24, as text."""
    first = render_screen(view, CATALOG, width=WIDTH, height=ROWS, events=events or [])
    pages = [first]
    for page in range(1, first.pages):
        pages.append(
            render_screen(view, CATALOG, width=WIDTH, height=ROWS, events=events or [], page=page)
        )
    assert [s.page for s in pages] == list(range(first.pages))
    return [to_text(s.renderable, WIDTH) for s in pages]


def _numbers_on(text: str) -> set[int]:
    """Action numbers as the compact layout writes them (``3 pick …``, ``→ 3 Elvagar``)."""
    found = set()
    for line in text.splitlines():
        for match in re.finditer(r"(?:^|→ |· )(\d+) ", line):
            found.add(int(match.group(1)))
    return found


def _check_fits(view: gp.View, events: list[str] | None = None) -> list[str]:
    texts = _screens(view, events)
    numbers: set[int] = set()
    for text in texts:
        lines = text.splitlines()
        assert len(lines) <= ROWS, text
        assert all(len(line) <= WIDTH for line in lines), text
        for province in PROVINCES:  # the board
            assert province in text
        assert "Fjords:" in text
        for clan in CLANS:  # the clan table
            assert re.search(rf"^[ ▶✓] {clan}\b", text, re.MULTILINE), (clan, text)
        assert "Brd/Res/Val" in text
        if view.legal_actions:
            assert "YOUR DECISION" in text
            numbers |= _numbers_on(text)
    if view.legal_actions:
        assert numbers == set(range(1, len(view.legal_actions) + 1)), texts
    return texts


async def _five_player_views(stub, seed: int, wanted) -> list[gp.View]:
    game = await new_game(stub, players=5, seed=seed)
    tokens = await join_all(stub, game, players=5)
    seen = await play_until(stub, game, tokens, wanted, random.Random(seed))
    assert seen is not None
    return seen


async def test_draft_and_long_action_menus_fit_80_by_24(stub):
    game = await new_game(stub, players=5, seed=21)
    tokens = await join_all(stub, game, players=5)
    draft = (await views(stub, game, tokens))[0]
    assert draft.blood_rage.step == br.STEP_DRAFT_PICK
    assert len(to_text(view_text(draft, CATALOG, width=WIDTH), WIDTH).splitlines()) > ROWS
    (text,) = _check_fits(draft)  # eight picks fit on one page
    for card in draft.blood_rage.own.draft_pack:
        assert CATALOG.card_name(card.card_id) in text

    def many_actions(vs: list[gp.View]) -> bool:
        return vs[0].blood_rage.step == br.STEP_ACTION and len(vs[0].legal_actions) > 20

    acting = await play_until(stub, game, tokens, many_actions, random.Random(21))
    assert acting is not None
    events = [f"Raven: invade warrior -> Gimle (event {i})" for i in range(6)]
    texts = _check_fits(acting[0], events)
    assert len(texts) > 1  # paged: "m" turns the page
    assert "m: more" in texts[0] and "m: first page" in texts[-1]
    assert "(event 5)" in texts[0]  # the latest event stays in sight
    for text in texts:
        assert "Manheim" in text and "Jotunheim" in text and "Alfheim" in text  # regions


async def test_battles_fit_80_by_24(stub):
    def battle_card(vs: list[gp.View]) -> bool:
        return any(
            v.blood_rage.HasField("battle") and len(v.blood_rage.battle.participants) >= 2
            for v in vs
        ) and any(v.legal_actions for v in vs)

    seen = await _five_player_views(stub, 8, battle_card)
    for view in seen:
        texts = _check_fits(view)
        battle = view.blood_rage.battle
        assert all(f"Battle in {CATALOG.area_name(battle.province)}" in text for text in texts)


def test_a_small_terminal_keeps_the_board_and_clans_and_a_large_one_shows_it_all() -> None:
    view = _hand_made_view()
    full = render_screen(view, CATALOG, width=120, height=60)
    assert not full.compact and full.pages == 1
    text = to_text(full.renderable, 120)
    assert "Region" in text and "North (Elvagar, Angerboda)" in text  # fjords: what they support
    compact = render_screen(view, CATALOG, width=WIDTH, height=ROWS)
    assert compact.compact
    small = to_text(compact.renderable, WIDTH)
    assert rows_of(compact.renderable, WIDTH) <= ROWS
    assert re.search(r"^Elvagar +Manheim +4 .* N +Wolf W", small, re.MULTILINE), small
    assert "N: Raven S" in small


def _an_upgrade(slot: int, but_not: int = -1) -> int:
    """The instance of an upgrade card for ``slot``."""
    for instance in range(200):
        info = CATALOG.card(br_values.card_pb(instance).card_id)
        if info is None or info.type != br.CARD_TYPE_UPGRADE or info.monster:
            continue
        if info.slot == slot and instance != but_not:
            return instance
    raise AssertionError(f"no upgrade card for slot {slot}")


def _hand_made_view() -> gp.View:
    """Wolf (seat 0) in the Action phase: a warrior upgrade in play and another in hand, Rage 4,
    a Dwarf Chieftain on the board."""
    view = gp.View(game_id="g", status=gp.GAME_STATUS_IN_PROGRESS, state_version=40)
    view.viewer_seat = 0
    bv = view.blood_rage
    bv.age, bv.phase, bv.step = 1, br.PHASE_ACTION, br.STEP_ACTION
    for area in range(br.AREA_YGGDRASIL, br.AREA_GIMLE + 1):
        bv.provinces.add(area=area, reward=br.PILLAGE_REWARD_RAGE)  # type: ignore[arg-type]
    for seat in range(5):
        clan = bv.clans.add(seat=seat, rage=4 if seat == 0 else 2, glory=seat)
        clan.stats.add(stat=br.STAT_RAGE, value=6)
        view.seats.add(seat=seat, claimed=True)
    wolf = bv.clans[0]
    wolf.figures.add(unit=br.UNIT_WARRIOR, location=br.FIGURE_LOCATION_BOARD, area=br.AREA_ELVAGAR)
    bv.clans[1].figures.add(
        unit=br.UNIT_SHIP, location=br.FIGURE_LOCATION_BOARD, area=br.AREA_NORTH_FJORD
    )
    bv.clans[2].figures.add(
        unit=br.UNIT_DWARF_CHIEFTAIN, location=br.FIGURE_LOCATION_BOARD, area=br.AREA_GIMLE
    )
    placed = _an_upgrade(br.UPGRADE_SLOT_WARRIOR)
    wolf.upgrades.add(slot=br.UPGRADE_SLOT_WARRIOR, slot_index=0, card=br_values.card_pb(placed))
    in_hand = _an_upgrade(br.UPGRADE_SLOT_WARRIOR, but_not=placed)
    clan_card = _an_upgrade(br.UPGRADE_SLOT_CLAN)
    bv.own.hand.extend([br_values.card_pb(in_hand), br_values.card_pb(clan_card)])
    for action in (
        Action(ActionKind.UPGRADE, in_hand, 0),
        Action(ActionKind.UPGRADE, clan_card, 0),
        Action(ActionKind.INVADE, int(Unit.DWARF_CHIEFTAIN), 2),
        Action(ActionKind.PASS),
    ):
        view.legal_actions.add(
            index=len(view.legal_actions),
            action=gp.Action(blood_rage=br_actions.action_to_pb(action)),
            label=describe(action),
            code=action.code(),
        )
    return view


def test_labels_say_what_an_upgrade_replaces_and_what_passing_costs() -> None:
    view = _hand_made_view()
    replacing, free_slot, invade, passing = action_labels(view, CATALOG)
    placed = CATALOG.card_name(br_values.card_pb(_an_upgrade(br.UPGRADE_SLOT_WARRIOR)).card_id)
    assert replacing.endswith(f"(slot 1, replaces {placed})"), replacing
    assert "replaces" not in free_slot  # no clan upgrade in play
    assert invade == "invade Dwarf Chieftain -> Elvagar"  # a display name, not dwarf_chieftain
    assert passing == "pass (your Rage drops from 4 to 0)"
    text = to_text(render_screen(view, CATALOG, width=WIDTH, height=ROWS).renderable, WIDTH)
    assert f"replaces {placed}" in text and "Rage drops from 4 to 0" in text
    assert "Serpent Dwarf Chieftain" in text and "dwarf_chieftain" not in text


def test_glory_and_stat_lines_say_why() -> None:
    def event(sequence: int, version: int = 7) -> gp.Event:
        return gp.Event(sequence=sequence, state_version=version)

    battle = event(1)
    battle.blood_rage.glory_changed.CopyFrom(
        br.GloryChanged(seat=0, delta=4, glory=9, reason=br.GLORY_REASON_BATTLE)
    )
    assert describe_event(battle) == "Wolf +4 Glory (won a battle) → 9"
    card = event(2)
    card.blood_rage.glory_changed.CopyFrom(
        br.GloryChanged(seat=1, delta=3, glory=3, reason=br.GLORY_REASON_CARD, card_id="troll")
    )
    assert describe_event(card, catalog=CATALOG) == "Raven +3 Glory (Troll) → 3"
    unknown = event(3)
    unknown.blood_rage.glory_changed.CopyFrom(br.GloryChanged(seat=1, delta=1, glory=4, reason=99))  # type: ignore[arg-type]
    assert describe_event(unknown) == "Raven +1 Glory (?) → 4"  # a reason newer than this client

    pillage = event(4)
    pillage.blood_rage.pillage_result.CopyFrom(
        br.PillageResult(
            province=br.AREA_ELVAGAR, pillager=2, success=True, reward=br.PILLAGE_REWARD_AXES
        )
    )
    stat = event(5)
    stat.blood_rage.stat_changed.CopyFrom(
        br.StatChanged(
            seat=2,
            level=br.StatLevel(stat=br.STAT_AXES, step=2, value=4),
            previous_step=1,
            reason=br.STAT_REASON_PILLAGE,
            area=br.AREA_ELVAGAR,
        )
    )
    assert describe_event(stat, catalog=CATALOG, context=[pillage]) == (
        "Serpent Axes step 1→2: 4 (pillage reward of Elvagar)"
    )
    rage = event(6)  # already 12 on step 5: the step, not the value, is what changed
    rage.blood_rage.stat_changed.CopyFrom(
        br.StatChanged(
            seat=2,
            level=br.StatLevel(stat=br.STAT_RAGE, step=6, value=12),
            previous_step=5,
            reason=br.STAT_REASON_QUEST,
        )
    )
    assert describe_event(rage) == "Serpent Rage step 5→6: 12 (quest fulfilled, chosen)"
    card = event(7)
    card.blood_rage.stat_changed.CopyFrom(
        br.StatChanged(
            seat=0,
            level=br.StatLevel(stat=br.STAT_HORNS, step=3, value=6),
            previous_step=2,
            reason=br.STAT_REASON_CARD,
            card_id="lord_of_spears_3",
            area=br.AREA_GIMLE,
        )
    )
    assert describe_event(card, catalog=CATALOG).endswith("(Lord of Spears in Gimle)")
    old = event(8)  # from a server that said only the level
    old.blood_rage.stat_changed.level.CopyFrom(br.StatLevel(stat=br.STAT_AXES, step=2, value=4))
    assert describe_event(old) == "Wolf Axes → 4"

    lost = event(7)
    lost.blood_rage.figures_destroyed.cause = "battle"
    lost.blood_rage.figures_destroyed.destroyed.add(seat=0, unit=br.UNIT_DWARF_CHIEFTAIN)
    assert describe_event(lost, catalog=CATALOG) == (
        "Destroyed (lost the battle): Wolf Dwarf Chieftain"
    )


def test_help_explains_columns_and_marks_in_80_by_24() -> None:
    text = to_text(help_screen(), WIDTH)
    assert rows_of(help_screen(), WIDTH) <= ROWS - 1  # and "Enter: back to the game."
    for needed in ("Q", "Brd/Res/Val", "*", "▶", "✓", "unseen", "Region", "Fjord", "m "):
        assert needed in text, needed


async def test_play_turns_the_pages_of_actions_with_m(address, stub, token_file):
    from clients.blood_rage.terminal import TERMINAL
    from clients.cli import PlaySession, ScriptedInput
    from yggdrasil.v1 import game_service_pb2 as gs

    game = await new_game(stub, players=5, seed=21)
    tokens = await join_all(stub, game, players=5)

    def many_actions(vs: list[gp.View]) -> bool:
        return vs[0].blood_rage.step == br.STEP_ACTION and len(vs[0].legal_actions) > 20

    assert await play_until(stub, game, tokens, many_actions, random.Random(21)) is not None
    console, buffer = text_console(WIDTH)
    script = ScriptedInput(["m", "h", "", "m", "q"])
    session = PlaySession(stub, game, tokens[0], script, console, TERMINAL, CATALOG, height=HEIGHT)
    assert await session.run() == 0
    text = buffer.getvalue()
    pages = re.findall(r"\((\d+)-(\d+) of (\d+); m: (more|first page)\)", text)
    assert len(pages) >= 3 and pages[0][0] == "1" and pages[1][0] != "1"
    assert "figures on the board / in reserve / in Valhalla" in text  # h
    assert "Enter: back to the game." in text
    first_prompt = script.prompts[0]
    assert first_prompt.startswith("Your choice (1-") and ", m, l, c, r, h, q" in first_prompt
    view = (await stub.GetView(gs.GetViewRequest(game_id=game, seat_token=tokens[0]))).view
    assert view.legal_actions  # nothing was chosen
