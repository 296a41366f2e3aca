"""A local cluster for development and tests: a throwaway PostgreSQL, nodes, Envoy."""
