"""What both ends of the Yggdrasil API share beyond the generated stubs: the conversion of
games to and from the API's messages, and the JSON replay format.

``clients`` must not import ``server`` (a frontend or bot ships without the server), yet both
convert decisions between the rules and the API and both read and write replays. So:
``wire`` is the contract a game's conversion implements, ``envelopes`` the game-agnostic
messages around a game's payload, ``registry`` finds a game's wire, ``readers`` read the rules'
dicts defensively, ``replay_json`` is the replay document (docs/replay.md); each game's own
conversion is a folder (``protocol.blood_rage``).

Imports ``engine`` and the generated ``yggdrasil`` stubs, never ``server`` or ``clients``
(tests/test_import_boundaries.py checks it).
"""
