"""The event log says why Glory changed, from what GloryChanged carries (issue 12, point 4)."""

from __future__ import annotations

from clients.blood_rage.render import Catalog, describe_event
from protocol.blood_rage.catalog import catalog
from yggdrasil.v1 import blood_rage_pb2 as br
from yggdrasil.v1 import game_pb2 as gp


def _line(**fields: object) -> str:
    event = gp.Event(blood_rage=br.BloodRageEvent(glory_changed=br.GloryChanged(**fields)))  # type: ignore[arg-type]
    return describe_event(event, None, Catalog.from_pb(catalog()))


def test_each_reason_reads_as_a_sentence() -> None:
    assert _line(seat=0, delta=4, glory=9, reason=br.GLORY_REASON_BATTLE, area=br.AREA_ANDLANG) == (
        "Wolf +4 Glory (won the battle in Andlang) → 9"
    )
    assert "(pillaged Muspelheim)" in _line(
        seat=1, delta=5, glory=5, reason=br.GLORY_REASON_PILLAGE, area=br.AREA_MUSPELHEIM
    )
    assert "(quest Alfheim)" in _line(
        seat=1, delta=5, glory=5, reason=br.GLORY_REASON_QUEST, card_id="alfheim_1"
    )
    assert "(Ragnarök in Gimle)" in _line(
        seat=2, delta=6, glory=6, reason=br.GLORY_REASON_RAGNAROK, area=br.AREA_GIMLE
    )
    assert "(Axes at the end)" in _line(
        seat=2, delta=20, glory=26, reason=br.GLORY_REASON_END_GAME, stat=br.STAT_AXES
    )
    stab = dict(reason=br.GLORY_REASON_CARD, card_id="lokis_backstab_2", area=br.AREA_GIMLE)
    assert "(Loki's Backstab in Gimle, by Raven)" in _line(
        seat=0, delta=-2, glory=1, other_seat=1, **stab
    )
    assert "(Loki's Backstab in Gimle, from Wolf)" in _line(
        seat=1, delta=2, glory=2, other_seat=0, **stab
    )
