"""The data packs a server offers for Fire & Axe, and how a CreateGame names one.

The engine knows a pack by its digest once it is registered (``engine.fire_and_axe.data_pack``:
the built-in demo pack always; others when a file is loaded or a game's options carry a pack's
text). A server *offers* the demo pack and those it was started with (``--data-pack FILE``,
:func:`offer_file`); the first of those becomes the default of games that name none, else the
demo pack (INVENTED where the rulebook is silent: NOT the published board or cards).

A CreateGame names a pack by ``"demo"``, a pack's id or its digest (:func:`resolve`): any
pack this process knows, i.e. offered, or carried by a game it hosts. A pack of the caller's
own comes as its text (``FireAndAxeOptions.data_pack_toml``), which only an admin may send
(``protocol.fire_and_axe.wire``): the engine then validates and registers it, and the game
keeps the text in its options.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.fire_and_axe.data_pack import (
    Pack,
    demo_pack,
    known_digests,
    load,
    pack_by_digest,
    validate_file,
)
from protocol.wire import ConversionError, ServerOption

__all__ = [
    "SERVER_OPTION",
    "check_files",
    "default_digest",
    "known",
    "offer_file",
    "offer_files",
    "offered",
    "problems_in",
    "reset",
    "resolve",
]

_offered: list[str] = []  # digests of the packs loaded from files, in the order given


def offer_file(path: str | Path) -> Pack:
    """Load, validate and offer the pack in ``path`` (``DataPackError`` names every problem);
    the first one offered becomes the default pack."""
    pack = load(path)
    if pack.digest not in _offered and pack.digest != demo_pack().digest:
        _offered.append(pack.digest)
    return pack


def pack_paths(text: str) -> list[Path]:
    """The files of a ``--data-pack`` value, separated like PATH (``os.pathsep``)."""
    return [Path(p) for p in text.strip().split(os.pathsep) if p.strip()]


def check_files(text: str) -> str:
    """A ``--data-pack`` value, each of its files validated now (so a bad pack stops the server
    before it starts); ValueError names every problem (file, entry, fault)."""
    paths = pack_paths(text)
    if not paths:
        raise ValueError("expected one or more files")
    problems: list[str] = []
    for path in paths:
        problems.extend(problems_in(path))
    if problems:
        raise ValueError("\n  ".join(["data pack problems:", *problems]))
    return text.strip()


def offer_files(text: str) -> None:
    """Offer exactly the packs of a ``--data-pack`` value ("": the demo pack only), in order;
    what an earlier call offered is withdrawn (the packs stay known to the engine)."""
    reset()
    for path in pack_paths(text):
        offer_file(path)


SERVER_OPTION = ServerOption(
    name="data_pack",
    help="Fire & Axe data pack(s) this server offers besides the built-in demo pack (INVENTED "
    "where the rulebook is silent): TOML files (docs/fire-and-axe.md), separated by "
    f"'{os.pathsep}'; the first is the default of games that name none (default: none)",
    metavar="FILE",
    check=check_files,
)
"""The server's ``--data-pack`` (``YGGDRASIL_DATA_PACK``), declared through the wire."""


def problems_in(path: str | Path) -> list[str]:
    """Every problem of the pack in ``path``, each naming the file, the entry and the fault
    (empty: it can be offered). Reads the file; registers nothing."""
    return validate_file(path)[1]


def reset() -> None:
    """Offer the demo pack only again (tests; the packs stay known to the engine)."""
    _offered.clear()


def default_digest() -> str:
    """The pack of a game that names none: the first offered from a file, else the demo."""
    return _offered[0] if _offered else demo_pack().digest


def offered() -> list[Pack]:
    """The demo pack, then the packs loaded from files, in order."""
    return [demo_pack(), *(pack_by_digest(d) for d in _offered)]


def known() -> list[Pack]:
    """Every pack offered, then the others this process knows (carried by games' options),
    by digest."""
    first = offered()
    seen = {p.digest for p in first}
    return first + [pack_by_digest(d) for d in known_digests() if d not in seen]


def resolve(name: str) -> str:
    """The digest of the pack a CreateGame names: ``""`` the default, ``"demo"``, a digest or
    a pack id (of one offered pack, else of one known pack); ConversionError, listing the
    offered ones, otherwise."""
    if not name:
        return default_digest()
    if name == "demo":
        return demo_pack().digest
    packs = known()
    for pack in packs:
        if pack.digest == name:
            return pack.digest
    # An id: among the packs offered first (the demo's id names the demo, whatever edited
    # copies of it games may carry), then among every known pack.
    for among in (offered(), packs):
        by_id = [p.digest for p in among if p.id == name]
        if len(by_id) == 1:
            return by_id[0]
    offers = ", ".join(f"{p.id} ({p.digest[:12]}…)" for p in offered())
    if by_id:
        raise ConversionError(f"several packs have the id {name!r}: name one by its digest")
    raise ConversionError(f"no data pack {name!r} here; this server offers: {offers}")
