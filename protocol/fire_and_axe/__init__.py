"""Fire & Axe on the wire (fire_and_axe.proto): its decisions (``actions``), the data packs a
server offers and how a game names one (``packs``), views and results (``views``), events
(``events``), the packs' boards and cards (``catalog``), all behind ``wire.WIRE``.

Imports ``engine.fire_and_axe``, ``protocol``'s generic modules and the generated stubs.
"""

from protocol.fire_and_axe.wire import WIRE

__all__ = ["WIRE"]
