"""Fire & Axe: A Viking Saga (2-5 players): the rules of fire-and-axe.md on a data pack.

A newcomer finds a rule by its module's name: ``setup`` (F3), ``wintering`` (Load, leaving and
returning, F5.1-F5.3, F8.4), ``sailing`` (F5.6), ``weather`` (the Wind Dial and losses, F6),
``tasks`` (Trade, Raid, Settle, F7), ``runes`` and ``runes_deck`` (F5.4-F5.5, F8),
``rune_effects`` (each effect kind of a Rune card), ``sagas`` (Sagas, Ages, Final Round
markers, F11), ``turns`` (starting and ending turns, F9.4, F10, F12), ``scoring`` (F13),
``flow`` (who decides, legal actions, apply), ``view`` (what a seat may see), ``snapshot``,
``scenario``, ``events`` (every event type). The board and the cards come from a data pack
(``data_pack``, ``board``; the built-in ``demo_pack.toml`` is invented where the rulebook is
silent and says so). ``rules.RULES`` puts it all behind the game contract::

    from engine.fire_and_axe import RULES
    state = RULES.new_game(RULES.options(players=4, seed=7, game_options={}))
    seat = RULES.awaiting(state)[0]
    RULES.apply(state, seat, RULES.legal_actions(state, seat)[0])

Imports only the standard library, ``engine.core`` and its own modules.
"""

from engine.fire_and_axe.rules import RULES, FireAndAxeRules

__all__ = ["RULES", "FireAndAxeRules"]
