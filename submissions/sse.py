"""Server-Sent Events for a submission: `GET /api/v1/submissions/<id>/events` (async, ASGI).

One EventHub per event loop polls the database for every open stream at once (one query per tick
for all of them, on one dedicated thread), so 200 watchers cost one connection and a few queries a
second, not 200 threads. A stream resumes after `Last-Event-ID` (or `?after=`), sends a heartbeat
when idle, and ends once the final RESULT has been sent.

Floods are bounded: a user holds at most HIPJUDGE_SSE_MAX_PER_USER open streams across every web
process (429 beyond: a fault run opened 4,000 on one submission and a web process grew to 425 MB;
a cap per process let one user hold 16 on two processes). Each stream holds a lease in the database
(core.stream_leases), which the hub renews for all its streams at once and a killed process's
streams lose when they expire.

A stream ends with an `event: error` once its credentials stop working: the hub checks every
stream's token or session at once every HIPJUDGE_SSE_REVOKE_CHECK seconds (at most 2;
submissions.sse_credentials), and each stream checks in full, its right to see the submission
included, every HIPJUDGE_SSE_RECHECK seconds.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import time
import uuid
import weakref
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connections
from django.db.models import Q
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt

from accounts.tokens import token_user
from core import clock
from core.stream_leases import renew_interval_s, stream_lease_claim, stream_lease_release, stream_leases_renew
from submissions.event_visibility import event_payload
from submissions.models import TERMINAL_STATUSES, Submission, SubmissionEvent
from submissions.selectors import submission_get
from submissions.sse_credentials import Viewer, credentials_gone, viewer_still_allowed
from submissions.sse_schema import MAX_SEQ

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Subscription:
    submission_id: uuid.UUID
    cursor: int
    viewer: Viewer | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    revoked: bool = False  # its token or session stopped working
    wake: asyncio.Event = field(default_factory=asyncio.Event)


class Ticket:
    """One open stream's lease (core.stream_leases), renewed by the hub while the ticket lives. A
    stream that ends releases it at once; one whose response was dropped before it started (a client
    gone between the view and the first byte) releases it when the ticket is collected."""

    __slots__ = ("__weakref__", "lease_id", "release")

    def __init__(self, lease_id: int, executor: ThreadPoolExecutor) -> None:
        self.lease_id = lease_id
        self.release = weakref.finalize(self, executor.submit, _release_lease, lease_id)
        self.release.atexit = False  # a process that exits leaves its leases to expire


class EventHub:
    def __init__(self) -> None:
        self._subs: set[Subscription] = set()
        self._task: asyncio.Task | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sse-hub")
        self._tickets: weakref.WeakSet[Ticket] = weakref.WeakSet()
        self._renew_due = 0.0
        self._credentials_due = 0.0

    def ticket(self, lease_id: int) -> Ticket:
        ticket = Ticket(lease_id, self._executor)
        self._tickets.add(ticket)
        return ticket

    def release(self, ticket: Ticket) -> None:
        self._tickets.discard(ticket)
        ticket.release()

    def subscribe(self, submission_id: uuid.UUID, after: int, viewer: Viewer | None = None) -> Subscription:
        sub = Subscription(submission_id, after, viewer)
        self._subs.add(sub)
        if self._task is None or self._task.done():
            # A context of its own: the hub outlives the request that started it, whose thread-sensitive
            # context (core.asgi_handler) is closed when that request ends.
            self._task = asyncio.get_running_loop().create_task(self._run(), context=contextvars.Context())
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        self._subs.discard(sub)

    async def _run(self) -> None:
        while self._subs:
            await self._tick()
            await asyncio.sleep(poll_interval(len(self._subs)))

    async def _tick(self) -> None:
        subs = list(self._subs)
        # Viewers of one submission each keep their own cursor; the read starts at the lowest.
        cursors: dict[uuid.UUID, int] = {}
        for sub in subs:
            cursors[sub.submission_id] = min(sub.cursor, cursors.get(sub.submission_id, sub.cursor))
        loop = asyncio.get_running_loop()
        now = clock.monotonic()
        renew = [t.lease_id for t in self._tickets] if now >= self._renew_due else []
        if renew:
            self._renew_due = now + renew_interval_s()
        check = {sub.viewer for sub in subs if sub.viewer is not None} if now >= self._credentials_due else set()
        if check:
            self._credentials_due = now + settings.HIPJUDGE_SSE_REVOKE_CHECK
        try:
            found = await loop.run_in_executor(self._executor, _fetch, cursors)
            gone = await loop.run_in_executor(self._executor, _maintain, renew, check) if renew or check else set()
        except Exception:  # a database hiccup must not end every stream; try again next tick
            log.exception("SSE hub poll failed")
            return
        statuses, events = found
        for sub in subs:
            if sub.viewer in gone:
                sub.revoked = True
                sub.wake.set()
            new = [e for e in events.get(sub.submission_id, []) if e["seq"] > sub.cursor]
            if new:
                sub.events.extend(new)
                sub.cursor = new[-1]["seq"]
            status = statuses.get(sub.submission_id)
            if status is None or (status[0] in TERMINAL_STATUSES and sub.cursor >= status[1]):
                sub.done = True
            if new or sub.done:
                sub.wake.set()


def _maintain(renew: list[int], check: set[Viewer]) -> set[Viewer]:
    """Renew these leases and find the viewers whose credentials are gone (the hub's thread)."""
    try:
        stream_leases_renew(lease_ids=renew)
        return credentials_gone(check) if check else set()
    finally:
        close_old_connections()


def _release_lease(lease_id: int) -> None:
    try:
        stream_lease_release(lease_id=lease_id)
    except DatabaseError:  # the lease expires by itself
        log.warning("stream lease %s not released: the database did not answer", lease_id)
    finally:
        close_old_connections()


# Streams a tick serves at HIPJUDGE_SSE_POLL_MIN; beyond, the interval grows with them up to
# HIPJUDGE_SSE_POLL, so that the hub's queries per second stay about what FAST_STREAMS cost.
FAST_STREAMS = 4


def poll_interval(streams: int) -> float:
    """Seconds until the next poll with this many streams open: short while few watch (a result
    reaches its watcher within a few tens of ms), the configured interval from about 50 streams on."""
    fast, slow = settings.HIPJUDGE_SSE_POLL_MIN, settings.HIPJUDGE_SSE_POLL
    return min(slow, max(fast, fast * streams / FAST_STREAMS))


# Submissions per query: one `(submission = ? AND seq > ?)` term each, far below SQLite's limit of
# about 1000 terms in one expression (and of 999 variables in old SQLite builds).
FETCH_CHUNK = 200


def _fetch(cursors: dict[uuid.UUID, int]) -> tuple[dict[uuid.UUID, tuple[str, int]], dict[uuid.UUID, list]]:
    """(status, last_seq) and the events after each cursor, for any number of submissions."""
    close_old_connections()
    statuses: dict[uuid.UUID, tuple[str, int]] = {}
    events: dict[uuid.UUID, list] = {}
    items = list(cursors.items())
    for start in range(0, len(items), FETCH_CHUNK):
        _fetch_chunk(dict(items[start:start + FETCH_CHUNK]), statuses, events)
    return statuses, events


def _fetch_chunk(cursors: dict[uuid.UUID, int], statuses: dict[uuid.UUID, tuple[str, int]],
                 events: dict[uuid.UUID, list]) -> None:
    """The statuses are read BEFORE the events, so that a terminal status seen here implies every
    event up to last_seq is in the same answer. Events are read only for submissions with new ones
    (last_seq past the cursor): an idle tick is one query."""
    found = {row[0]: (row[1], row[2]) for row in
             Submission.objects.filter(pk__in=list(cursors)).values_list("pk", "status", "last_seq")}
    statuses.update(found)
    condition = Q()
    for submission_id, cursor in cursors.items():
        if submission_id in found and found[submission_id][1] > cursor:
            condition |= Q(submission_id=submission_id, seq__gt=cursor)
    if not condition:
        return
    for event in SubmissionEvent.objects.filter(condition).order_by("submission_id", "seq")[:5000]:
        events.setdefault(event.submission_id, []).append(
            {"seq": event.seq, "type": event.type, "payload": event.payload, "at": event.at.isoformat()})


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, EventHub] = weakref.WeakKeyDictionary()


