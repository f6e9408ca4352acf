"""A small fixed-window rate limiter over Django's cache, shared by the API's DRF throttles and the
site's form views (core/throttling.py).

A rate (count, period_s) allows `count` events per key in each period-long window (windows start at
multiples of the period since the epoch, so a burst across a boundary can reach twice the count).
A window's counter is one cache key, created with `add` and counted with `incr`: atomic on Redis,
so every web process sharing it (settings.CACHES) counts together; LocMemCache counts per process.
Keys hold a digest of what is counted (an address, a username), never the value itself.

A cache that fails lets the request through and logs it: a throttle must not take sign-in down.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
import time
from typing import Any

from django.core.cache import cache

log = logging.getLogger(__name__)

Rate = tuple[int, int]  # (count, period in seconds); None where a rate is switched off


def _key(scope: str, ident: str, window: int) -> str:
    digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"throttle:{scope}:{digest}:{window}"


def _window(rate: Rate, now: float | None) -> tuple[int, int]:
    """The current window's number, and the whole seconds until it ends (at least 1)."""
    moment = time.time() if now is None else now
    window = int(moment // rate[1])
    return window, max(1, math.ceil((window + 1) * rate[1] - moment))


def hit(scope: str, ident: str, rate: Rate | None, *, now: float | None = None) -> int | None:
    """Count one event of `ident`; when it is over the rate, the seconds to wait, else None."""
    if rate is None or not ident:
        return None
    window, wait = _window(rate, now)
    key = _key(scope, ident, window)
    try:
        cache.add(key, 0, timeout=rate[1] + 1)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=rate[1] + 1)
            count = 1
    except Exception:  # noqa: BLE001  (any cache outage: let the request through, say so)
        log.warning("throttle %s: the cache failed; letting the request through", scope, exc_info=True)
        return None
    return wait if count > rate[0] else None


def blocked(scope: str, ident: str, rate: Rate | None, *, now: float | None = None) -> int | None:
    """The seconds to wait when `ident` already used its whole rate in this window (counts nothing)."""
    if rate is None or not ident:
        return None
    window, wait = _window(rate, now)
    try:
        count: Any = cache.get(_key(scope, ident, window), 0)
    except Exception:  # noqa: BLE001
        log.warning("throttle %s: the cache failed; letting the request through", scope, exc_info=True)
        return None
    return wait if int(count or 0) >= rate[0] else None


def client_address(request: Any) -> str:
    """Who is asking: REMOTE_ADDR, with an IPv6 client counted by its /64 (one host usually holds a
    whole /64). Behind a reverse proxy the server must set REMOTE_ADDR from the forwarded header
    (uvicorn --proxy-headers --forwarded-allow-ips=<the proxy>), or every client is the proxy."""
    raw = str(request.META.get("REMOTE_ADDR") or "")
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return raw
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
