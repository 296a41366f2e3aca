"""Property tests draw the same examples in every mutation run.

Hypothesis picks new random examples on every run by default: a mutant would then be killed
or not by luck, and the line coverage would change from run to run. The ``mutation`` profile
derandomizes it and keeps no example database (each run starts from the same point).
"""

from __future__ import annotations

from hypothesis import settings


def use_fixed_examples() -> None:
    settings.register_profile("mutation", derandomize=True, database=None, print_blob=False)
    settings.load_profile("mutation")
