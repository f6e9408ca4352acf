"""Health, readiness and metrics on the processes `make run` starts (uvicorn + a qcluster worker): on
SQLite with the ORM broker in make test's first pass, on PostgreSQL + Redis in its second.

/readyz waits for nothing but a real worker: the heartbeat comes from the qcluster's own processes
starting, not from the test."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from django.conf import settings
from prometheus_client.parser import text_string_to_metric_families

from core.models import WorkerHeartbeat
from tests.integration.conftest import Stack, wait_for

pytestmark = pytest.mark.integration


def get(url: str) -> tuple[int, str, dict[str, Any] | str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310
            status, content_type, body = response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as exc:
        status, content_type, body = exc.code, exc.headers["Content-Type"], exc.read()
    text = body.decode()
    return status, content_type, json.loads(text) if content_type == "application/json" else text


def test_health_readiness_and_metrics_answer_on_the_processes_make_run_starts(stack: Stack, local_pool: Any) -> None:
    stack.env["HIPJUDGE_READY_TIMEOUT"] = "30"  # a loaded machine's slow check is not an outage
    url = stack.start_web()
    assert get(f"{url}/healthz") == (200, "application/json", {"status": "ok"})
    status, _, body = get(f"{url}/readyz")
    assert status == 503
    assert isinstance(body, dict)
    assert body["failing"] == ["worker_heartbeat"]

    stack.start_worker(workers=1)
    status, _, body = wait_for(lambda: (answer := get(f"{url}/readyz"))[0] == 200 and answer, 60,
                               "/readyz to answer 200 once the worker beat")
    assert isinstance(body, dict)
    assert body["status"] == "ok"
    assert body["failing"] == []
    assert body["checks"]["broker"]["kind"] == ("redis" if settings.REDIS_URL else "orm")
    assert WorkerHeartbeat.objects.exists()

    status, content_type, text = get(f"{url}/metrics")  # from 127.0.0.1: the default allow-list
    assert status == 200
    assert content_type.startswith("text/plain; version=")
    assert isinstance(text, str)
    series = {sample.name: sample for family in text_string_to_metric_families(text) for sample in family.samples}
    assert series["hipjudge_queue_depth"].labels == {"pool": local_pool.name}
    assert series["hipjudge_worker_heartbeat_age_seconds"].value >= 0  # a beat exists (never: -1)
