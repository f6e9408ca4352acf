"""The operations endpoints, answered before anything else in the middleware chain.

/healthz (liveness: this process answers; no database), /readyz (readiness, see ops.readiness) and
/metrics (Prometheus). A load balancer probes by address, not by the site's host name, and a
Prometheus server scrapes over plain HTTP inside the network: answering here, first, keeps the
host check (ALLOWED_HOSTS), the HTTPS redirect, sessions and CSRF out of their way.

/metrics is never public: it answers a client whose address is in HIPJUDGE_METRICS_ALLOW (loopback
by default) or a request with `Authorization: Bearer <HIPJUDGE_METRICS_TOKEN>`.

Below the endpoints, a database error that is not the request's fault makes it a 503 with
Retry-After instead of a 500, saying which of three it was: the database does not answer (an
outage), the database gave up on this request for another's sake (a deadlock, a lock or statement
timeout), or this process's connection pool stayed busy with other requests (core.db_pool.PoolBusy):
only the first says the database is not answering.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase

from core.db_pool import PoolBusy
from ops.metrics import metrics_exposition
from ops.readiness import readiness

log = logging.getLogger(__name__)
RETRY_AFTER_S = 5


def _json(body: dict[str, Any], status: int = 200) -> HttpResponse:
    response = HttpResponse(json.dumps(body), content_type="application/json", status=status)
    response["Cache-Control"] = "no-store"
    # A probe every few seconds during an outage must not write an error line each time (Django logs
    # every 4xx/5xx answer unless told it was logged); the outage shows in the state-change lines.
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def metrics_allowed(request: HttpRequest) -> bool:
    token = settings.HIPJUDGE_METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer ") and secrets.compare_digest(header[7:].strip(), token):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in settings.HIPJUDGE_METRICS_ALLOW)


def healthz(request: HttpRequest) -> HttpResponse:
    return _json({"status": "ok"})


def readyz(request: HttpRequest) -> HttpResponse:
    ready, body = readiness()
    return _json(body, 200 if ready else 503)


def metrics(request: HttpRequest) -> HttpResponse:
    if not metrics_allowed(request):
        return _json({"message": "Metrics are readable from the allowed addresses or with the metrics token.",
                      "extra": {}}, 403)
    body, content_type = metrics_exposition(accept=request.headers.get("Accept", ""))
    response = HttpResponse(body, content_type=content_type)
    response["Cache-Control"] = "no-store"
    return response


ENDPOINTS: dict[str, Callable[[HttpRequest], HttpResponse]] = {
    "/healthz": healthz, "/readyz": readyz, "/metrics": metrics}
# Django wraps the driver's errors, psycopg_pool's PoolTimeout (no connection in time) included.
DATABASE_DOWN = (OperationalError, InterfaceError)
# PostgreSQL's SQLSTATEs of a database that answered but gave up on this request for another's sake:
# serialization failure, deadlock, lock not available, statement timeout, too many connections.
# SQLite says "database is locked".
DATABASE_BUSY_SQLSTATES = {"40001", "40P01", "55P03", "57014", "53300"}
# (the log line's words, the answer's message, extra.cause) by what happened
POOL_BUSY = ("every pooled connection stayed in use",
             "The server is busy with other requests (every database connection of this web process stayed "
             "in use); retry in a few seconds.", "pool_busy")
DATABASE_BUSY = ("the database gave up on it for another request's sake",
                 "The database was busy with other requests; retry in a few seconds.", "database_busy")
DATABASE_AWAY = ("the database does not answer",
                 "The database is not answering; retry in a few seconds.", "database_down")


def _classify(exception: Exception) -> tuple[str, str, str]:
    driver_error = exception.__cause__
    if isinstance(driver_error, PoolBusy):
        return POOL_BUSY
    if (getattr(driver_error, "sqlstate", None) in DATABASE_BUSY_SQLSTATES
            or "database is locked" in str(exception)):
        return DATABASE_BUSY
    return DATABASE_AWAY


class OpsMiddleware:
    """First in MIDDLEWARE. Sync only, like the rest of the chain (see core.middleware)."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        endpoint = ENDPOINTS.get(request.path_info)
        if endpoint is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            response = _json({"message": f"{request.method} is not allowed here; use GET.", "extra": {}}, 405)
            response["Allow"] = "GET, HEAD"
            return response
        return endpoint(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DATABASE_DOWN):
            return None
        said, message, cause = _classify(exception)
        log.warning("%s %s: %s (%s)", request.method, request.path, said, type(exception).__name__)
        response = _json({"message": message, "extra": {"retry_after_s": RETRY_AFTER_S, "cause": cause}}, 503)
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
