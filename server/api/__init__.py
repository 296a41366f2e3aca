"""The API: the gRPC servicers (``service``; ``play_session`` for PlaySession), the streams of
every game (``streams``) and how events fan out to watchers (``fanout``), the listing of games
(``game_list``), the request checks shared by every RPC (``checks``), and the interceptors in
front of them: authentication (``auth``) of identities with quotas (``identity``, ``quotas``),
malformed requests, connection limits and the fault barrier.

Imports ``server.games``, ``server.cluster``, ``server.ops`` and of the stores only their
contract (``server.stores.contract``).
"""
