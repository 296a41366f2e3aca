"""The cluster: several nodes on one PostgreSQL store, behind Envoy. ``ownership`` (a lease
per node, an owner and an epoch per game, fenced appends, takeover), ``forwarding`` (a call
about a game another node owns is relayed to it) and ``client_address`` (who the caller is
behind trusted proxies).

Imports ``server.games``, ``server.stores`` and ``server.ops``; never the API.
"""
