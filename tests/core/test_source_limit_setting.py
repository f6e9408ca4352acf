"""HIPJUDGE_MAX_SOURCE_BYTES above what the agents accept stops the process at start-up with a
clear message: accepted by the API, every such source would end ERROR."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from agent.protocol import MAX_SOURCE_BYTES
from submissions.apps import DEFAULT_SOURCE_LIMIT
from tests.conftest import ROOT


def start_with(limit: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "HIPJUDGE_MAX_SOURCE_BYTES": str(limit)}
    code = "import django; django.setup(); from django.conf import settings; print(settings.HIPJUDGE_MAX_SOURCE_BYTES)"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_default_is_the_agents_limit(settings: Any) -> None:
    assert settings.HIPJUDGE_MAX_SOURCE_BYTES == MAX_SOURCE_BYTES
    assert DEFAULT_SOURCE_LIMIT == MAX_SOURCE_BYTES  # at or below it start-up does not read the agent's


def test_a_limit_above_the_agents_is_refused_at_start_up() -> None:
    refused = start_with(MAX_SOURCE_BYTES + 1)
    assert refused.returncode != 0
    assert f"HIPJUDGE_MAX_SOURCE_BYTES={MAX_SOURCE_BYTES + 1}: the agents refuse sources above" in refused.stderr
    accepted = start_with(MAX_SOURCE_BYTES - 1)
    assert accepted.returncode == 0, accepted.stderr
    assert accepted.stdout.strip() == str(MAX_SOURCE_BYTES - 1)
