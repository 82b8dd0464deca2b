"""The room-open rate limit counts each visitor, not the proxy in front of them (issue 45, item
5): behind the production command every client was ::ffff:127.0.0.1 and behind the shipped nginx
the deployment shared one bucket, so 20 opens locked every teacher out."""

import pytest

from ui import client_address as ca

NGINX = {"X-Real-IP": "203.0.113.7", "X-Forwarded-For": "203.0.113.7"}


@pytest.mark.parametrize("peer", [None, "127.0.0.1", "::1", "::ffff:127.0.0.1", "[::1]", "127.0.0.1:53412"])
def test_every_spelling_of_loopback_is_this_machine_or_its_proxy(peer):
    assert ca.visitor(peer, {}, ca.DEFAULT) is None  # this machine itself: its browser's bucket only
    assert ca.visitor(peer, NGINX, ca.DEFAULT) == "203.0.113.7"  # the shipped nginx on this host


def test_two_visitors_behind_one_proxy_have_two_buckets():
    a = ca.visitor("127.0.0.1", {"X-Forwarded-For": "198.51.100.1"}, ca.DEFAULT)
    b = ca.visitor("127.0.0.1", {"X-Forwarded-For": "198.51.100.2"}, ca.DEFAULT)
    assert a != b and {a, b} == {"198.51.100.1", "198.51.100.2"}


def test_a_visitor_cannot_choose_their_address_with_a_header():
    forged = {"X-Real-IP": "1.1.1.1", "X-Forwarded-For": "1.1.1.1"}
    assert ca.visitor("198.51.100.9", forged, ca.DEFAULT) == "198.51.100.9"  # not a trusted proxy
    # behind the proxy, what the visitor wrote left of the address nginx appended is never read
    assert ca.visitor("127.0.0.1", {"X-Forwarded-For": "1.1.1.1, 198.51.100.9"}, ca.DEFAULT) == "198.51.100.9"
    assert ca.visitor("127.0.0.1", {"X-Forwarded-For": "1.1.1.1, not-an-address"}, ca.DEFAULT) is None


def test_a_chain_of_trusted_proxies_is_walked_from_the_right():
    setting = "127.0.0.0/8,10.0.0.0/8"
    headers = {"X-Forwarded-For": "1.1.1.1, 198.51.100.4, 10.0.0.5"}
    assert ca.visitor("10.0.0.9", headers, setting) == "198.51.100.4"


def test_a_proxy_named_by_host_name_is_trusted(monkeypatch):
    monkeypatch.setattr(ca.socket, "getaddrinfo", lambda host, port: [(0, 0, 0, "", ("172.18.0.3", 0))])
    ca.trusted_networks.cache_clear()
    try:
        assert ca.visitor("172.18.0.3", NGINX, "nginx") == "203.0.113.7"
        assert ca.visitor("172.18.0.4", NGINX, "nginx") == "172.18.0.4"
    finally:
        ca.trusted_networks.cache_clear()


def test_the_apps_client_pairs_use_the_visitor(monkeypatch):
    from ui import classroom

    class Ctx:
        ip_address = "::ffff:127.0.0.1"
        headers = {"X-Forwarded-For": "203.0.113.50"}

    monkeypatch.setattr(classroom.st, "context", Ctx())
    monkeypatch.setattr(classroom, "student_id", lambda: "browser-1")
    assert classroom.client() == [("browser", "browser-1"), ("address", "203.0.113.50")]


def test_an_ipv6_visitor_is_counted_by_its_network_not_by_each_address(monkeypatch):
    """Red team (issue 45, item 5's class): an ISP gives one customer a /64 or more; counted address
    by address, one visitor opened rooms from 2**64 addresses and the per-address limit never held."""
    from ui import classroom

    seen = []
    for host in ("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:db8:1:2:dead:beef:0:7"):
        monkeypatch.setattr(ca, "visitor", lambda peer, headers, setting=None, host=host: host)
        monkeypatch.setattr(classroom, "student_id", lambda: "browser-x")
        seen.append(dict(classroom.client())["address"])
    assert len(set(seen)) == 1, seen  # one bucket for the /64
    assert ca.bucket("2001:db8:1:3::1") != seen[0]  # the next /64 is another visitor
    assert ca.bucket("203.0.113.7") == "203.0.113.7" and ca.bucket("::ffff:203.0.113.7") == "203.0.113.7"
