"""Issue 40 (throughput): the web processes' ASGI handler crosses from the event loop into a thread
once per ordinary request (Django's own crosses four times), hands the database connection back
before the response goes out, and still streams an async view's response until the client leaves."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator
from typing import Any
from unittest import mock

import pytest
from asgiref.sync import SyncToAsync
from django.core.handlers.asgi import ASGIHandler
from django.core.signals import request_finished, request_started
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import path

from core.asgi_handler import OneHopASGIHandler
from tests.conftest import read_source, run_coroutine

stream_closed = threading.Event()


async def endless_stream(request: HttpRequest) -> StreamingHttpResponse:
    async def events() -> AsyncIterator[bytes]:
        try:
            for n in range(10_000):
                yield b"data: %d\n\n" % n
                await asyncio.sleep(0.01)
        finally:
            stream_closed.set()

    return StreamingHttpResponse(events(), content_type="text/event-stream")


async def short_stream(request: HttpRequest) -> StreamingHttpResponse:
    async def events() -> AsyncIterator[bytes]:
        for n in range(3):
            yield b"data: %d\n\n" % n

    return StreamingHttpResponse(events(), content_type="text/event-stream")


async def broken_stream(request: HttpRequest) -> StreamingHttpResponse:
    async def events() -> AsyncIterator[bytes]:
        yield b"data: 0\n\n"
        raise OSError("the stream's source failed")

    return StreamingHttpResponse(events(), content_type="text/event-stream")


def this_thread() -> str:
    return f"{threading.current_thread().name} {threading.get_ident()}"


def plain(request: HttpRequest) -> HttpResponse:
    return HttpResponse(this_thread())


marks = threading.local()


def marked(request: HttpRequest) -> HttpResponse:
    """The mark this thread got at its first request here: the same thread (not one whose ident was
    reused) answers with the same mark."""
    if not hasattr(marks, "mark"):
        marks.mark = uuid.uuid4().hex
    return HttpResponse(marks.mark)


inside: list[str] = []
second_inside = threading.Event()


def turn(request: HttpRequest) -> HttpResponse:
    """Waits a little for a second request to come in meanwhile, which one slot must not let in."""
    inside.append("enter")
    if inside.count("enter") == 2:
        second_inside.set()
    second_inside.wait(timeout=0.3)
    inside.append("exit")
    return HttpResponse(b"ok")


together = threading.Barrier(2)


def meet(request: HttpRequest) -> HttpResponse:
    """Answers once another request has come here too: two requests on one thread never would."""
    together.wait(timeout=10)
    return HttpResponse(this_thread())


urlpatterns = [path("plain", plain), path("stream", short_stream), path("endless", endless_stream),
               path("broken", broken_stream), path("meet", meet), path("marked", marked), path("turn", turn)]


def scope(method: str, url: str, headers: list[tuple[bytes, bytes]] | None = None) -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
            "path": url, "raw_path": url.encode(), "query_string": b"", "root_path": "",
            "headers": [(b"host", b"testserver"), *(headers or [])], "client": ("127.0.0.1", 5000),
            "server": ("testserver", 80)}


def call(app: Any, request_scope: dict[str, Any], body: bytes = b"", *, leave_after: int | None = None,
         log: list[str] | None = None) -> list[dict[str, Any]]:
    """Run one request through the ASGI app; the client disconnects after `leave_after` body messages."""
    sent: list[dict[str, Any]] = []
    log = log if log is not None else []

    async def main() -> None:
        left = asyncio.Event()
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await left.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)
            log.append(message["type"])
            if leave_after is not None and message["type"] == "http.response.body" and len(sent) > leave_after:
                left.set()

        await asyncio.wait_for(app(request_scope, receive, send), timeout=30)

    run_coroutine(main())
    return sent


def test_an_ordinary_response_hands_the_connection_back_before_it_is_sent(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    log: list[str] = []
    started = lambda **_: log.append("request_started")  # noqa: E731
    finished = lambda **_: log.append("request_finished")  # noqa: E731
    request_started.connect(started)
    request_finished.connect(finished)
    try:
        sent = call(OneHopASGIHandler(), scope("GET", "/plain"), log=log)
    finally:
        request_started.disconnect(started)
        request_finished.disconnect(finished)
    assert sent[0]["status"] == 200
    assert sent[1]["body"] != this_thread().encode()  # the view ran in a thread of its own
    # request_finished closes (returns) the database connection: before the first byte goes out
    assert log == ["request_started", "request_finished", "http.response.start", "http.response.body"]


def test_a_requests_thread_is_kept_for_a_later_request(settings: Any) -> None:
    """Django's handler starts a thread per request, and another to join it at the end."""
    settings.ROOT_URLCONF = __name__
    app = OneHopASGIHandler()
    first, second = (call(app, scope("GET", "/marked"))[1]["body"] for _ in range(2))
    assert first == second


