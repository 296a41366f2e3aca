"""Mutation testing of the rules engine (``make mutation``; see ``mutation.__main__``)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The files mutated and measured: every module of engine/, at any depth (each game's folder
# and its subfolders, engine/core, engine/registry.py).
ENGINE_FILES = str(ROOT / "engine" / "**" / "*.py")
