"""The caps on paid pools: a monthly spend cap (a default, or the user's own allowance) refused with
402, a daily GPU-seconds cap refused with 429 and Retry-After; both count what billing charges to
the user's jobs (busy, cold start, idle tail) plus what their queued and running submissions hold,
so two submissions at once never both pass a cap that only one fits."""

from __future__ import annotations

import math
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from billing.services import ledger_accrue
from core.exceptions import ApplicationError
from limits.admission import spend_refusal
from limits.selectors import user_caps
from submissions.models import Status, Submission
from submissions.services import submission_create
from tests.billing.conftest import move
from tests.conftest import finish, read_source
from tests.limits.conftest import submit

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")
HOLD_USD = Decimal("0.066333")  # 120 s of the paid pool at 1.99 USD/h


@pytest.fixture
def members(owner: Any, other_user: Any, paid_pool: Any, open_to_group: Any, credit: Any) -> None:
    """Both personas may use the paid pool through its group, so the default caps apply to them."""
    open_to_group(paid_pool, "gpu-users", owner, other_user)


@pytest.mark.usefixtures("members")
def test_the_default_monthly_cap_refuses_with_402_naming_the_cap_and_its_reset(
        owner: Any, other_user: Any, paid_pool: Any, spend: Any, api_as: Any, settings: Any) -> None:
    settings.HIPJUDGE_USER_MONTHLY_CAP = Decimal("5")
    spend(paid_pool, "5", user=owner)
    response = submit(api_as(owner), "mi300x")
    assert response.status_code == 402
    error = response.json()
    now = datetime.now(UTC)
    first_of_next = (now.replace(day=1) + timedelta(days=32)).replace(day=1)
    assert error["message"] == (
        "You reached your monthly spending cap on paid pools of 5.00 USD (5.00 USD used this month). It resets on "
        f"{first_of_next:%Y-%m-%d} at 00:00 UTC; free pools still take your submissions.")
    assert error["extra"]["limit"] == "monthly_spend"
    assert error["extra"]["cap"] == "5"
    assert not Submission.objects.exists()
    assert submit(api_as(owner), "local").status_code == 201  # free pools go on
    assert submit(api_as(other_user), "mi300x").status_code == 201  # the cap is per user


@pytest.mark.usefixtures("members")
def test_a_users_own_allowance_replaces_the_default_cap_both_ways(owner: Any, paid_pool: Any, spend: Any,
                                                                  allowance: Any, api_as: Any, settings: Any) -> None:
    settings.HIPJUDGE_USER_MONTHLY_CAP = Decimal("5")
    spend(paid_pool, "6", user=owner)
    allowance(owner, "50")
    assert submit(api_as(owner), "mi300x").status_code == 201
    allowance(owner, "2")
    assert "monthly spending cap on paid pools of 2.00 USD" in submit(api_as(owner), "mi300x").json()["message"]
    allowance(owner, None)  # an allowance with no cap
    assert submit(api_as(owner), "mi300x").status_code == 201


@pytest.mark.usefixtures("members")
def test_queued_submissions_hold_part_of_the_cap_until_they_end(owner: Any, api_as: Any, allowance: Any,
                                                                settings: Any) -> None:
    settings.HIPJUDGE_CAP_RESERVE_SECONDS = 120
    allowance(owner, "0.1")  # room for one hold of 0.066333 USD
    client = api_as(owner)
    first = submit(client, "mi300x")
    assert first.status_code == 201
    refused = submit(client, "mi300x")
    assert refused.status_code == 402
    assert refused.json()["message"] == (
        "This submission would pass your monthly spending cap on paid pools of 0.10 USD: 0.00 USD used this month, "
        "0.07 USD held by your 1 queued or running submission, and a submission to 'mi300x' holds 0.07 USD until its "
        f"time is booked. It resets on {(timezone.now().replace(day=1) + timedelta(days=32)):%Y-%m}-01 at 00:00 UTC; "
        "free pools still take your submissions.")
    assert Decimal(refused.json()["extra"]["held"]) == HOLD_USD
    finish(first.json()["id"], Status.CANCELLED, "test")  # ended without VM time: its hold is gone
    assert submit(client, "mi300x").status_code == 201


@pytest.mark.usefixtures("members")
def test_the_daily_gpu_seconds_cap_refuses_with_429_and_retry_after_until_midnight_utc(
        owner: Any, api_as: Any, settings: Any) -> None:
    settings.HIPJUDGE_USER_DAILY_GPU_SECONDS = 100  # less than one submission holds (120 s)
    response = submit(api_as(owner), "mi300x")
    assert response.status_code == 429
    now = datetime.now(UTC)
    to_midnight = (now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1) - now).total_seconds()
    assert abs(int(response["Retry-After"]) - math.ceil(to_midnight)) <= 5
    message = response.json()["message"]
    assert message.startswith("This submission would pass your daily cap of 100 GPU-seconds on paid pools: 0 s used "
                              "today, and a submission to 'mi300x' holds 120 s until its time is booked. It resets at "
                              "00:00 UTC, in ")
    assert response.json()["extra"]["limit"] == "daily_gpu_seconds"


