"""Clients of the Yggdrasil gRPC API: the command-line tool (`yggdrasil`) and bots."""