def concurrently(app: Any, url: str, count: int) -> list[list[dict[str, Any]]]:
    async def all_of_them() -> list[list[dict[str, Any]]]:
        async def one() -> list[dict[str, Any]]:
            sent: list[dict[str, Any]] = []

            async def receive() -> dict[str, Any]:
                return {"type": "http.request", "body": b"", "more_body": False}

            async def send(message: dict[str, Any]) -> None:
                sent.append(message)

            await app(scope("GET", url), receive, send)
            return sent

        return list(await asyncio.wait_for(asyncio.gather(*(one() for _ in range(count))), timeout=30))

    return run_coroutine(all_of_them())


def test_one_slot_runs_one_request_at_a_time(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    settings.HIPJUDGE_WEB_RUNNING, settings.HIPJUDGE_WEB_SLOW_S = 1, 30
    inside.clear()
    second_inside.clear()
    answers = concurrently(OneHopASGIHandler(), "/turn", 2)
    assert [a[0]["status"] for a in answers] == [200, 200]
    assert inside == ["enter", "exit", "enter", "exit"]


def test_requests_at_the_same_time_run_on_threads_of_their_own(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    settings.HIPJUDGE_WEB_RUNNING = 2
    together.reset()
    answers = concurrently(OneHopASGIHandler(), "/meet", 2)
    assert [a[0]["status"] for a in answers] == [200, 200]  # a shared thread: the barrier breaks, 500
    assert answers[0][1]["body"] != answers[1][1]["body"]


def test_an_async_views_stream_is_sent_whole_and_closed_after(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    log: list[str] = []
    finished = lambda **_: log.append("request_finished")  # noqa: E731
    request_finished.connect(finished)
    try:
        sent = call(OneHopASGIHandler(), scope("GET", "/stream"), log=log)
    finally:
        request_finished.disconnect(finished)
    assert sent[0]["status"] == 200
    assert b"".join(m.get("body", b"") for m in sent[1:]) == b"data: 0\n\ndata: 1\n\ndata: 2\n\n"
    assert log[-1] == "request_finished"  # closed once the stream ended, not before


def test_a_stream_stops_when_its_client_leaves(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    stream_closed.clear()
    sent = call(OneHopASGIHandler(), scope("GET", "/endless"), leave_after=3)
    assert stream_closed.wait(10), "the stream's generator was not closed after the client left"
    assert len(sent) < 50  # of 10,000 events


def test_a_stream_that_fails_midway_is_still_closed(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    log: list[str] = []
    finished = lambda **_: log.append("request_finished")  # noqa: E731
    request_finished.connect(finished)
    try:
        with pytest.raises(OSError, match="source failed"):
            call(OneHopASGIHandler(), scope("GET", "/broken"), log=log)
    finally:
        request_finished.disconnect(finished)
    assert log[-1] == "request_finished"


@pytest.mark.usefixtures("problems_loaded", "local_pool")
@pytest.mark.django_db(transaction=True)
def test_a_submission_crosses_into_a_thread_once(settings: Any, owner: Any) -> None:
    """Django's handler crosses (sync_to_async) for request_started, the chain, and response.close."""
    from accounts.tokens import token_create

    settings.HIPJUDGE_QUOTA_CONCURRENT = 10
    key = token_create(user=owner).key
    body = json.dumps({"problem": "vector-add", "language": "cpp", "source": read_source("cpp.cpp"),
                       "mode": "check"}).encode()
    headers = [(b"authorization", f"Token {key}".encode()), (b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    real_call = SyncToAsync.__call__

    def crossings(app: Any) -> int:
        calls = 0

        async def counting(self: SyncToAsync, *args: Any, **kwargs: Any) -> Any:
            nonlocal calls
            calls += 1
            return await real_call(self, *args, **kwargs)

        with mock.patch.object(SyncToAsync, "__call__", counting):
            sent = call(app, scope("POST", "/api/v1/submissions", headers), body)
        assert sent[0]["status"] == 201, sent[1:]
        return calls

    assert crossings(OneHopASGIHandler()) == 1
    assert crossings(ASGIHandler()) >= 3