def get_hub() -> EventHub:
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = EventHub()
    return hub


def _format(event: dict[str, Any], staff: bool) -> str:
    shown = {**event, "payload": event_payload(event_type=event["type"], payload=event["payload"], staff=staff)}
    return f"id: {event['seq']}\nevent: {event['type']}\ndata: {json.dumps(shown, separators=(',', ':'))}\n\n"


REVOKED = ("event: error\ndata: " + json.dumps(
    {"message": "Your credentials are no longer valid (token revoked, or signed out); the stream ends."}) + "\n\n")


async def _stream(submission_id: uuid.UUID, after: int, viewer: Viewer, ticket: Ticket) -> AsyncIterator[str]:
    hub = get_hub()
    sub = hub.subscribe(submission_id, after, viewer)
    heartbeat = settings.HIPJUDGE_SSE_HEARTBEAT
    recheck = settings.HIPJUDGE_SSE_RECHECK
    try:
        yield f"retry: 2000\n: stream of submission {submission_id}\n\n"
        last_write = clock.monotonic()
        next_check = clock.monotonic() + recheck
        while True:
            timeout = max(0.0, min(heartbeat - (clock.monotonic() - last_write), next_check - clock.monotonic()))
            try:
                await asyncio.wait_for(sub.wake.wait(), timeout)
            except TimeoutError:
                pass
            if sub.revoked:
                yield REVOKED
                return
            if clock.monotonic() >= next_check:
                next_check = clock.monotonic() + recheck
                if await sync_to_async(_still_allowed)(viewer, submission_id) is False:
                    yield REVOKED
                    return
            sub.wake.clear()
            pending, sub.events = sub.events, []
            if pending:
                yield "".join(_format(e, viewer.staff) for e in pending)
                last_write = clock.monotonic()
            if sub.done:
                return
            if clock.monotonic() - last_write >= heartbeat:
                yield f"event: heartbeat\ndata: {json.dumps({'t': time.time()})}\n\n"
                last_write = clock.monotonic()
    finally:
        hub.unsubscribe(sub)
        hub.release(ticket)


