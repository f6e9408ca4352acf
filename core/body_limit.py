"""ASGI: a request body over DATA_UPLOAD_MAX_MEMORY_SIZE is refused with 413 before Django reads
it (Django's ASGI handler spools the whole body to a temporary file before any view runs).

A declared Content-Length over the limit is answered at once, without reading the body; a body
sent without one (chunked) is counted as it arrives and cut off at the limit."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from django.conf import settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[..., Awaitable[None]]  # Django's ASGIHandler types its arguments its own way


class BodyLimit:
    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        declared = dict(scope.get("headers") or []).get(b"content-length", b"0")
        if not declared.isdigit():  # (uvicorn refuses these itself; another server might not)
            await _refuse(send, 400, "The Content-Length header is not a number.")
            return
        if int(declared) > limit:
            await _refuse(send, 413, _too_large(limit))
            return
        received = 0
        refused = False

        async def counting_receive() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit and not refused:
                    refused = True
                    await _refuse(send, 413, _too_large(limit))
                    return {"type": "http.disconnect"}  # Django stops reading and answers nobody
            return message

        async def guarded_send(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, counting_receive, guarded_send)


def _too_large(limit: int) -> str:
    return f"The request body is larger than the limit of {limit} bytes."


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"message": message, "extra": {}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
