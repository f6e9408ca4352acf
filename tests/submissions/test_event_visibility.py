"""Users see what they need about the machine that judged them (device, architecture, cold or warm);
staff see everything the agent reported (infrastructure details are for staff): on the page and in the event stream."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from submissions.services import EventIn, append_events_locked, lock_submission, submission_create
from submissions.sse import _format
from tests.conftest import read_source

AGENT_INFO = {"device": "hip", "arch": "gfx942", "host": "mi300x-node-17", "toolchains": {"hipcc": "6.2.41134"},
              "price_per_hour": "1.99", "dstack": {"backend": "amddevcloud", "region": "us-east"}}
INFRASTRUCTURE = ["mi300x-node-17", "6.2.41134", "1.99", "amddevcloud", "us-east"]


@pytest.fixture
def judged(owner: Any, problems_loaded: Any, local_pool: Any, queued_tasks: Any) -> Any:
    submission = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    append_events_locked(lock_submission(submission.pk), [EventIn("VM_READY", {"vm": "v", "agent": AGENT_INFO})])
    return submission


def page_for(user: Any, submission: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/submissions/{submission.pk}/").content.decode()


@pytest.mark.django_db
def test_the_owner_sees_the_device_and_architecture_only(owner: Any, judged: Any) -> None:
    page = page_for(owner, judged)
    assert "gfx942" in page
    assert not [word for word in INFRASTRUCTURE if word in page]


@pytest.mark.django_db
def test_staff_see_everything_the_agent_reported(staff_user: Any, judged: Any) -> None:
    page = page_for(staff_user, judged)
    assert all(word in page for word in INFRASTRUCTURE)


@pytest.mark.parametrize("staff", [False, True])
def test_the_event_stream_shows_each_viewer_their_share(staff: bool) -> None:
    event = {"seq": 3, "type": "VM_READY", "payload": {"vm": "v", "agent": AGENT_INFO}, "at": ""}
    data = json.loads(_format(event, staff).split("data: ", 1)[1])
    assert data["payload"]["agent"] == (AGENT_INFO if staff else {"device": "hip", "arch": "gfx942"})
    assert event["payload"]["agent"] == AGENT_INFO  # the hub's copy, shared by all viewers, is untouched
