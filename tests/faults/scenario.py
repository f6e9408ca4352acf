"""The faults, on a timeline from the first submission: what is broken, when, and for how long."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Max, Min
from django.utils import timezone

from submissions.models import RUNNING_STATUSES, Submission
from tests.faults.harness import Answer, OutageProbe, ReadyWatcher, RedisServer, TcpProxy
from tests.integration.conftest import Proc, Stack, wait_for


@dataclass
class Fault:
    name: str
    start: float = 0.0  # time.monotonic()
    end: float = 0.0
    wall_end: datetime | None = None
    running: set = field(default_factory=set)  # submissions a runner was working on when it struck

    def running_ended_s(self) -> float:
        """Seconds from the end of the fault until the last submission it struck had ended."""
        last = Submission.objects.filter(pk__in=self.running).aggregate(last=Max("finished_at"))["last"]
        return (last - self.wall_end).total_seconds() if last and self.wall_end else float("nan")

    def flowing_again_s(self) -> float:
        """Seconds from the end of the fault to the next submission that finished."""
        first = Submission.objects.filter(finished_at__gt=self.wall_end).aggregate(first=Min("finished_at"))["first"]
        return (first - self.wall_end).total_seconds() if first and self.wall_end else float("nan")


def running() -> set:
    """Submissions a runner is working on (each fault is meant to hit some)."""
    return set(Submission.objects.filter(status__in=RUNNING_STATUSES).values_list("pk", flat=True))


@dataclass
class Timeline:
    started: float = field(default_factory=time.monotonic)
    faults: list[Fault] = field(default_factory=list)
    outage_answers: list[Answer] = field(default_factory=list)  # quiet API clients', asked while the database was away
    _restarts: list[threading.Thread] = field(default_factory=list)

    def at(self, seconds: float, name: str, *, mid_job: bool = True) -> Fault:
        time.sleep(max(0.0, self.started + seconds - time.monotonic()))
        fault = Fault(name)
        if mid_job:
            fault.running = wait_for(running, 60, f"a running submission for {name}")
        fault.start = time.monotonic()
        self.faults.append(fault)
        return fault

    @staticmethod
    def done(fault: Fault) -> None:
        fault.end, fault.wall_end = time.monotonic(), timezone.now()

    def later(self, delay: float, restart: Callable[[], object]) -> None:
        """What a supervisor does: start the process again after a while."""
        thread = threading.Thread(target=lambda: (time.sleep(delay), restart()), daemon=True)
        self._restarts.append(thread)
        thread.start()

    def join(self) -> None:
        for thread in self._restarts:
            thread.join(timeout=120)


def inject_faults(timeline: Timeline, stack: Stack, workers: list[Proc], urls: list[str], proxy: TcpProxy,
                  redis: RedisServer, token: str) -> None:
    fault = timeline.at(10, "worker SIGKILL")  # a worker host dies mid-job
    stack.kill(workers[0], signal.SIGKILL)
    timeline.done(fault)
    timeline.later(5, lambda: stack.start_worker(workers=4))

    fault = timeline.at(20, "web SIGKILL", mid_job=False)  # clients of that process go to the other one
    port = int(urls[0].rsplit(":", 1)[1])
    stack.kill(stack.webs[port], signal.SIGKILL)
    timeline.done(fault)
    timeline.later(3, lambda: stack.start_web(port=port))

    fault = timeline.at(30, "database refuses 5 s")  # refused and cut while jobs run
    proxy.refuse()
    probe = OutageProbe(urls[1], token).start()  # how quiet clients fare meanwhile (GET /me)
    time.sleep(5)
    probe.stop_asking()
    proxy.accept()
    timeline.done(fault)
    timeline.outage_answers = probe.join()

    fault = timeline.at(45, "Redis restart")  # it comes back empty
    redis.stop()
    time.sleep(2)
    redis.start()
    timeline.done(fault)
    timeline.join()


def readiness_report(timeline: Timeline, watcher: ReadyWatcher) -> dict[str, str]:
    """Per fault, what /readyz said. Asserts that it reported the database and Redis outages and was
    200 again afterwards, and that the killed web process stopped answering until it was back."""
    said = {}
    for fault in timeline.faults:
        if fault.name == "web SIGKILL":
            probes = [p for p in watcher.probes if p.web == 0 and p.at >= fault.start]
            back = next((p.at for p in probes if p.status == 200), None)
            assert back is not None, "the killed web process never came back"
            assert any(p.status is None for p in probes if p.at < back), "the killed web process answered"
            said[fault.name] = f"that process answered /readyz 200 again {back - fault.end:4.1f} s after"
            continue
        back = watcher.first_ready_after(fault.end)
        assert back is not None, f"/readyz never answered 200 after {fault.name}"
        part = {"database refuses 5 s": "database", "Redis restart": "broker"}.get(fault.name)
        if part is None:  # a worker cluster died: the other one still beats
            reported = watcher.reported("worker_heartbeat", fault.start, back)
            said[fault.name] = "/readyz said not ready" if reported else "/readyz stayed 200 (the other cluster beats)"
            continue
        assert watcher.reported(part, fault.start, fault.end + 3), f"/readyz did not report {fault.name}"
        # Only what is configured and down: no dstack pool here, and Redis answers through a database
        # outage (a fault run of issue 32 saw /readyz name both while only the database was away).
        named = {name for p in watcher.probes if fault.start <= p.at <= fault.end for name in p.failing}
        assert named <= {part, "worker_heartbeat"}, f"/readyz named {sorted(named)} during {fault.name}"
        said[fault.name] = f"/readyz named {part}, 200 again {back - fault.end:4.1f} s after"
    return said
