"""Blood Rage on the wire (blood_rage.proto): its decisions (``actions``), the values views and
events use (``values``), views and results (``views``), events (``events``), static data
(``catalog``), all behind ``wire.WIRE``.

Imports ``engine.blood_rage``, ``protocol``'s generic modules and the generated stubs.
"""

from protocol.blood_rage.wire import WIRE

__all__ = ["WIRE"]
