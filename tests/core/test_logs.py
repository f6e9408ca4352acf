"""Structured log lines: text and JSON formats, ids on every state change, no source or token."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction

from core.logs import JsonFormatter, TextFormatter, log_event, log_event_on_commit
from fleets.models import VMInstance, VMState
from submissions.dispatch import submission_dispatch_next
from submissions.models import Status, Submission
from submissions.runner import submission_run
from tests.conftest import read_source
from tests.support import fake_agent

log = logging.getLogger("tests.logs")


def record(message: str = "VM %s up", *args: Any, **fields: Any) -> logging.LogRecord:
    captured: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = captured.append  # type: ignore[method-assign]
    log.addHandler(handler)
    try:
        log_event(log, "vm.state", message, *(args or ("v1",)), **fields)
    finally:
        log.removeHandler(handler)
    return captured[0]


def test_json_lines_carry_the_ids_as_fields() -> None:
    line = json.loads(JsonFormatter().format(record(vm="v1", pool="p1", new="WARM", attempt=2)))
    assert line["message"] == "VM v1 up"
    assert line["event"] == "vm.state"
    assert line["level"] == "INFO"
    assert (line["vm"], line["pool"], line["new"], line["attempt"]) == ("v1", "p1", "WARM", 2)
    assert line["logger"] == "tests.logs"
    assert line["ts"].endswith("+00:00")


def test_text_lines_are_readable_with_the_ids_at_the_end() -> None:
    line = TextFormatter().format(record(vm="v1", pool="p1"))
    assert line.endswith("INFO tests.logs: VM v1 up [event=vm.state vm=v1 pool=p1]")


def test_only_the_named_fields_reach_a_line() -> None:
    with pytest.raises(ValueError, match="source"):
        log_event(log, "x", "y", source="int main() {}")
    # Django attaches the request to its error lines: JSON never serializes such extras.
    plain = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Internal Server Error", (), None)
    plain.request = "POST body with a secret"
    assert "secret" not in JsonFormatter().format(plain)


@pytest.mark.django_db(transaction=True)
def test_a_change_rolled_back_is_never_logged(caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="tests.logs")
    with pytest.raises(RuntimeError), transaction.atomic():
        log_event_on_commit(log, "vm.state", "never happened")
        raise RuntimeError
    with transaction.atomic():
        log_event_on_commit(log, "vm.state", "committed")
    assert [r.getMessage() for r in caplog.records] == ["committed"]


@pytest.fixture
def agent_reporting(request: Any) -> Iterator[fake_agent.FakeAgent]:
    """A stand-in agent whose RESULT quotes the source, as a compiler's error output does."""
    script = [("STATUS", {"status": "COMPILING"}),
              ("RESULT", {"status": "COMPILE_ERROR", "reason": f"error near '{request.param}'"})]
    with fake_agent.running(fake_agent.FakeAgent(script=script)) as running:
        yield running


MARKER = "SECRET_SOURCE_MARKER_1f3a"


@pytest.mark.django_db(transaction=True)  # the lines are written on commit
@pytest.mark.usefixtures("problems_loaded")
@pytest.mark.parametrize("agent_reporting", [MARKER], indirect=True)
@pytest.mark.parametrize("log_format", [JsonFormatter, TextFormatter])
def test_a_submissions_source_and_api_token_never_reach_the_logs(caplog: Any, owner: Any, local_pool: Any,
                                                                 api_as: Any, queued_tasks: list,
                                                                 agent_reporting: fake_agent.FakeAgent,
                                                                 log_format: type[logging.Formatter]) -> None:
    caplog.set_level(logging.DEBUG)
    VMInstance.objects.create(pool=local_pool, state=VMState.WARM, base_url=agent_reporting.url,
                              token=fake_agent.TOKEN)
    client = api_as(owner)
    api_token = client._credentials["HTTP_AUTHORIZATION"].split()[1]
    source = read_source("cpp.cpp") + f"\n// {MARKER}\n"
    response = client.post("/api/v1/submissions", {"problem": "vector-add", "language": "cpp", "source": source},
                           format="json")
    assert response.status_code == 201, response.json()
    assert submission_dispatch_next(pool=local_pool) is not None
    submission_run(submission_id=response.json()["id"])
    submission = Submission.objects.get(pk=response.json()["id"])
    assert submission.status == Status.COMPILE_ERROR
    assert MARKER in submission.status_reason

    lines = [log_format().format(r) for r in caplog.records]
    changes = [line for line in lines if "submission.status" in line]
    assert len(changes) == 3
    assert all(str(submission.pk) in line for line in changes)  # queued, compiling, result
    assert any("vm.state" in line and str(submission.pk) in line for line in lines)
    for line in lines:
        assert MARKER not in line
        assert api_token not in line
        assert fake_agent.TOKEN not in line


def test_django_qs_line_per_task_goes_to_debug_and_the_clusters_own_lines_stay(caplog: Any) -> None:
    queue = logging.getLogger("django-q")
    chatter = ["Enqueued [hipjudge] 42", "Process-1:2 processing [six-alpha] 'submissions.tasks.run'",
               "Processed 'submissions.tasks.run' (six-alpha)", "Process-1 created task ten-bravo from schedule "
               "[billing tick]", "Process-1:3 ready for work at 4242"]
    caplog.set_level(logging.DEBUG)
    for line in [*chatter, "Q Cluster hipjudge-x running."]:
        queue.info(line)
    queue.error("Failed 'submissions.tasks.run' (six-alpha) - boom")
    shown = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "django-q"]
    assert shown == [("INFO", "Q Cluster hipjudge-x running."),
                     ("ERROR", "Failed 'submissions.tasks.run' (six-alpha) - boom")]
    before = queue.level
    queue.setLevel(logging.DEBUG)  # HIPJUDGE_Q_LOG_LEVEL=DEBUG
    try:
        caplog.clear()
        queue.info(chatter[1])
        assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("DEBUG", chatter[1])]
    finally:
        queue.setLevel(before)