def _close_connections() -> None:
    """The request's thread gives its connection back: a stream may stay open for minutes and must
    not hold one meanwhile (the hub reads for every stream on its own connection)."""
    for conn in connections.all(initialized_only=True):
        if not conn.in_atomic_block:  # (a test's wrapping transaction keeps its connection)
            conn.close()


def _still_allowed(viewer: Viewer, submission_id: uuid.UUID) -> bool | None:
    try:
        return viewer_still_allowed(viewer, submission_id)
    finally:
        _close_connections()


def _viewer(request: HttpRequest, submission_id: uuid.UUID) -> tuple[int, str] | Viewer:
    """Who asks, if they may see it (else the refusal)? Runs in the request's own thread, whose
    database connection is closed at the end."""
    try:
        header = request.headers.get("Authorization", "")
        user: Any
        token = ""
        if header.startswith("Token "):
            token = header[6:].strip()
            user = token_user(key=token)
        else:
            user = request.user if request.user.is_authenticated else None
        if user is None:
            return 401, "Authentication credentials were not provided."
        if submission_get(user=user, submission_id=submission_id) is None:
            return 404, "No such submission."
        return Viewer(user_id=user.pk, staff=user.is_staff, token=token,
                      session_key="" if token else (request.session.session_key or ""))
    finally:
        _close_connections()


def _claim(user_id: int, cap: int) -> int | None:
    try:
        return stream_lease_claim(user_id=user_id, cap=cap)
    finally:
        _close_connections()


def _error(status: int, message: str) -> JsonResponse:
    return JsonResponse({"message": message, "extra": {}}, status=status)


@csrf_exempt  # it only reads (any other method is a 405): no CSRF check's HTML 403 before that
async def events_stream(request: HttpRequest, submission_id: uuid.UUID) -> HttpResponseBase:
    if request.method != "GET":
        refusal = _error(405, f"{request.method} is not allowed here; use GET.")
        refusal["Allow"] = "GET"
        return refusal
    viewer = await sync_to_async(_viewer)(request, submission_id)
    if isinstance(viewer, tuple):
        return _error(*viewer)
    cursors = {name: value for name, value in (("Last-Event-ID", request.headers.get("Last-Event-ID")),
                                               ("after", request.GET.get("after"))) if value is not None}
    for name, value in cursors.items():
        if not (value.isascii() and value.isdigit() and len(value) <= 10 and int(value) <= MAX_SEQ):
            return _error(400, f"{name}: must be an integer from 0 to {MAX_SEQ}, not {value[:40]!r}.")
    after = int(cursors.get("Last-Event-ID") or cursors.get("after") or 0)  # the browser's header wins
    cap = settings.HIPJUDGE_SSE_MAX_PER_USER
    lease_id = await sync_to_async(_claim)(viewer.user_id, cap)
    if lease_id is None:
        refusal = _error(429, f"You have {cap} live event streams open, the most one user may; "
                              "close one, or read GET /api/v1/submissions/<id>.")
        refusal["Retry-After"] = "5"
        return refusal
    ticket = get_hub().ticket(lease_id)
    response = StreamingHttpResponse(_stream(submission_id, after, viewer, ticket), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # proxies must not buffer a live stream
    return response

