"""Middleware of the project."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase


class SyncMiddlewareChain:
    """Sync-only and last in MIDDLEWARE: under ASGI Django then builds the whole chain as sync and
    runs it in one thread, instead of hopping between the event loop and a thread around each of
    its async-capable middlewares (6 hops per request instead of 16). An async view (the SSE
    stream) still runs on the loop. No effect under WSGI."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)
