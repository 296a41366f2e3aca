"""Structured JSON logging for the Yggdrasil server.

One JSON object per line: ``timestamp`` (ISO 8601, UTC), ``level``,
``event`` and whatever context is bound.  Request-scoped fields (request_id,
method, game_id, seat) are carried in contextvars by
:class:`AccessLogInterceptor`, so every line logged while an RPC is being
handled carries them.  Secret-bearing keys are redacted whatever their
nesting, as defence in depth: nothing should log them on purpose.
"""

from __future__ import annotations

import functools
import json
import logging
import secrets
import sys
import time
from collections.abc import Iterable, Mapping
from contextvars import Token
from typing import TYPE_CHECKING, Any, TextIO

import grpc
import orjson
import structlog
from structlog.typing import EventDict, FilteringBoundLogger, Processor, WrappedLogger

from server.ops.interceptors import MethodInfo, ObservingInterceptor

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext

__all__ = [
    "MAX_LOGGED_CHARS",
    "MAX_TRACEBACK_CHARS",
    "REDACTED",
    "AccessLogInterceptor",
    "clip_values",
    "configure_logging",
    "is_secret_key",
    "log_action_applied",
    "new_request_id",
    "redact_secrets",
]

REDACTED = "[redacted]"

# Keys whose values must never reach a log line.  Anything ending in
# "_token" is covered by is_secret_key() as well.
SECRET_KEYS = frozenset(
    {
        "token",
        "tokens",
        "seat_token",
        "admin_token",
        "hand",
        "hands",
        "pack",
        "packs",
        "kept_card",
        "kept_cards",
        "quest",
        "quests",
        "battle_card",
        "battle_cards",
    }
)

# Codes that point at a server-side fault rather than at the caller.
_SERVER_FAULT_CODES = frozenset(
    {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.DATA_LOSS}
)

_HANDLER_MARK = "_yggdrasil_json_handler"


@functools.lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    """True for keys whose values are redacted."""
    lowered = key.lower()
    return lowered in SECRET_KEYS or lowered.endswith("_token")


# Values that cannot hold nested keys: skipped without the (slow) ABC check.
_FLAT_TYPES = (str, int, float, type(None))


