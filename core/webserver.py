"""`python -m core.webserver`: uvicorn serving config.asgi, with the request deadlines uvicorn lacks.

uvicorn closes a keep-alive connection that stays idle after a response (`--timeout-keep-alive`),
but never one that is still sending a request's headers or body, nor one that connects and sends
nothing: a fault run held 6,000 connections open with slow headers and none was closed in 45 s,
and 500 connections sending a body 1 byte every 2 s were all open after 60 s. The HTTP protocols
here (uvicorn's own, subclassed) give every request, from its first byte (or from the connection,
for the first request), HIPJUDGE_WEB_HEADER_TIMEOUT seconds to finish its headers (else the
connection is closed) and HIPJUDGE_WEB_BODY_TIMEOUT seconds to finish its body (else it is
answered 408 in the error shape, unless an answer has begun, and closed). The production proxy
applies its own limits in front (docs/operations.md).

The command takes the few options `scripts/serve.sh web` and the tests use, and runs uvicorn with
the protocol given as an import path, which uvicorn's command line does not accept.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from functools import cache
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_TIMEOUT_ENV = "HIPJUDGE_WEB_HEADER_TIMEOUT"
BODY_TIMEOUT_ENV = "HIPJUDGE_WEB_BODY_TIMEOUT"
IDLE_TIMEOUT_ENV = "HIPJUDGE_WEB_IDLE_TIMEOUT"
DEFAULT_HEADER_TIMEOUT_S = 10.0
DEFAULT_BODY_TIMEOUT_S = 30.0  # a whole 512 KiB body at 20 KiB/s
DEFAULT_IDLE_TIMEOUT_S = 5


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        raise SystemExit(f"{name}={raw!r}: expected seconds, e.g. {default:g}") from None
    if not value > 0:
        raise SystemExit(f"{name}={raw!r}: must be above 0")
    return value


@cache
def header_timeout_s() -> float:
    return _seconds(HEADER_TIMEOUT_ENV, DEFAULT_HEADER_TIMEOUT_S)


@cache
def body_timeout_s() -> float:
    return _seconds(BODY_TIMEOUT_ENV, DEFAULT_BODY_TIMEOUT_S)


def _request_timeout_answer() -> bytes:
    body = json.dumps({"message": f"The request was not received whole within {body_timeout_s():g} s of its "
                                  "first byte.", "extra": {}}).encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(body), body))


class HeaderDeadline:
    """Mixed into a uvicorn HTTP protocol: a timer runs while the connection waits for a request's
    headers to be complete, and closes the connection when it fires; then another runs until the
    request's body is complete."""

    cycle: Any
    transport: asyncio.Transport
    _header_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None
    _request_started = 0.0  # the loop's time of the request's first byte

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and self._awaiting_headers():
            self._arm_header_timer()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)  # type: ignore[misc]
        if self._header_timer is not None and not self._awaiting_headers():
            self._cancel_header_timer()
            if self._awaiting_body():
                self._body_timer = asyncio.get_running_loop().call_at(
                    self._request_started + body_timeout_s(), self._body_too_slow)
        if self._body_timer is not None and not self._awaiting_body():
            self._cancel_body_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        self._cancel_body_timer()
        super().connection_lost(exc)  # type: ignore[misc]

    def _awaiting_headers(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _awaiting_body(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete and self.cycle.more_body

    def _arm_header_timer(self) -> None:
        loop = asyncio.get_running_loop()
        self._request_started = loop.time()
        self._header_timer = loop.call_later(header_timeout_s(), self._headers_too_slow)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _cancel_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._awaiting_headers() and not self.transport.is_closing():
            self.transport.close()

    def _body_too_slow(self) -> None:
        self._body_timer = None
        if not self._awaiting_body() or self.transport.is_closing():
            return
        if not self.cycle.response_started:
            self.transport.write(_request_timeout_answer())
        # The application reading the body is told the client is gone (it answers nobody), and
        # anything it sends is dropped, before the transport reports the connection lost.
        self.cycle.disconnected = True
        self.cycle.message_event.set()
        self.transport.close()


class HttpToolsWithHeaderDeadline(HeaderDeadline, HttpToolsProtocol):
    pass


class H11WithHeaderDeadline(HeaderDeadline, H11Protocol):
    pass


def protocol_path() -> str:
    try:
        import httptools  # noqa: F401  (uvicorn's faster parser, as its own `auto` prefers)
    except ImportError:
        return f"{__name__}:H11WithHeaderDeadline"
    return f"{__name__}:HttpToolsWithHeaderDeadline"


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m core.webserver", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--proxy-headers", action=argparse.BooleanOptionalAction, default=True)  # as uvicorn
    parser.add_argument("--forwarded-allow-ips", default="127.0.0.1")
    parser.add_argument("--no-access-log", action="store_true")
    parser.add_argument("--timeout-graceful-shutdown", type=int, default=20)
    args = parser.parse_args(argv)
    header_timeout_s(), body_timeout_s()  # a malformed value stops the server here, not at its first connection
    idle = os.environ.get(IDLE_TIMEOUT_ENV, "").strip() or str(DEFAULT_IDLE_TIMEOUT_S)
    if not idle.isdigit() or int(idle) < 1:
        raise SystemExit(f"{IDLE_TIMEOUT_ENV}={idle!r}: expected whole seconds, at least 1")
    options: dict[str, Any] = dict(
        host=args.host, port=args.port, workers=args.workers, http=protocol_path(), proxy_headers=args.proxy_headers,
        forwarded_allow_ips=args.forwarded_allow_ips, access_log=not args.no_access_log,
        timeout_keep_alive=int(idle), timeout_graceful_shutdown=args.timeout_graceful_shutdown)
    if args.workers <= 1:
        uvicorn.run("config.asgi:application", **options)
        return
    # What uvicorn.run does for several workers, but each worker with a listening socket of its own.
    from uvicorn.supervisors import Multiprocess

    from core.listeners import OwnListener, reserve

    config = uvicorn.Config("config.asgi:application", **options)
    held = reserve(args.host, args.port)
    try:
        Multiprocess(config, sockets=[OwnListener(held)]).run()  # type: ignore[list-item]
    except KeyboardInterrupt:
        pass
    finally:
        held.close()


if __name__ == "__main__":
    main()
