"""GetView can carry the viewer's redacted engine state, from which a bot rebuilds full states."""

from __future__ import annotations

import json
import random
from typing import Any

from engine.blood_rage.determinize import sample_from_redacted
from engine.blood_rage.flow import legal_actions
from yggdrasil.v1 import blood_rage_pb2, game_pb2, game_service_pb2


async def test_engine_state_on_request_only_and_without_secrets(stub: Any) -> None:
    options = game_pb2.GameOptions(
        player_count=3, seed=77, blood_rage=blood_rage_pb2.BloodRageOptions()
    )
    created = await stub.CreateGame(game_service_pb2.CreateGameRequest(options=options))
    tokens = []
    for seat in range(3):
        joined = await stub.JoinGame(
            game_service_pb2.JoinGameRequest(game_id=created.game_id, seat=seat)
        )
        tokens.append(joined.seat_token)
    plain = await stub.GetView(
        game_service_pb2.GetViewRequest(game_id=created.game_id, seat_token=tokens[1])
    )
    assert plain.view.blood_rage.engine_state_json == ""
    rich = await stub.GetView(
        game_service_pb2.GetViewRequest(
            game_id=created.game_id, seat_token=tokens[1], include_engine_state=True
        )
    )
    data = json.loads(rich.view.blood_rage.engine_state_json)
    assert data["seed"] == 0 and data["viewer"] == 1
    own_pack = [c.instance for c in rich.view.blood_rage.own.draft_pack]
    assert data["packs"][1] == own_pack
    assert all(c == -1 for seat in (0, 2) for c in data["packs"][seat])
    state = sample_from_redacted(data, random.Random(1))
    codes = [a.code() for a in legal_actions(state, 1)]
    assert codes == [a.code for a in rich.view.legal_actions]
