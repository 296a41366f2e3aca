"""Clients of the Yggdrasil gRPC API: the command-line tool (``yggdrasil``: ``cli``), the SDK
for bots (``sdk``), the tournament runner (``tournament``), connection helpers
(``connection``), the bots every game shares (``bots``), and each game's own client side in a
folder (``clients.blood_rage``: its bots and terminal renderer), found through ``games``.

Never imports ``server`` (a frontend or bot ships without it); reaches a game only through
``clients.games`` and the engine's and protocol's registries, outside the game's own folder.
"""
