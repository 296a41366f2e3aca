"""Generated Python code for the Yggdrasil gRPC API (proto package ``yggdrasil``).

Only ``yggdrasil/v1/*_pb2*.py(i)`` are generated, by ``make proto`` from ``proto/``; do not edit
them by hand. This file and ``v1/__init__.py`` are hand-written package markers.
"""
