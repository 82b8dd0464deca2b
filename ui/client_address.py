"""Which visitor a request came from, for the room-open rate limit (ui/rooms.py OPENS["address"])
and the run slots' shares (ui/slots.py: per address, then per browser).

The websocket's peer is the visitor only when nothing stands between them. Behind the shipped
nginx (deploy/nginx.conf) the peer is the proxy, and every visitor would share its one bucket: 20
opens locked every teacher of the deployment out for an hour. So the peer is believed only when it
is not a trusted proxy; a trusted proxy's X-Forwarded-For is read from the right (nginx appends the
address it saw, so the rightmost hop that is not itself a trusted proxy is the visitor; what a
visitor wrote further left is never read), then its X-Real-IP. A visitor who is not behind a
trusted proxy cannot choose their address with a header.

Trusted proxies: ATTN_TRUSTED_PROXIES, comma-separated addresses, networks ("10.0.0.0/8") or host
names (docker-compose.yml names its nginx service), default the loopback addresses. Addresses are
compared as addresses: "::ffff:127.0.0.1" (IPv4 mapped into IPv6, as uvicorn reports a loopback
peer on a dual-stack socket) is 127.0.0.1. A loopback peer with no forwarded header is this
machine itself (a teacher running the app on their laptop): it has no address bucket, only its
browser's.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import socket
from collections.abc import Mapping

ENV = "ATTN_TRUSTED_PROXIES"
BROWSER_COOKIE = "attn_browser"  # a random id a browser keeps (ui/classroom.py writes it): its tabs as one
DEFAULT = "127.0.0.0/8,::1"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse(text: str | None) -> Address | None:
    """An address as an address (IPv4-mapped IPv6 as IPv4, "[::1]" and a port-less form), or None."""
    if not text:
        return None
    text = text.strip().strip("[]")
    if text.count(":") == 1:  # "1.2.3.4:5678"
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


@functools.lru_cache(maxsize=8)
def trusted_networks(setting: str) -> tuple:
    """The networks of a trusted-proxies setting; a host name resolved once (a name that does not
    resolve trusts nothing)."""
    out = []
    for entry in (e.strip() for e in setting.split(",")):
        if not entry:
            continue
        try:
            out.append(ipaddress.ip_network(entry, strict=False))
            continue
        except ValueError:
            pass
        try:
            for info in socket.getaddrinfo(entry, None):
                ip = parse(info[4][0])
                if ip is not None:
                    out.append(ipaddress.ip_network(ip))
        except OSError:
            pass
    return tuple(out)


def _trusted(ip: Address, networks) -> bool:
    return any(ip.version == n.version and ip in n for n in networks)


def visitor(peer: str | None, headers: Mapping[str, str], setting: str | None = None) -> str | None:
    """The visitor's address as text, or None where there is none to count (this machine itself).
    peer: the websocket's peer as Streamlit reports it (st.context.ip_address: None for loopback)."""
    networks = trusted_networks(setting if setting is not None else os.environ.get(ENV, DEFAULT))
    ip = parse(peer) or ipaddress.ip_address("127.0.0.1")
    if not _trusted(ip, networks):
        return None if ip.is_loopback else str(ip)
    forwarded = [h.strip() for h in _header(headers, "X-Forwarded-For").split(",") if h.strip()]
    for hop in reversed(forwarded[-16:]):
        hop_ip = parse(hop)
        if hop_ip is None:
            return None  # a hop no proxy would write: nothing to trust further left
        if not _trusted(hop_ip, networks):
            return str(hop_ip)
    real = parse(_header(headers, "X-Real-IP"))
    if real is not None and not _trusted(real, networks):
        return str(real)
    return None  # the proxy itself, or this machine: no address to count


IPV6_PREFIX = 64  # an ISP gives one customer a whole /64 (often a /56 or /48): one visitor, 2**64 addresses


def bucket(address: str) -> str:
    """What a per-address limit counts: an IPv4 address as it is, an IPv6 address by its /64
    network. Counted one by one, a visitor with an IPv6 network opened a room from each of its
    addresses and the address limit never held."""
    ip = parse(address)
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{ip}/{IPV6_PREFIX}", strict=False))
    return str(ip) if ip is not None else address


def _header(headers: Mapping[str, str], name: str) -> str:
    try:
        value = headers.get(name) or headers.get(name.lower()) or ""
    except Exception:  # noqa: BLE001 - a headers object that cannot answer: no header
        return ""
    return value if isinstance(value, str) else ""
