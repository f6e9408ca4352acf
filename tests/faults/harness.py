"""What the fault test owns, so its faults hit nobody else: a redis-server of its own, a TCP proxy in
front of the shared PostgreSQL (refusing connections and cutting open ones is the outage), a
watcher that probes /readyz of every web process, and a sampler that looks for a VM held twice.

The machine's PostgreSQL and Redis are shared with other test runs: they are never stopped here.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import connections
from django.db.models import Count

from submissions.models import RUNNING_STATUSES, Submission
from tests.integration.conftest import free_port, wait_for


class TcpProxy:
    """127.0.0.1:<port> -> target, in a thread of its own. `refuse()` closes the listening socket
    (new connections are refused) and aborts every open connection, as a database restart does;
    `accept()` listens again on the same port."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="pg-proxy", daemon=True)
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self.connections = 0

    def _run(self, coro: Any) -> Any:
        future: Future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout=10)

    def start(self) -> TcpProxy:
        self._thread.start()
        self.accept()
        return self

    def accept(self) -> None:
        async def listen() -> None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, reuse_address=True)
        self._run(listen())

    def refuse(self) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()
                await self._server.wait_closed()
                self._server = None
            for writer in list(self._open):
                writer.transport.abort()
            self._open.clear()
        self._run(close())

    def stop(self) -> None:
        self.refuse()

        async def end_connections() -> None:
            # The aborted connections' handlers, ended before the loop stops: a pending task left on
            # a stopped loop is logged as destroyed when it is collected.
            handlers = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in handlers:
                task.cancel()
            await asyncio.gather(*handlers, return_exceptions=True)
        self._run(end_connections())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._relay(reader, writer)
        except asyncio.CancelledError:
            # stop() ends the handlers so: a handler that ends cancelled is logged as an error by
            # asyncio's own server callback (it asks the finished task for its exception).
            writer.transport.abort()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self.connections += 1
        self._open.update((writer, up_writer))

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.transport.abort()

        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        finally:
            self._open.discard(writer)
            self._open.discard(up_writer)
            up_writer.transport.abort()


class RedisServer:
    """A redis-server on a free port, without persistence: a restart loses the queue, the harder case."""

    def __init__(self, base: Path) -> None:
        self.port = free_port()
        self.base = base
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = open(self.base / "redis.log", "ab")  # noqa: SIM115 (kept open by the child)
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.base)], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_for(self.answers, 20, "redis-server to answer", interval=0.1)

    def answers(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(port=self.port, socket_timeout=0.5, socket_connect_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


@dataclass
class Probe:
    at: float
    web: int
    status: int | None  # None: nothing answered (the process is down)
    failing: tuple[str, ...] = ()


@dataclass
class ReadyWatcher:
    """Probes /readyz of every web process every `interval` s, as a load balancer does."""

    urls: list[str]
    interval: float = 0.5
    probes: list[Probe] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> ReadyWatcher:
        threading.Thread(target=self._loop, name="readyz-watcher", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            for index, url in enumerate(list(self.urls)):
                self.probes.append(self._probe(index, url))

    @staticmethod
    def _probe(index: int, url: str) -> Probe:
        now = time.monotonic()
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=5) as response:  # noqa: S310
                return Probe(now, index, response.status)
        except urllib.error.HTTPError as error:
            body = json.loads(error.read() or b"{}")
            return Probe(now, index, error.code, tuple(body.get("failing", ())))
        except OSError:
            return Probe(now, index, None)

    def first_ready_after(self, at: float) -> float | None:
        return next((p.at for p in self.probes if p.at >= at and p.status == 200), None)

    def reported(self, part: str, start: float, end: float) -> bool:
        return any(p.status == 503 and part in p.failing for p in self.probes if start <= p.at <= end)


class DoubleHoldSampler:
    """Every 0.3 s: is any VM named by two submissions that are running? (Must never be.)"""

    def __init__(self) -> None:
        self.samples, self.violations = 0, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> DoubleHoldSampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _loop(self) -> None:
        try:
            while not self._stop.wait(0.3):
                doubled = list(Submission.objects.filter(status__in=RUNNING_STATUSES, vm__isnull=False)
                               .values("vm_id").annotate(n=Count("pk")).filter(n__gt=1))
                self.samples += 1
                self.violations.extend(doubled)
        finally:
            connections.close_all()


@dataclass
class Answer:
    status: int | None  # None: no answer within the client's timeout, or the connection failed
    seconds: float
    ended: float  # time.monotonic()
    retry_after: str | None = None
    error_shape: bool = False


@dataclass
class OutageProbe:
    """Quiet clients during an outage: each GETs `path` with a token, one request after another (each
    bounded by `timeout`), recording how each one ended and how long it took."""

    url: str
    token: str
    clients: int = 4
    path: str = "/api/v1/me"
    timeout: float = 30.0
    answers: list[Answer] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> OutageProbe:
        for i in range(self.clients):
            thread = threading.Thread(target=self._loop, name=f"outage-probe-{i}", daemon=True)
            self._threads.append(thread)
            thread.start()
        return self

    def stop_asking(self) -> None:
        self._stop.set()

    def join(self) -> list[Answer]:
        """Once the requests under way have ended (each is bounded by `timeout`)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=self.timeout + 5)
        return sorted(self.answers, key=lambda a: a.ended)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.answers.append(self._ask())
            self._stop.wait(0.1)

    def _ask(self) -> Answer:
        request = urllib.request.Request(f"{self.url}{self.path}", headers={"Authorization": f"Token {self.token}"})
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                response.read()
                return Answer(response.status, time.monotonic() - started, time.monotonic())
        except urllib.error.HTTPError as error:
            try:
                body = json.loads(error.read() or b"{}")
            except ValueError:
                body = {}
            return Answer(error.code, time.monotonic() - started, time.monotonic(), error.headers.get("Retry-After"),
                          isinstance(body, dict) and set(body) == {"message", "extra"})
        except OSError:
            return Answer(None, time.monotonic() - started, time.monotonic())
