"""Mutation testing of the rules engine (``make mutation``; see ``mutation.__main__``)."""
