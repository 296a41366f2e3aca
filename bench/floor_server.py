"""``python -m server`` with a SubmitAction that does no game work (for ``bench.floor``).

The request is still parsed and the answer built and sent through the same interceptors; only
the game (token check, engine, events, log) is skipped.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from server import main as server_main
from server import service
from yggdrasil.v1 import game_service_pb2

if TYPE_CHECKING:
    from server._rpcwrap import AioContext


async def _empty_submit(
    self: service.GameService,
    request: game_service_pb2.SubmitActionRequest,
    context: AioContext,
) -> game_service_pb2.SubmitActionResponse:
    return game_service_pb2.SubmitActionResponse(state_version=request.state_version + 1)


if __name__ == "__main__":
    service.GameService.SubmitAction = _empty_submit  # type: ignore[method-assign]
    sys.exit(server_main.main())
