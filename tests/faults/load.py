"""Users submitting through the API behind a round-robin "load balancer", as a careful client does.

A refused connection reached no server: the next web process is tried at once. An answer that may
hide a committed submission (a 5xx, a connection cut mid-request, a timeout) is resolved before
retrying: each user submits one item at a time, so a submission of theirs that no item of theirs
holds yet is the one the unclear answer hid, and the client adopts it; a retry never doubles an item.
A user sends the same source each time, marked with a comment naming them (what the processes' logs
must never show), as an author checking a kernel again does: the agents' compile cache serves all
but a user's first compile on each VM. Every loop is bounded.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field

from django.db import OperationalError, connection, connections

from submissions.models import Submission

SUBMIT_DEADLINE_S = 240.0
ADOPT_TRIES = 20


SOURCE_MARK = "fault-item-"  # tests/faults/test_faults.py looks for it in the processes' logs


@dataclass
class Item:
    user: str
    index: int  # the user's first item is 0
    id: str | None = None
    adopted: bool = False
    error: str = ""


@dataclass
class Load:
    urls: list[str]
    tokens: dict[str, str]
    source: str
    per_user: int = 10
    gap_s: float = 4.0
    items: list[Item] = field(default_factory=list)
    outcomes: Counter = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)
    _next: int = 0

    def start(self) -> Load:
        for user, token in self.tokens.items():
            thread = threading.Thread(target=self._user, args=(user, token), name=f"load-{user}", daemon=True)
            self._threads.append(thread)
            thread.start()
        return self

    def join(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self._threads)

    def _count(self, outcome: str) -> None:
        with self._lock:
            self.outcomes[outcome] += 1

    def _url(self) -> str:
        with self._lock:
            self._next += 1
            return self.urls[self._next % len(self.urls)]

    def _user(self, user: str, token: str) -> None:
        try:
            for k in range(self.per_user):
                item = Item(user, k)
                with self._lock:
                    self.items.append(item)
                self._submit(item, token)
                time.sleep(self.gap_s)
        finally:
            connections.close_all()

    def _submit(self, item: Item, token: str) -> None:
        body = json.dumps({"problem": "vector-add", "language": "cpp", "mode": "check",
                           "source": f"{self.source}\n// {SOURCE_MARK}{item.user}\n"}).encode()
        deadline = time.monotonic() + SUBMIT_DEADLINE_S
        while time.monotonic() < deadline:
            request = urllib.request.Request(f"{self._url()}/api/v1/submissions", data=body, method="POST", headers={
                "Authorization": f"Token {token}", "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
                    item.id = json.loads(response.read())["id"]
                    self._count("201")
                    return
            except urllib.error.HTTPError as error:
                self._count(str(error.code))
                if error.code < 500:
                    item.error = f"{error.code}: {error.read()[:300]!r}"
                    return
            except urllib.error.URLError as error:
                if isinstance(error.reason, ConnectionRefusedError):
                    self._count("refused, next web process")
                    time.sleep(0.1)
                    continue
                self._count(f"cut: {type(error.reason).__name__}")
            except OSError as error:  # reset or timeout while the answer was on its way
                self._count(f"cut: {type(error).__name__}")
            if self._adopt(item):
                return
            time.sleep(1.0)
        item.error = f"not accepted within {SUBMIT_DEADLINE_S:.0f} s"

    def _adopt(self, item: Item) -> bool:
        """Did the failed request create the submission after all? Then it is ours: the user's only
        submission that none of their earlier items holds."""
        with self._lock:
            held = {other.id for other in self.items if other.user == item.user and other.id}
        # The test process's own pool is small and shared by every user's thread: a thread holding a
        # connection between its questions would starve the others (PoolTimeout after the pool's
        # wait), so each question takes a connection and gives it back, and one that finds no
        # connection asks again (bounded) rather than posting a second copy.
        found: list[str] = []
        for _ in range(ADOPT_TRIES):
            try:
                found = [str(pk) for pk in Submission.objects.filter(user__username=item.user).order_by("created_at")
                         .values_list("pk", flat=True) if str(pk) not in held]
                break
            except OperationalError:
                time.sleep(0.5)
            finally:
                # Not inside a transaction (a test's own), nor on SQLite's in-memory test database,
                # which is one connection every thread shares.
                if connection.vendor != "sqlite" and not connection.in_atomic_block:
                    connections.close_all()
        else:
            item.error = f"the test's own database did not answer in {ADOPT_TRIES} tries"
            return True  # stop: the item is refused with that reason
        if found:
            item.id, item.adopted = found[0], True
            self._count("adopted after an unclear answer")
        return bool(found)
