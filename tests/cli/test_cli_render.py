"""Rendering views taken from a real server game: what a seat's screen shows (its own cards,
the numbered legal actions, the board and clans, battle and prompts) and what it must never
show (another seat's hidden cards)."""

from __future__ import annotations

import random

from cli_support import join_all, new_game, play_until, private_cards, spectator, views

from clients.blood_rage.render import Catalog, describe_event, render_result, to_text, view_text
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs

CLANS = ("Wolf", "Raven", "Serpent", "Bear")


async def _catalog(stub) -> Catalog:
    reply = await stub.GetCatalog(gs.GetCatalogRequest())
    return Catalog.from_pb(reply.blood_rage)


def _public_names(view: gp.View, catalog: Catalog) -> set[str]:
    """Card and figure names the viewer may legitimately see on screen."""
    bv = view.blood_rage
    names = {catalog.card_name(c.card_id) for c in private_cards(view)}
    names |= {catalog.card_name(c.card_id) for c in bv.discard_pile}
    names |= {catalog.area_name(a) for a in br.Area.values()}  # e.g. the Yggdrasil quest
    names |= {catalog.region_name(a) for a in br.Area.values()}  # the board names regions
    for clan in bv.clans:
        names |= {catalog.card_name(u.card.card_id) for u in clan.upgrades}
        names |= {catalog.unit_name(f.unit) for f in clan.figures}
    for part in bv.battle.participants:
        names |= {catalog.card_name(c.card_id) for c in part.revealed_cards}
    return names


def assert_no_foreign_cards(text: str, me: gp.View, all_views: list[gp.View], catalog: Catalog):
    allowed = _public_names(me, catalog)
    mine = {c.instance for c in private_cards(me)}
    for other in all_views:
        if other.viewer_seat == me.viewer_seat:
            continue
        for card in private_cards(other):
            if card.instance in mine:
                continue
            assert f"[#{card.instance}]" not in text, (other.viewer_seat, card)
            name = catalog.card_name(card.card_id)
            if name not in allowed:
                assert name not in text, (other.viewer_seat, name)


def assert_common(text: str, view: gp.View) -> None:
    assert "Yggdrasil" in text
    assert view.game_id in text
    for clan in CLANS:
        assert clan in text
    for province in ("Myrkulor", "Elvagar", "Gimle"):
        assert province in text


async def test_draft_view_shows_own_pack_and_numbered_picks(stub):
    catalog = await _catalog(stub)
    game = await new_game(stub, seed=3)
    tokens = await join_all(stub, game)
    seat_views = await views(stub, game, tokens)
    me = seat_views[0]
    assert me.blood_rage.step == br.STEP_DRAFT_PICK
    text = view_text(me, catalog)
    assert_common(text, me)
    assert "Draft round 1" in text
    assert "you: Wolf (player0)" in text
    assert "YOUR DECISION" in text
    for card in me.blood_rage.own.draft_pack:
        assert f"{catalog.card_name(card.card_id)}" in text
        assert f"[#{card.instance}]" in text
    for n, action in enumerate(me.legal_actions, start=1):
        assert f"{n:>2}. {action.label}" in text
    assert_no_foreign_cards(text, me, seat_views, catalog)

    # Another seat's view lists its own pack, not seat 0's.
    text1 = view_text(seat_views[1], catalog)
    assert "you: Raven (player1)" in text1
    assert_no_foreign_cards(text1, seat_views[1], seat_views, catalog)


async def test_action_phase_view_hand_board_and_waiting(stub):
    catalog = await _catalog(stub)
    game = await new_game(stub, seed=4)
    tokens = await join_all(stub, game)
    rng = random.Random(4)

    def in_action(vs: list[gp.View]) -> bool:
        bv = vs[0].blood_rage
        placed = sum(f.location == br.FIGURE_LOCATION_BOARD for c in bv.clans for f in c.figures)
        return bv.step == br.STEP_ACTION and placed >= 3

    seat_views = await play_until(stub, game, tokens, in_action, rng)
    assert seat_views is not None
    acting = next(v for v in seat_views if v.legal_actions)
    waiting = next(v for v in seat_views if not v.legal_actions)
    text = view_text(acting, catalog)
    assert_common(text, acting)
    assert "Age 1 · Action" in text
    assert "Your hand" in text
    for card in acting.blood_rage.own.hand:
        assert catalog.card_name(card.card_id) in text
    assert "YOUR DECISION" in text
    assert f"{len(acting.legal_actions):>2}. {acting.legal_actions[-1].label}" in text
    assert_no_foreign_cards(text, acting, seat_views, catalog)

    text_w = view_text(waiting, catalog)
    assert "YOUR DECISION" not in text_w
    assert "Waiting for " + CLANS[acting.viewer_seat] in text_w
    assert " 1. " not in text_w
    assert_no_foreign_cards(text_w, waiting, seat_views, catalog)

    # A spectator sees the board and nobody's cards.
    spec = await spectator(stub, game)
    text_s = view_text(spec, catalog)
    assert "spectator" in text_s
    assert "Your hand" not in text_s
    for v in seat_views:
        for card in private_cards(v):
            assert f"[#{card.instance}]" not in text_s


