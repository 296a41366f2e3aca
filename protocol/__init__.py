"""What both ends of the Yggdrasil API share beyond the generated stubs.

``clients`` must not import ``server`` (a frontend or bot ships without the server), yet both
convert decisions between the engine and the API and both read and write the JSON replay
format. Those live here: :mod:`protocol.codec` (engine actions and options ⇄ protobuf) and
:mod:`protocol.replay_json` (the replay document, docs/replay.md). This package imports
``engine`` and the generated ``yggdrasil`` stubs, never ``server`` or ``clients``
(tests/test_import_boundaries.py checks it).
"""
