"""Watching a real dstack run over time: observe_run polls it and shows it never becomes final."""

from __future__ import annotations

import time
import uuid

from fleets.dstack import DstackClient, RunOutcome, poll_run


def observe_run(
    client: DstackClient, run_id: str | uuid.UUID, *, seconds: float, interval_s: float = 1.0
) -> list[RunOutcome]:
    """Poll the run (by id, fresh each time) for `seconds` and return every outcome seen.

    Asserts that none of them is final: on a server with background processing disabled this shows
    a VM "stuck in provisioning", which is what the provisioning time limit must catch.
    """
    if seconds <= 0 or interval_s <= 0:
        raise ValueError("seconds and interval_s must be positive")
    outcomes: list[RunOutcome] = []
    deadline = time.monotonic() + seconds
    for _ in range(int(seconds / interval_s) + 2):  # bounded by count as well as by time
        outcome = poll_run(client, run_id)
        assert not outcome.final, f"run {run_id} became final: {outcome}"
        outcomes.append(outcome)
        if time.monotonic() >= deadline:
            break
        time.sleep(min(interval_s, max(0.0, deadline - time.monotonic())))
    return outcomes
