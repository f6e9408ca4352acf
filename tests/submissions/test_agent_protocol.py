"""The platform's words for what the agent does are protocol v1's (agent.protocol): a mode the
agent would refuse, or a success it reports that the platform files as a failure, would reach users."""

from __future__ import annotations

from agent import protocol
from submissions.models import AGENT_FINAL_STATUSES, AGENT_STATUSES, SUCCESS_STATUSES, Mode


def test_the_platform_offers_exactly_the_agents_modes() -> None:
    assert sorted(Mode.values) == sorted(protocol.MODES)


def test_what_the_agent_calls_success_the_platform_calls_success() -> None:
    assert {status.value for status in SUCCESS_STATUSES} == set(protocol.SUCCESS_STATUSES)


def test_the_platform_knows_every_stage_and_verdict_the_agent_reports() -> None:
    """A STATUS the runner does not know is not shown; a RESULT status it does not know is filed as ERROR."""
    assert [status.value for status in AGENT_STATUSES] == list(protocol.STAGES)
    assert {status.value for status in AGENT_FINAL_STATUSES} == set(protocol.FINAL_STATUSES)
