"""Every RPC learns who calls it: the API key in its metadata, or an anonymous peer address.

:class:`AuthInterceptor` reads ``authorization: Bearer <key>`` from the call's metadata, looks
the key up in the :class:`server.api.identity.KeyRing` and makes the caller's
:class:`server.api.identity.Identity` available to the handler (:func:`current_identity`). Logs
carry the key's name (``client``), never the key. An unknown key, or no key where the server
requires one, is UNAUTHENTICATED before the handler runs; so is a malformed header. Health
checks pass without a key (container probes have none). Every RPC the interceptors wrap is
identified (unary, server-streaming, and bidirectional coroutines such as PlaySession); server
reflection, a generator-style stream, is left alone: it only describes the API.

An anonymous caller is counted by its address: the peer's, or, for a call from a trusted
proxy (``--trusted-proxies``) or a cluster node that signed the call
(``server.cluster.node_auth``, checked before this), the client's address in
``x-forwarded-for`` (``server.cluster.client_address``; logged as ``client_address``). An IPv6
caller is counted by its /64 (``server.api.identity.quota_address``).
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

import grpc
import structlog

from server.api.identity import Identity, KeyRing, anonymous_identity
from server.cluster.client_address import TrustedProxies
from server.cluster.node_auth import calling_node
from server.ops.interceptors import MethodInfo, WrappingInterceptor, write_all

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext

__all__ = ["OPEN_METHOD_PREFIXES", "AuthInterceptor", "current_identity", "identity_scope"]

# Calls served without a key even with --require-api-key: health checks.
OPEN_METHOD_PREFIXES: tuple[str, ...] = ("/grpc.health.v1.Health/",)

_LOCAL = anonymous_identity("local")
_current: contextvars.ContextVar[Identity] = contextvars.ContextVar("yggdrasil_identity")
_BEARER = "bearer "
MAX_KEY_LENGTH = 512


def current_identity() -> Identity:
    """The caller of the RPC being handled (an anonymous local identity outside of one)."""
    return _current.get(_LOCAL)


def identity_scope(identity: Identity) -> contextvars.Token[Identity]:
    """Make ``identity`` the current caller (tests, embedding); undo with ``_current.reset``."""
    return _current.set(identity)


def _bearer(metadata: Iterable[tuple[str, str | bytes]] | None) -> tuple[bool, str]:
    """(whether an authorization header was sent, the key in it or "")."""
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
            if text[: len(_BEARER)].lower() == _BEARER:
                return True, text[len(_BEARER) :].strip()
            return True, ""
    return False, ""


class AuthInterceptor(WrappingInterceptor):
    """Identifies the caller of every RPC (see the module doc)."""

    def __init__(
        self,
        keys: KeyRing,
        *,
        require_key: bool = False,
        proxies: TrustedProxies | None = None,
    ) -> None:
        super().__init__()
        self.keys = keys
        self.require_key = require_key
        self.proxies = proxies or TrustedProxies()

    def _identify(self, info: MethodInfo, context: AioContext) -> Identity | str:
        """The caller, or why it is refused."""
        metadata = context.invocation_metadata()
        sent, key = _bearer(metadata)
        if sent:
            if not key or len(key) > MAX_KEY_LENGTH:
                return "malformed authorization metadata: expected 'Bearer <API key>'"
            found = self.keys.identify(key)
            if found is None:
                return "unknown API key"
            return found
        if self.require_key and not info.full.startswith(OPEN_METHOD_PREFIXES):
            return "this server requires an API key (metadata 'authorization: Bearer <key>')"
        peer = context.peer()
        node = calling_node() is not None  # a cluster node relayed it (signed)
        forwarded = (
            self.proxies.client_address(peer, metadata, peer_trusted=node)
            if self.proxies or node
            else None
        )
        if forwarded is not None:
            structlog.contextvars.bind_contextvars(client_address=forwarded)
        return self.keys.anonymous(forwarded or peer)

    async def _enter(self, info: MethodInfo, context: AioContext) -> None:
        found = self._identify(info, context)
        if isinstance(found, str):
            structlog.contextvars.bind_contextvars(client="unauthenticated")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, found)
            raise AssertionError("context.abort returned")  # pragma: no cover
        # Bound for the rest of the RPC's task (its own context): the handler's lines and the
        # access line carry the key's name.
        structlog.contextvars.bind_contextvars(client=found.name)
        _current.set(found)

    def _wrap_coroutine(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Awaitable[Any]]
    ) -> Callable[[Any, AioContext], Awaitable[Any]]:
        enter = self._enter

        async def behaviour(request: Any, context: AioContext) -> Any:
            await enter(info, context)
            return await inner(request, context)

        return behaviour

    def _wrap_async_gen(
        self, info: MethodInfo, inner: Callable[[Any, AioContext], Any]
    ) -> Callable[[Any, AioContext], Awaitable[None]]:
        enter = self._enter

        async def behaviour(request: Any, context: AioContext) -> None:
            await enter(info, context)
            await write_all(inner(request, context), context)

        return behaviour
