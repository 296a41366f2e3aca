"""Blood Rage's part of the learning environments: its observation tensor and action
catalogue (``encoding``), gathered as ``ENCODING`` (``envs.games`` finds it through the
registry's ``envs`` column).

Imports ``envs``' generic modules and ``engine.blood_rage``.
"""

from envs.blood_rage.encoding import ENCODING

__all__ = ["ENCODING"]