async def test_battle_and_prompt_views(stub):
    """Random games until a battle and a card prompt (late Heimdall card, Frigga, Odin...):
    the battle table, the prompt wording and the seat's options appear."""
    catalog = await _catalog(stub)
    want_prompt = {br.STEP_LATE_BATTLE_CARDS, br.STEP_BATTLE_CHOICE, br.STEP_OFFER}
    saw_battle = saw_prompt = False
    for seed in range(1, 12):
        game = await new_game(stub, seed=seed)
        tokens = await join_all(stub, game)
        rng = random.Random(seed)

        def battle(vs: list[gp.View]) -> bool:
            return vs[0].blood_rage.step == br.STEP_BATTLE_CARDS

        def prompt(vs: list[gp.View]) -> bool:
            return any(v.legal_actions and v.blood_rage.step in want_prompt for v in vs)

        if not saw_battle:
            seat_views = await play_until(stub, game, tokens, battle, rng)
            if seat_views is not None:
                saw_battle = True
                chooser = next(v for v in seat_views if v.legal_actions)
                text = view_text(chooser, catalog)
                b = chooser.blood_rage.battle
                assert f"Battle in {catalog.area_name(b.province)}" in text
                assert "pillager" in text
                assert "cards not revealed yet" in text
                assert "Battle: secretly choose your battle card." in text
                for part in b.participants:
                    assert CLANS[part.seat] in text
                assert_no_foreign_cards(text, chooser, seat_views, catalog)
        seat_views = await play_until(stub, game, tokens, prompt, rng)
        if seat_views is None:
            continue
        saw_prompt = True
        asked = next(v for v in seat_views if v.legal_actions)
        text = view_text(asked, catalog)
        assert "YOUR DECISION" in text
        for n, action in enumerate(asked.legal_actions, start=1):
            assert f"{n:>2}. {action.label}" in text
        kinds = {a.action.blood_rage.WhichOneof("kind") for a in asked.legal_actions}
        if "late_card" in kinds:
            assert "Heimdall" in text
        if "save_figure" in kinds:
            assert "Frigga's Protection" in text
        assert_no_foreign_cards(text, asked, seat_views, catalog)
        # Everyone else sees whose decision it is.
        other = next(v for v in seat_views if v.viewer_seat != asked.viewer_seat)
        assert f"Waiting for {CLANS[asked.viewer_seat]}" in view_text(other, catalog)
        if saw_battle:
            break
    assert saw_battle and saw_prompt


def test_render_without_server_finished_view_and_events():
    """Pure rendering of hand-made messages, with the enum-name fallback catalog."""
    view = gp.View(
        game_id="g1",
        status=gp.GAME_STATUS_FINISHED,
        state_version=9,
        seats=[gp.SeatInfo(seat=0, name="ann"), gp.SeatInfo(seat=1, name="[bold]bob")],
    )
    view.blood_rage.provinces.add(area=br.AREA_NORTH_FJORD)
    view.blood_rage.provinces.add(area=br.AREA_ELVAGAR, destroyed=True)
    view.result.seats.add(seat=0, name="ann", score=40, rank=1, winner=True)
    view.result.seats.add(seat=1, name="[bold]bob", score=30, rank=2)
    view.result.winners.append(0)
    text = view_text(view, Catalog())
    assert "finished" in text
    assert "North fjord" in text and "destroyed" in text
    assert "WINNER" in text
    assert "[bold]bob" in text  # names are text, never rich markup
    table = to_text(render_result(view.result))
    assert table.index("ann") < table.index("bob")

    event = gp.Event(sequence=3)
    event.blood_rage.action_applied.seat = 2
    event.blood_rage.action_applied.label = "invade warrior -> Elvagar"
    assert describe_event(event) == "Serpent: invade warrior -> Elvagar"
    resolved = gp.Event(sequence=4)
    r = resolved.blood_rage.battle_resolved
    r.province = br.AREA_GIMLE
    r.winner = 1
    r.totals.add(seat=0, strength=3)
    r.totals.add(seat=1, strength=5)
    r.destroyed.add(seat=0, unit=br.UNIT_WARRIOR, area=br.AREA_GIMLE)
    line = describe_event(resolved)
    assert line == "Battle in Gimle: Wolf 3, Raven 5 → Raven wins; destroyed: Wolf Warrior"
    ended = gp.Event(sequence=5)
    ended.game_ended.result.winners.append(3)
    assert describe_event(ended, {3: "dee"}) == "Game over. Winner(s): Bear (dee)"


def test_open_prompt_is_rendered_with_what_is_at_stake() -> None:
    from clients.blood_rage.render import open_prompt_text, prompt_text
    from yggdrasil.v1 import blood_rage_pb2 as br
    from yggdrasil.v1 import game_pb2 as gp

    prompt = br.PromptView(
        kind="protect",
        seat=1,
        source_card_key="friggas_protection",
        doomed=[br.DestroyedFigure(seat=1, unit=br.UNIT_WARRIOR, area=br.AREA_ELVAGAR)],
    )
    text = open_prompt_text(prompt)
    assert "Frigga's Protection" in text and "Warrior in Elvagar" in text
    view = gp.View()
    view.blood_rage.prompt.CopyFrom(br.PromptView(kind="succor", seat=0, area=br.AREA_NORTH_FJORD))
    assert prompt_text(view) == "Frigga's Succor: invade North fjord with a free warrior too?"
    stat = br.PromptView(kind="raise_stat", seat=0, excluded_stat=br.STAT_AXES)
    assert open_prompt_text(stat) == "Choose the clan stat to raise (not Axes)."
