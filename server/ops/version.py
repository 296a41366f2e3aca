"""The release this server reports to operators (``DiagnosticsService.Ping`` and the
``yggdrasil_build_info`` metric), so that they can tell which build answers.

It is the installed distribution's version, which ``pip install .`` (the image, ``make
release``) and ``make install`` take from pyproject.toml: one number, written once."""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version

__all__ = ["UNKNOWN", "server_version"]

# Sources run without being installed have no distribution metadata.
UNKNOWN = "0+unknown"


@cache
def server_version() -> str:
    try:
        return version("yggdrasil")
    except PackageNotFoundError:
        return UNKNOWN
