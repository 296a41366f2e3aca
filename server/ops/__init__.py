"""Operations: Prometheus metrics and their HTTP endpoint, structured JSON logs, tracing,
the health service, and the interceptor plumbing (``interceptors``) that metrics, logs and
the API's interceptors share.

Imports nothing of the server outside this package: every other room may use it.
"""
