"""The address of the client behind a proxy the operator trusts (``x-forwarded-for``).

Anonymous callers are counted per address (``server.api.identity``). Behind Envoy every call's
peer is Envoy itself, so without this all anonymous clients would share one quota.
``--trusted-proxies`` names the proxies (addresses and CIDR blocks). For a call whose peer is
one of them, the client is read from ``x-forwarded-for``, to which each proxy on the way
appends the address it got the call from. Read from the right, every entry that is itself a
trusted proxy is skipped and the first one that is not is the client: entries further left
were written by the client or by proxies nobody vouches for, and may say anything. If every
entry is trusted, the left-most is the client; with no header, the peer. An entry that is not
an address (a proxy that writes ``unknown``) ends the walk: the trusted hop to its right is
the client then.

A call from a peer that is not trusted keeps its peer address and its ``x-forwarded-for`` is
ignored, so a client cannot pick its own address (and its own fresh quota) by sending one. A
cluster node that relays a call is trusted by its signature, not its address
(``server.cluster.node_auth``): ``--trusted-proxies`` names only the proxy in front (Envoy).

Addresses come out in the form of ``server.api.identity.peer_address``: ``ipv4:10.0.0.7``,
``ipv6:[2001:db8::1]`` (an IPv4 address mapped into IPv6 reads as the IPv4 one).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import unquote

__all__ = ["FORWARDED_FOR", "TrustedProxies", "forwarded_for", "with_hop"]

FORWARDED_FOR = "x-forwarded-for"
# Entries read from the right at most; a longer chain ends the walk there (a header is
# bounded by gRPC's metadata size anyway, this bounds the work on it).
MAX_HOPS = 32

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Metadata = Iterable[tuple[str, str | bytes]]


def _plain(address: IPAddress) -> IPAddress:
    """An IPv4 address mapped into IPv6 as the IPv4 one (a dual-stack listener's peers)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _parse_host(text: str) -> IPAddress | None:
    """An address from ``1.2.3.4``, ``1.2.3.4:80``, ``2001:db8::1`` or ``[2001:db8::1]:80``."""
    host = text.strip()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else ""
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    try:
        return _plain(ipaddress.ip_address(host))
    except ValueError:
        return None


def _peer_ip(peer: str) -> IPAddress | None:
    """The address of a gRPC peer (``ipv4:10.0.0.7:51234``, ``ipv6:[::1]:5``; other kinds,
    such as ``unix:``, have none)."""
    kind, sep, rest = unquote(peer).partition(":")
    if not sep or kind not in ("ipv4", "ipv6"):
        return None
    host, colon, port = rest.rpartition(":")
    if not colon or not port.isdigit():
        return None
    return _parse_host(host)


def _form(address: IPAddress) -> str:
    if isinstance(address, ipaddress.IPv4Address):
        return f"ipv4:{address}"
    return f"ipv6:[{address.compressed}]"


def forwarded_for(metadata: Metadata | None) -> list[str]:
    """The entries of every ``x-forwarded-for`` header of a call, left to right."""
    entries: list[str] = []
    for key, value in metadata or ():
        if key == FORWARDED_FOR:
            text = value.decode("latin-1") if isinstance(value, bytes) else value
            entries += [part.strip() for part in text.split(",") if part.strip()]
    return entries


def with_hop(metadata: Metadata | None, peer: str) -> tuple[str, str] | None:
    """The ``x-forwarded-for`` header a node relaying a call sends on (the entries it got
    and the address it got the call from), so that the next node can find the client as
    behind any other proxy; None if the peer has no address."""
    address = _peer_ip(peer)
    if address is None:
        entries = forwarded_for(metadata)
        return (FORWARDED_FOR, ", ".join(entries)) if entries else None
    return (FORWARDED_FOR, ", ".join([*forwarded_for(metadata), str(address)]))


class TrustedProxies:
    """The proxies whose ``x-forwarded-for`` is believed (see the module doc)."""

    def __init__(self, networks: Iterable[Network] = ()) -> None:
        self.networks = tuple(networks)

    @classmethod
    def parse(cls, text: str) -> TrustedProxies:
        """From a comma- or space-separated list of addresses and CIDR blocks; a ValueError
        names an entry that is neither."""
        networks: list[Network] = []
        for part in text.replace(",", " ").split():
            try:
                network = ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(
                    f"expected IP addresses or CIDR blocks (e.g. 10.0.0.0/8, ::1), got {part!r}"
                ) from None
            if isinstance(network, ipaddress.IPv6Network):
                mapped = network.network_address.ipv4_mapped
                if mapped is not None and network.prefixlen >= 96:
                    network = ipaddress.IPv4Network(f"{mapped}/{network.prefixlen - 96}")
            networks.append(network)
        return cls(networks)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, address: IPAddress) -> bool:
        return any(address in network for network in self.networks)

    def client_address(
        self, peer: str, metadata: Metadata | None, *, peer_trusted: bool = False
    ) -> str | None:
        """The client's address read from ``x-forwarded-for``, for a call from ``peer``
        with ``metadata``; None when the peer is not a trusted proxy or the header names
        nobody further (then the peer is the client: ``server.api.identity.peer_address``).
        ``peer_trusted``: the peer proved otherwise that it is a proxy of ours (a cluster node
        that signed the call: ``server.cluster.node_auth``), whatever its address."""
        here = _peer_ip(peer)
        if here is None or not (peer_trusted or (self.networks and self.trusts(here))):
            return None
        client = here
        for entry in reversed(forwarded_for(metadata)[-MAX_HOPS:]):
            address = _parse_host(entry)
            if address is None:
                break
            client = address
            if not self.trusts(address):
                break
        return None if client is here else _form(client)
