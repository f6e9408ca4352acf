"""Django's ASGI handler with one thread hop per request instead of four.

Every view of the project but the SSE stream is sync, and every middleware is sync-capable. Django's
own ASGIHandler still runs a sync request as: the request_started signal in a thread, back to the
event loop, the middleware chain in a thread, back to the loop for the async core of the handler,
into the thread again for the view (through asgiref's CurrentThreadExecutor), back, and finally
response.close() (the request_finished signal) in a thread once more. Each crossing is a future, a
condition variable and a context copy; together they cost a web process about as much CPU as the
problem list's view itself (docs/benchmarks.md).

Each request still has a thread of its own, as Django's handler gives it (asgiref's
ThreadSensitiveContext: everything thread-sensitive in the request runs there, so one slow request
never holds up another), but not a new one: Django's starts a thread for each request and, at its
end, another thread to join it, two thread starts that each wait for the GIL while the event loop
waits for them. Here the threads are kept and lent again (RequestThreads). How many requests run
their Python at once is core.request_slots' business.

This handler loads the middleware chain as sync (Django's WSGI form) and runs, in one call on the
request's thread-sensitive thread: request_started, the request's creation, the chain and the view,
and for an ordinary response its close(), so that the database connection is back in the pool
before the bytes go out. The loop then sends the bytes. A streaming response (the SSE stream, a
static file) is sent as Django sends it: while listening for the client's disconnect, closed after.

An async view (the SSE stream) still runs on the event loop: the sync chain calls it through
async_to_sync, which from a sync_to_async thread runs the coroutine on the loop that waits for it.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http.response import FileResponse, HttpResponseBase
from django.urls import set_script_prefix

from core.request_slots import RequestSlots

KEPT_THREADS = 64  # idle request threads a process keeps; more are let go when their request ends


class RequestThreads:
    """Single-thread executors, each lent to one request at a time and kept for a later one. Used
    from the event loop's thread only."""

    def __init__(self) -> None:
        self._idle: list[ThreadPoolExecutor] = []

    def lend(self) -> ThreadPoolExecutor:
        return self._idle.pop() if self._idle else ThreadPoolExecutor(1, thread_name_prefix="request")

    def take_back(self, thread: ThreadPoolExecutor) -> None:
        if len(self._idle) < KEPT_THREADS:
            self._idle.append(thread)  # last in, first out: the thread most recently run is lent next
        else:
            thread.shutdown(wait=False)


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self._threads = RequestThreads()
        self._slots = RequestSlots()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # as Django's handler
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        thread = self._threads.lend()
        try:
            async with ThreadSensitiveContext(executor=thread):
                await self.handle(scope, receive, send)
        except BaseException:  # cancelled or failed: its thread may still be at work, and is lent to nobody
            thread.shutdown(wait=False)
            raise
        self._threads.take_back(thread)

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            async with self._slots.slot():
                response = await sync_to_async(self._respond, thread_sensitive=True)(scope, body_file)
            if response.streaming:
                await self._send_streaming(response, receive, send)
            else:
                await self.send_response(response, send)  # a gone client: uvicorn drops the bytes
        finally:
            body_file.close()

    def _respond(self, scope: Any, body_file: Any) -> HttpResponseBase:
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, refusal = self.create_request(scope, body_file)
        if request is None:  # a malformed request: Django's 400 or 413
            assert refusal is not None
            response: HttpResponseBase = refusal
        else:
            response = self.get_response(request)
            response._handler_class = self.__class__  # type: ignore[attr-defined]
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size  # as Django's handler: the server chunks it further
        if not response.streaming:
            response.close()  # request_finished: the connection goes back to the pool now
        return response

    async def _send_streaming(self, response: HttpResponseBase, receive: Any, send: Any) -> None:
        """As Django's handler: stop sending when the client disconnects; close the response after."""
        sending = asyncio.create_task(self.send_response(response, send))
        listening = asyncio.create_task(self.listen_for_disconnect(receive))
        try:
            try:
                await asyncio.wait([sending, listening], return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (listening, sending):
                    if not task.done():
                        task.cancel()
                    try:
                        await task
                    except (asyncio.CancelledError, RequestAborted):
                        pass
        finally:  # also when the stream itself failed: request_finished, and the file closed
            await sync_to_async(response.close, thread_sensitive=True)()
