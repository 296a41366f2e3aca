"""Benchmarks for the engine and the gRPC service (`make bench`)."""