@pytest.mark.usefixtures("members")
def test_caps_set_to_none_do_not_refuse(owner: Any, paid_pool: Any, spend: Any, api_as: Any, settings: Any) -> None:
    settings.HIPJUDGE_USER_MONTHLY_CAP = None
    settings.HIPJUDGE_USER_DAILY_GPU_SECONDS = None
    spend(paid_pool, "900", user=owner)
    assert submit(api_as(owner), "mi300x").status_code == 201


def test_caps_count_the_cold_start_busy_and_idle_time_of_the_users_jobs_on_paid_pools_only(
        owner: Any, other_user: Any, paid_pool: Any, local_pool: Any, make_vm: Any, make_submission: Any,
        grant: Any, settings: Any) -> None:
    t0 = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    grant("100", starts_at=t0 - timedelta(days=30))
    paid_pool.gpu_count = 2
    paid_pool.save()

    def life(pool: Any, user: Any, start: datetime, *, busy_from: float, idle_from: float, stop: float) -> None:
        job = make_submission(user, pool)
        vm = make_vm(pool, at=start, job_ref=str(job.pk))
        ledger_accrue(vm_id=vm.pk, now=start)  # the provisioning VM is seen reserved for the job
        move(vm, "BUSY", start + timedelta(seconds=busy_from), job_ref=str(job.pk))
        move(vm, "WARM", start + timedelta(seconds=idle_from))
        move(vm, "STOPPED", start + timedelta(seconds=stop))

    life(paid_pool, owner, t0, busy_from=60, idle_from=360, stop=600)  # 60 cold + 300 busy + 240 idle
    life(paid_pool, owner, t0 - timedelta(days=1), busy_from=60, idle_from=360, stop=600)  # yesterday
    life(local_pool, owner, t0, busy_from=1, idle_from=1000, stop=1200)  # a free pool
    life(paid_pool, other_user, t0, busy_from=60, idle_from=360, stop=600)  # someone else
    caps = user_caps(user=owner, now=t0 + timedelta(hours=1))
    assert caps.daily_gpu_seconds.used == Decimal(600 * 2)
    assert caps.monthly_usd.used == Decimal("0.663334")  # two 600 s VM lives at 1.99 USD/h, this month

    settings.HIPJUDGE_USER_DAILY_GPU_SECONDS = 1300
    refusal = spend_refusal(user=owner, pool=paid_pool, now=t0 + timedelta(hours=1))
    assert refusal is not None
    assert refusal.status_code == 429
    assert refusal.retry_after == 11 * 3600
    assert "1200 s used today, and a submission to 'mi300x' holds 240 s" in refusal.message  # 120 s x 2 GPUs
    assert "in 11 h" in refusal.message


# ---- two at once ----------------------------------------------------------------------------------
@pytest.mark.integration  # the PostgreSQL pass of scripts/test.sh runs `-m integration`
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("cap", ["monthly_spend", "daily_gpu_seconds"])
def test_submissions_at_once_never_both_pass_a_cap_that_only_one_fits(
        cap: str, owner: Any, paid_pool: Any, open_to_group: Any, grant: Any, allowance: Any, settings: Any) -> None:
    grant("1000")
    open_to_group(paid_pool, "gpu-users", owner)
    settings.HIPJUDGE_QUOTA_CONCURRENT = 100
    settings.HIPJUDGE_CAP_RESERVE_SECONDS = 120
    if cap == "monthly_spend":
        allowance(owner, "0.1")  # one hold of 0.066333 USD fits, two do not
    else:
        settings.HIPJUDGE_USER_DAILY_GPU_SECONDS = 200  # one hold of 120 s fits, two do not
    threads = 6
    barrier = threading.Barrier(threads)
    outcomes: list[Any] = []

    def post() -> None:
        try:
            barrier.wait()
            submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"),
                              pool_name="mi300x")
            outcomes.append("queued")
        except ApplicationError as exc:
            outcomes.append(exc.extra.get("limit"))
        except BaseException as exc:  # noqa: BLE001  (reported below)
            outcomes.append(exc)
        finally:
            connection.close()  # each thread had its own connection

    workers = [threading.Thread(target=post) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert sorted(map(str, outcomes)) == sorted(["queued"] + [cap] * (threads - 1))
    assert Submission.objects.filter(user=owner).count() == 1
