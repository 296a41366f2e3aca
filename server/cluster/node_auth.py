"""Node-to-node calls are authenticated: a shared cluster secret, without TLS.

A node relays calls about games other nodes own (``server.cluster.forwarding``). Such a call
carries metadata only nodes may send: ``x-yggdrasil-forwarded`` (never relay it again) and the
``x-forwarded-for`` the relaying node appended (the owner counts an anonymous caller by the
address in it). Without proof, a client that reaches a node's port directly could send them
too: pose as a node, pick any address (and a fresh quota) for itself. So a relaying node signs
every relayed call with the cluster's secret, and a node believes node metadata only from a
call that carries a valid signature:

    x-yggdrasil-node-auth: v1 <unix seconds> <member> <hex HMAC-SHA256(secret,
                           "yggdrasil-node-1\\n" + unix seconds + "\\n" + member + "\\n" + method)>

The secret itself never travels; a signature holds for one method, from one member, for
``MAX_SKEW_S`` either side of its time (a captured one is worth a minute of that method).
:class:`NodeAuthInterceptor` checks it on every call: a call with node metadata and no valid
signature is UNAUTHENTICATED; a valid one makes :func:`calling_node` name the member for the
rest of the call (the API's identity, ``server.api.auth``, then trusts the node's
``x-forwarded-for`` whatever its address; the forwarding layer honours
``x-yggdrasil-forwarded`` and sends the owner in a trailer only to nodes).

**The secret file** (``--cluster-secret-file``, ``YGGDRASIL_CLUSTER_SECRET_FILE``): one secret
per line (``#`` comments and blank lines ignored), each at least 32 characters. A node signs
with the first and accepts every one. It is read again when it changes (checked every few
seconds, as the keys file) and on SIGHUP, so the secret rotates without a restart: add the new
secret as a second line on every node, then make it the first on every node, then remove the
old one. A file that cannot be used keeps the secrets read before (the error is logged).
Where a file is awkward (a container's environment from a secret store),
``YGGDRASIL_CLUSTER_SECRET`` holds them comma-separated instead (rotation then takes a
restart of each node). A node of a cluster (``--store postgres``) does not start without
one. ``python -m server.cluster.node_auth new`` prints a fresh secret.

mTLS between nodes (issue 27) can come on top: this works on a plaintext network, where
it keeps clients from posing as nodes but not an eavesdropper from reading the calls.
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import os
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
import structlog

from server.ops.interceptors import MethodInfo, WrappingInterceptor, write_all

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext

__all__ = [
    "MAX_SKEW_S",
    "MIN_SECRET_LENGTH",
    "NODE_AUTH_HEADER",
    "NODE_ONLY_HEADERS",
    "ClusterSecretError",
    "ClusterSecrets",
    "NodeAuthInterceptor",
    "calling_node",
    "node_scope",
]

NODE_AUTH_HEADER = "x-yggdrasil-node-auth"
FORWARDED_HEADER = "x-yggdrasil-forwarded"  # (server.cluster.forwarding names it too)
# Metadata only a node may send: a call that carries any of it must be signed.
NODE_ONLY_HEADERS = frozenset({NODE_AUTH_HEADER, FORWARDED_HEADER})
MAX_SKEW_S = 60
MIN_SECRET_LENGTH = 32
_VERSION = "v1"
_DOMAIN = "yggdrasil-node-1\n"

_node: contextvars.ContextVar[str | None] = contextvars.ContextVar("yggdrasil_node", default=None)


def calling_node() -> str | None:
    """The member id of the node that made the current call (signed), or None."""
    return _node.get()


def node_scope(member: str | None) -> contextvars.Token[str | None]:
    """Make ``member`` the calling node (tests, embedding); undo with ``_node.reset``."""
    return _node.set(member)


class ClusterSecretError(ValueError):
    """The cluster secret file cannot be used (the message names the file and the problem)."""


def _mac(secret: str, stamp: str, member: str, method: str) -> str:
    message = f"{_DOMAIN}{stamp}\n{member}\n{method}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


class ClusterSecrets:
    """The secrets of one node: the first signs, every one is accepted (see the module doc)."""

    def __init__(self, path: Path | None = None, secrets_: Iterable[str] = ()) -> None:
        self.path = path
        self._secrets: tuple[str, ...] = tuple(secrets_)
        for secret in self._secrets:
            _check(secret, "--cluster-secret")
        self._stamp: tuple[int, int, int] | None = None
        self.loads = 0

    @classmethod
    def from_text(cls, text: str | None) -> ClusterSecrets:
        """From ``--cluster-secret`` (comma-separated; ClusterSecretError if one is short)."""
        return cls(None, [p.strip() for p in (text or "").split(",") if p.strip()])

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def load(self) -> None:
        """Read the file (ClusterSecretError if it cannot be used; the old secrets then stay)."""
        if self.path is None:
            return
        try:
            stat = os.stat(self.path)
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ClusterSecretError(
                f"{self.path}: cannot read the cluster secret: {exc}"
            ) from None
        found = []
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            _check(line, f"{self.path}: line {number}")
            found.append(line)
        if not found:
            raise ClusterSecretError(f"{self.path}: no cluster secret in the file")
        self._secrets = tuple(found)
        self._stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        self.loads += 1

    def changed(self) -> bool:
        """Whether the file differs from the one last read."""
        if self.path is None:
            return False
        try:
            stat = os.stat(self.path)
        except OSError:
            return self._stamp is not None
        return (stat.st_mtime_ns, stat.st_size, stat.st_ino) != self._stamp

    def sign(self, member: str, method: str, now: float | None = None) -> tuple[str, str]:
        """The metadata that proves a call of ``method`` comes from node ``member``."""
        stamp = str(int(time.time() if now is None else now))
        mac = _mac(self._secrets[0], stamp, member, method)
        return NODE_AUTH_HEADER, f"{_VERSION} {stamp} {member} {mac}"

    def verify(self, value: str, method: str, now: float | None = None) -> str | None:
        """The member a signature names if it is valid for ``method`` now, else None."""
        parts = value.split(" ")
        if len(parts) != 4 or parts[0] != _VERSION or not parts[1].isdigit():
            return None
        _, stamp, member, mac = parts
        current = time.time() if now is None else now
        if abs(current - int(stamp)) > MAX_SKEW_S or len(member) > 256:
            return None
        valid = False
        for secret in self._secrets:  # every one compared: no early exit
            valid |= hmac.compare_digest(_mac(secret, stamp, member, method), mac)
        return member if valid else None


def _check(secret: str, where: str) -> None:
    if len(secret) < MIN_SECRET_LENGTH or any(c.isspace() or c == "," for c in secret):
        raise ClusterSecretError(
            f"{where}: a cluster secret is at least {MIN_SECRET_LENGTH} characters without "
            "spaces or commas (python -m server.cluster.node_auth new)"
        )


def _node_metadata(metadata: Iterable[tuple[str, str | bytes]] | None) -> tuple[bool, str]:
    """(whether the call carries node-only metadata, its signature or "")."""
    present, signature = False, ""
    for key, value in metadata or ():
        if key in NODE_ONLY_HEADERS:
            present = True
            if key == NODE_AUTH_HEADER:
                signature = value.decode("latin-1") if isinstance(value, bytes) else value
    return present, signature


class NodeAuthInterceptor(WrappingInterceptor):
    """Checks the node signature of every call that carries node metadata (module doc)."""

    def __init__(self, secrets_: ClusterSecrets) -> None:
        super().__init__()
        self.secrets = secrets_
        self._logger = structlog.get_logger("yggdrasil.cluster")

    async def _enter(self, info: MethodInfo, context: AioContext) -> None:
        present, signature = _node_metadata(context.invocation_metadata())
        if not present:
            return
        member = self.secrets.verify(signature, info.full) if self.secrets else None
        if member is None:
            self._logger.warning("node_metadata_refused", peer=context.peer())
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "node metadata (x-yggdrasil-*) without a valid cluster signature: only the "
                "cluster's nodes may send it",
            )
            raise AssertionError("context.abort returned")  # pragma: no cover
        structlog.contextvars.bind_contextvars(node=member)
        _node.set(member)

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


def main(argv: list[str] | None = None) -> int:
    """``python -m server.cluster.node_auth new``: print a fresh secret for the file."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["new"]:
        print("usage: python -m server.cluster.node_auth new", file=sys.stderr)
        return 2
    print(secrets.token_urlsafe(48))
    return 0


if __name__ == "__main__":
    sys.exit(main())