def _redact_nested(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            k: REDACTED if isinstance(k, str) and is_secret_key(k) else _redact_nested(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_redact_nested(v) for v in value]
    return value


# The longest text a log line keeps of one value: values from requests (a game id, a name, a
# key, a peer) may be as long as a client makes them (a 4 MB game id was logged whole on every
# call); anything longer is cut, with how long it was.
MAX_LOGGED_CHARS = 512
# The server's own text (a traceback rendered by structlog or by a library's logging record, a
# stack) is not a client's: clipped at 512 characters, an ERROR line ended in the middle of
# its first frame and never showed the cause. It is bounded all the same (an exception may
# quote a huge value), keeping its beginning and its end, where the final exception is.
MAX_TRACEBACK_CHARS = 16_384
SERVER_TEXT_KEYS = frozenset({"exception", "stack"})


def _clip(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) <= MAX_LOGGED_CHARS:
            return value
        return f"{value[:MAX_LOGGED_CHARS]}...({len(value)} characters)"
    if isinstance(value, Mapping):
        return {k: _clip(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clip(v) for v in value]
    return value


def _clip_server_text(text: str) -> str:
    """The server's own text, at most about MAX_TRACEBACK_CHARS: each line cut to
    MAX_LOGGED_CHARS * 2 (a line quoting a huge value keeps the exception's type), then its
    head and its tail."""
    if len(text) <= MAX_TRACEBACK_CHARS and len(text) <= 2 * MAX_LOGGED_CHARS:
        return text
    bound = 2 * MAX_LOGGED_CHARS
    text = "\n".join(
        line if len(line) <= bound else f"{line[:bound]}...({len(line)} characters)"
        for line in text.split("\n")
    )
    if len(text) <= MAX_TRACEBACK_CHARS:
        return text
    half = MAX_TRACEBACK_CHARS // 2
    left_out = len(text) - 2 * half
    return f"{text[:half]}\n...({left_out} characters left out)...\n{text[-half:]}"


def clip_values(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """structlog processor: every string value (nested ones too) is cut to
    MAX_LOGGED_CHARS characters, except the server's own tracebacks and stacks
    (``SERVER_TEXT_KEYS``), bounded to MAX_TRACEBACK_CHARS."""
    for key, value in event_dict.items():
        if key in SERVER_TEXT_KEYS and isinstance(value, str):
            event_dict[key] = _clip_server_text(value)
        elif isinstance(value, str):
            if len(value) > MAX_LOGGED_CHARS:
                event_dict[key] = _clip(value)
        elif not isinstance(value, _FLAT_TYPES):
            event_dict[key] = _clip(value)
    return event_dict


def redact_secrets(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """structlog processor: replace secret values by ``"[redacted]"``."""
    for key, value in event_dict.items():
        if is_secret_key(key):
            event_dict[key] = REDACTED
        elif not isinstance(value, _FLAT_TYPES) and isinstance(value, Mapping | list | tuple):
            event_dict[key] = _redact_nested(value)
    return event_dict


def _dumps(event: Any, **json_options: Any) -> str:
    """The JSON text of one log line. orjson takes a third of the time of ``json`` (measured
    in docs/performance.md); ``json`` still writes what orjson refuses (ints past 64 bits), so
    a log line never fails a request."""
    try:
        return orjson.dumps(
            event, default=json_options.get("default"), option=orjson.OPT_NON_STR_KEYS
        ).decode()
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(event, **json_options)


def _parse_level(level: str | int) -> int:
    if isinstance(level, int):
        return level
    numeric = logging.getLevelNamesMapping().get(level.strip().upper())
    if numeric is None:
        raise ValueError(f"unknown log level {level!r}")
    return numeric


def configure_logging(
    level: str | int = "INFO",
    stream: TextIO | None = None,
    *,
    cache_loggers: bool = False,
) -> None:
    """Send JSON lines at ``level`` and above to ``stream`` (default stdout).

    Records from the standard ``logging`` module (grpc's own, for instance)
    are rendered the same way.  Call again to reconfigure (tests do);
    ``cache_loggers=True`` makes loggers cheaper but pins them to the
    configuration in force when each is first used.
    """
    numeric = _parse_level(level)
    out = sys.stdout if stream is None else stream
    timestamper = structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp")
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        timestamper,
    ]
    structlog.configure(
        processors=[
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            redact_secrets,
            clip_values,
            structlog.processors.JSONRenderer(serializer=_dumps),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        context_class=dict,
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=cache_loggers,
    )

    handler = logging.StreamHandler(out)
    setattr(handler, _HANDLER_MARK, True)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                redact_secrets,
                clip_values,
                structlog.processors.JSONRenderer(),
            ],
        )
    )
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _HANDLER_MARK, False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(numeric)


def new_request_id() -> str:
    """A short random id for one RPC (12 hex characters)."""
    return secrets.token_hex(6)


def log_action_applied(
    logger: FilteringBoundLogger,
    game_id: str,
    seat: int,
    kind: str,
    outcome: str,
    latency_ms: float,
    version: int,
) -> None:
    """The one line logged for every action a game accepts or rejects."""
    logger.info(
        "action_applied",
        game_id=game_id,
        seat=seat,
        kind=kind,
        outcome=outcome,
        latency_ms=round(latency_ms, 3),
        version=version,
    )


_AccessState = tuple[MethodInfo, float, Mapping[str, Token[Any]]]


class AccessLogInterceptor(ObservingInterceptor[_AccessState]):
    """Logs one ``rpc`` line per RPC and binds request-scoped contextvars.

    While the handler runs, ``request_id``, ``method`` and (when the request
    has them) ``game_id`` and ``seat`` are bound with
    ``structlog.contextvars``, so the handler's own log lines carry them.
    The access line adds ``code``, ``latency_ms`` and ``peer``.  It is logged
    at error level for server faults (UNKNOWN, INTERNAL, DATA_LOSS), at
    debug level for ``quiet_methods`` (e.g. health checks), else at
    ``level``: DEBUG by default, so that a server at INFO logs what happened
    to its games (one line per decision and per lifecycle event), not every
    call; ``YGGDRASIL_ACCESS_LOG=on`` makes it INFO.
    """

    def __init__(
        self,
        logger: FilteringBoundLogger | None = None,
        quiet_methods: Iterable[str] = (),
        level: int = logging.DEBUG,
    ) -> None:
        super().__init__()
        self._level = level
        self._logger: FilteringBoundLogger = (
            structlog.get_logger("yggdrasil.access") if logger is None else logger
        )
        self._quiet = frozenset(quiet_methods)

    def _begin(self, method: MethodInfo, request: Any, context: AioContext) -> _AccessState:
        fields: dict[str, Any] = {"request_id": new_request_id(), "method": method.short}
        game_id = getattr(request, "game_id", None)
        if isinstance(game_id, str) and game_id:
            fields["game_id"] = game_id
        seat = getattr(request, "seat", None)
        if isinstance(seat, int) and not isinstance(seat, bool):
            fields["seat"] = seat
        tokens = structlog.contextvars.bind_contextvars(**fields)
        return method, time.perf_counter(), tokens

    def _end(self, state: _AccessState, code: grpc.StatusCode, context: AioContext) -> None:
        method, started, tokens = state
        latency_ms = (time.perf_counter() - started) * 1000.0
        if code in _SERVER_FAULT_CODES:
            level = logging.ERROR
        elif method.short in self._quiet:
            level = logging.DEBUG
        else:
            level = self._level
        try:
            self._logger.log(
                level,
                "rpc",
                code=code.name,
                latency_ms=round(latency_ms, 3),
                peer=context.peer(),
            )
        finally:
            structlog.contextvars.reset_contextvars(**tokens)
