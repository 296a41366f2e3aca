"""What every game's bots share: the interface (``Bot.choose(view, rng) -> index``, from the
seat's view dict only — the same information the gRPC API gives that seat), the random bot, and
in-process games between bots (``arena``). A game's own bots live in ``clients/<game>/bots``
and are found by strategy name through ``clients.games``."""

from clients.bots.base import Bot, RandomBot

__all__ = ["Bot", "RandomBot"]
