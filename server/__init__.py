"""Yggdrasil gRPC server: hosts many concurrent Blood Rage games."""
