"""Hosted games: the single-writer ``game.Game`` (one per game id, changed under its own lock,
through its rules and its wire, in ``engine.registry`` and ``protocol.registry``) and the
collaborators that each own one part of it — ``decision_checks`` (may a decision apply),
``decision`` (what it does, worked out before it is logged), ``event_log`` and ``event_recovery``
(numbered events, rebuilt from the log), ``views``, ``idempotency``, ``deadlines`` and
``decision_clock``, ``snapshots``, ``compact``, ``message_cache``, ``seat_tokens``, ``game_log``;
the ``registry`` of hosted games, ``recovery`` (restart), ``dormant`` (games a lazy restart hosts
from the store's index until their first use), ``abandon`` (games nobody plays),
``record`` (what a game is outside its play) and ``refusal`` (why a request is refused).

Imports ``server.stores`` and ``server.ops``; never the API or the cluster. A collaborator
gets what it needs of a game as values or a narrow protocol, never the ``Game`` itself.
"""
