"""The client's address behind trusted proxies: x-forwarded-for is believed only from them,
read from the right, and a spoofed header from anyone else changes nothing."""

from __future__ import annotations

import pytest

from server.api.identity import peer_address
from server.cluster.client_address import TrustedProxies, forwarded_for, with_hop
from server.cluster.forwarding import relayed_metadata
from server.config import ServerConfig

ENVOY = "ipv4:10.0.0.5:41000"


def xff(*values: str) -> list[tuple[str, str]]:
    return [("x-forwarded-for", value) for value in values]


@pytest.fixture
def proxies() -> TrustedProxies:
    return TrustedProxies.parse("10.0.0.0/24, 192.168.1.9 2001:db8::/32")


def test_a_call_from_a_trusted_proxy_is_the_right_most_untrusted_entry(
    proxies: TrustedProxies,
) -> None:
    # The client wrote "6.6.6.6" itself; Envoy appended the address it saw, 203.0.113.7.
    assert proxies.client_address(ENVOY, xff("6.6.6.6, 203.0.113.7")) == "ipv4:203.0.113.7"
    # A load balancer (trusted) between the client and Envoy: skipped.
    assert proxies.client_address(ENVOY, xff("6.6.6.6, 203.0.113.7, 192.168.1.9")) == (
        "ipv4:203.0.113.7"
    )
    # Several headers are one list, in order.
    assert proxies.client_address(ENVOY, xff("6.6.6.6", "203.0.113.7")) == "ipv4:203.0.113.7"
    # Ports and brackets are dropped; IPv6 in its short form; IPv4 mapped into IPv6 as IPv4.
    assert proxies.client_address(ENVOY, xff("203.0.113.7:5123")) == "ipv4:203.0.113.7"
    assert proxies.client_address(ENVOY, xff("[2a00:0:0::1]:80")) == "ipv6:[2a00::1]"
    assert proxies.client_address(ENVOY, xff("::ffff:203.0.113.7")) == "ipv4:203.0.113.7"
    # Every entry trusted: the left-most is the client.
    assert proxies.client_address(ENVOY, xff("10.0.0.8, 192.168.1.9")) == "ipv4:10.0.0.8"
    # No header, or nothing in it: the peer is the client (None: use the peer).
    assert proxies.client_address(ENVOY, []) is None
    assert proxies.client_address(ENVOY, xff(" , ")) is None
    # An entry that is not an address ends the walk at the trusted hop to its right.
    assert proxies.client_address(ENVOY, xff("203.0.113.7, unknown, 10.0.0.9")) == ("ipv4:10.0.0.9")
    assert proxies.client_address(ENVOY, xff("203.0.113.7, unknown")) is None
    # A trusted IPv6 peer, in the form grpc reports it (sometimes percent-encoded).
    assert proxies.client_address("ipv6:%5B2001:db8::5%5D:443", xff("203.0.113.7")) == (
        "ipv4:203.0.113.7"
    )


def test_a_spoofed_header_from_an_untrusted_peer_is_ignored(proxies: TrustedProxies) -> None:
    for peer in ("ipv4:203.0.113.7:5000", "ipv6:[2a00::1]:80", "unix:/tmp/socket"):
        assert proxies.client_address(peer, xff("10.0.0.1, 1.2.3.4")) is None
    # Nobody is trusted by default: the header never counts.
    assert TrustedProxies.parse("").client_address(ENVOY, xff("1.2.3.4")) is None
    assert not TrustedProxies.parse("")


def test_the_address_form_is_the_one_of_peer_addresses(proxies: TrustedProxies) -> None:
    # server.api.identity keeps an address in this form as it is (it strips only a port).
    for entry in ("203.0.113.7", "[2a00::1]:80", "2001:db9::"):
        address = proxies.client_address(ENVOY, xff(entry))
        assert address is not None and peer_address(address) == address
    assert peer_address("ipv4:203.0.113.7:5000") == "ipv4:203.0.113.7"


def test_only_the_last_hops_are_read(proxies: TrustedProxies) -> None:
    chain = ", ".join(["203.0.113.7"] + ["10.0.0.9"] * 40)
    assert proxies.client_address(ENVOY, xff(chain)) == "ipv4:10.0.0.9"


def test_bad_settings_name_the_entry() -> None:
    with pytest.raises(ValueError, match="'envoy'"):
        TrustedProxies.parse("10.0.0.1, envoy")
    with pytest.raises(ValueError, match="trusted_proxies"):
        ServerConfig(trusted_proxies="10.0.0.300")
    config = ServerConfig.from_env_and_args(
        ["--trusted-proxies", "10.1.0.0/16"], env={"YGGDRASIL_TRUSTED_PROXIES": "::1"}
    )
    assert [str(n) for n in config.proxies.networks] == ["10.1.0.0/16"]
    # An IPv4 block written as mapped IPv6 covers the IPv4 peers.
    mapped = TrustedProxies.parse("::ffff:10.2.0.0/112")
    assert mapped.client_address("ipv4:10.2.3.4:1", xff("203.0.113.7")) == "ipv4:203.0.113.7"


def test_a_relaying_node_appends_the_address_it_got_the_call_from() -> None:
    assert with_hop(xff("6.6.6.6", "203.0.113.7"), "ipv4:10.0.0.5:4100") == (
        "x-forwarded-for",
        "6.6.6.6, 203.0.113.7, 10.0.0.5",
    )
    assert with_hop([], "ipv6:[::1]:5") == ("x-forwarded-for", "::1")
    assert with_hop([], "unix:/tmp/socket") is None
    assert forwarded_for([("x-forwarded-for", b"1.2.3.4, 5.6.7.8")]) == ["1.2.3.4", "5.6.7.8"]


def test_a_relayed_call_carries_the_hop_it_came_from() -> None:
    received = (
        ("authorization", "Bearer k"),
        ("user-agent", "grpc-python"),
        ("x-forwarded-for", "6.6.6.6"),
        ("x-forwarded-for", "203.0.113.7"),
        ("x-yggdrasil-forwarded", "spoofed"),
    )
    assert relayed_metadata(received, "ipv4:10.0.0.5:4100", "node-b") == (
        ("authorization", "Bearer k"),
        ("x-forwarded-for", "6.6.6.6, 203.0.113.7, 10.0.0.5"),
        ("x-yggdrasil-forwarded", "node-b"),
    )
    # The owner, trusting the proxies and the nodes, finds the client.
    relayed = relayed_metadata(received, "ipv4:10.0.0.5:4100", "node-b")
    trusting = TrustedProxies.parse("10.0.0.0/24")
    assert trusting.client_address("ipv4:10.0.0.6:5000", relayed) == "ipv4:203.0.113.7"
