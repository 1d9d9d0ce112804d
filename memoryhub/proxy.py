"""Which peer may speak for the client: ``X-Forwarded-*`` headers only from a trusted proxy.

Behind a TLS-terminating proxy the peer of every request is the proxy, which says in
``X-Forwarded-Proto`` whether the client used HTTPS and in ``X-Forwarded-For`` who the
client is. Anyone who reaches the server directly can send the same headers, so
``TrustedProxyMiddleware`` (first in the chain) removes them unless the peer's address is in
``MEMORYHUB_FORWARDED_ALLOW_IPS`` (addresses or networks; default loopback, the same
variable gunicorn's ``forwarded_allow_ips`` reads). ``client_ip`` is then the address that
sign-in lockouts and per-address rate limits count: the nearest address in
``X-Forwarded-For`` that is not itself a trusted proxy, or the peer.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings

FORWARDED_HEADERS = (
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_FORWARDED_PROTOCOL",
    "HTTP_X_FORWARDED_SSL",
    "HTTP_X_REAL_IP",
    "HTTP_FORWARDED",
)


@lru_cache(maxsize=8)
def _networks(allowed: tuple[str, ...]) -> tuple[bool, tuple]:
    if "*" in allowed:
        return True, ()
    return False, tuple(ipaddress.ip_network(value, strict=False) for value in allowed)


def is_trusted_proxy(address: str | None) -> bool:
    """True when ``address`` is one of ``MEMORYHUB_FORWARDED_ALLOW_IPS`` (or inside one of its networks)."""
    anyone, networks = _networks(tuple(settings.FORWARDED_ALLOW_IPS))
    if anyone:
        return True
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_ip(request) -> str:
    """The client's address: the peer, or behind a trusted proxy the nearest untrusted ``X-Forwarded-For`` hop."""
    peer = request.META.get("REMOTE_ADDR") or ""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")  # only still here when the peer is trusted
    if forwarded:
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        for hop in reversed(hops):
            if not is_trusted_proxy(hop):
                return hop
        if hops:
            return hops[0]
    return peer


class TrustedProxyMiddleware:
    """Drops ``X-Forwarded-*`` (and ``Forwarded``, ``X-Real-IP``) from peers that are not a trusted proxy."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_trusted_proxy(request.META.get("REMOTE_ADDR")):
            for name in FORWARDED_HEADERS:
                request.META.pop(name, None)
        return self.get_response(request)
