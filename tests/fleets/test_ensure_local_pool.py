"""`manage.py ensure_local_pool` (what `make run` calls) offers emulated checks of the languages
the local agent reports, asked the way a local VM's agent runs."""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from fleets.backends.local import HEALTH_PROBE_TIMEOUT, local_agent_health
from fleets.models import Pool


@pytest.fixture(autouse=True)
def agent_root(settings: Any, tmp_path: Path) -> None:
    settings.HIPJUDGE_LOCAL_AGENT_ROOT = tmp_path / "agents"


def ensure(*args: str) -> tuple[Pool, str, str]:
    out, err = StringIO(), StringIO()
    call_command("ensure_local_pool", "--insecure-no-sandbox", *args, stdout=out, stderr=err)
    return Pool.objects.get(name="local"), out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_it_offers_what_the_agent_reports_as_emulated(settings: Any) -> None:
    settings.HIPJUDGE_LOCAL_AGENT_MODULE = "tests.fleets.emulating_agent"
    pool, out, err = ensure()
    assert pool.config["emulated_languages"] == ["hip", "cuda"]  # what it names beyond those is ignored
    assert pool.emulated_languages == ["hip", "cuda"]
    assert err == ""
    assert "checks hip, cuda on the emulated device (CPU)" in out


@pytest.mark.django_db
def test_the_pools_provisioning_limit_outlasts_a_slow_start_and_a_resumed_runner(settings: Any) -> None:
    """The reaper fails a VM still starting after the pool's limit. A local agent may take its start
    timeout to report ready and HEALTH_PROBE_TIMEOUT to answer its first health check; if the worker
    starting it dies, its lease lapses and the next sweep (every minute) resumes it. A limit shorter
    than all of that costs the job an attempt (the fault test saw it with 120 s)."""
    settings.HIPJUDGE_LOCAL_AGENT_MODULE = "tests.fleets.emulating_agent"
    pool, _, _ = ensure()
    sweep_every_s = 60
    slowest_start = settings.HIPJUDGE_LOCAL_AGENT_START_TIMEOUT + HEALTH_PROBE_TIMEOUT
    assert pool.provision_timeout_s >= slowest_start + settings.HIPJUDGE_POLL_LEASE + sweep_every_s


@pytest.mark.django_db
def test_an_agent_that_cannot_say_gives_no_emulated_checks_and_a_warning(settings: Any) -> None:
    settings.HIPJUDGE_LOCAL_AGENT_MODULE = "tests.fleets.broken_agent"
    pool, out, err = ensure()
    assert pool.emulated_languages == []
    assert "emulated" not in out
    assert "warning: no emulated checks on pool local: the local agent exited with 3: agent: refusing to start" in err


@pytest.mark.django_db
def test_the_languages_can_be_named_or_switched_off(settings: Any) -> None:
    settings.HIPJUDGE_LOCAL_AGENT_MODULE = "tests.fleets.broken_agent"  # never asked when named
    assert ensure("--emulated-languages", "hip")[0].emulated_languages == ["hip"]
    pool, out, err = ensure("--emulated-languages", "none")
    assert pool.emulated_languages == []
    assert err == ""
    with pytest.raises(CommandError, match="fortran cannot be emulated; give auto, none or some of hip, cuda"):
        ensure("--emulated-languages", "hip,fortran")


@pytest.mark.integration
@pytest.mark.django_db
def test_the_probe_asks_the_real_agent(local_pool: Any) -> None:
    if shutil.which("bwrap") is None:
        local_pool.config = {"insecure_no_sandbox": True}
        local_pool.save()
    health = local_agent_health(pool=local_pool)
    assert health["device"] == "host"
    assert health["protocol"] == 1
    assert "cpp" in health["toolchains"]
