"""What every game's rules share and nothing game-specific: the contract (``contract``), the
seeded random generator (``rng``) and the typed errors (``errors``).

Imports only the standard library; every game folder (``engine/<game>/``) may import it.
"""
