"""Staff: the month's top spenders with a one-click suspend, each custom view checking its own
permission; suspending cancels the user's active submissions, and every limits admin page opens."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from fleets.models import VMInstance, VMState
from limits.models import PoolGroupAccess, Suspension
from limits.services import user_suspend
from limits.signals import user_suspended
from submissions.models import Status, Submission
from submissions.receivers import on_user_suspended
from submissions.services import submission_create
from tests.conftest import read_source
from tests.limits.conftest import submit

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool", "credit")
TOP = reverse("admin:limits_top_spenders")


def staff_with(make_user: Any, name: str, *perms: str) -> Any:
    user = make_user(name, staff=True)
    for perm in perms:
        app, codename = perm.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app, codename=codename))
    return user


@pytest.fixture
def spenders(owner: Any, other_user: Any, paid_pool: Any, local_pool: Any, spend: Any, make_vm: Any,
             make_submission: Any) -> None:
    """owner: 12.50 USD and a 10 min job this month; other: 3 USD; owner's old and free-pool spend do not count."""
    from billing.services import ledger_accrue
    from tests.billing.conftest import move

    spend(paid_pool, "12.50", user=owner)
    spend(paid_pool, "3", user=other_user)
    spend(paid_pool, "99", user=other_user, at=timezone.now().replace(day=1) - timedelta(days=3))  # last month
    job, start = make_submission(owner, paid_pool), timezone.now() - timedelta(minutes=11)
    vm = make_vm(paid_pool, at=start, job_ref=str(job.pk))
    ledger_accrue(vm_id=vm.pk, now=start)  # billing sees each state change, as fleets' signal makes it
    move(vm, "BUSY", start + timedelta(minutes=1), job_ref=str(job.pk))
    move(vm, "WARM", start + timedelta(minutes=11))
    make_submission(owner, local_pool)


def test_top_spenders_lists_this_months_spend_gpu_seconds_and_submissions(client: Any, make_user: Any,
                                                                         spenders: None) -> None:
    client.force_login(staff_with(make_user, "auditor", "billing.view_ledgerentry"))
    response = client.get(TOP)
    assert response.status_code == 200
    rows = [(r.username, r.submissions) for r in response.context["rows"]]
    assert rows == [("owner", 1), ("other", 0)]
    owner_row = response.context["rows"][0]
    assert (owner_row.spend, owner_row.gpu_seconds) == (Decimal("12.864834"), 660)  # 12.50 + 11 min at 1.99 USD/h
    html = response.content.decode()
    assert "Suspend</button>" not in html  # seeing is not suspending


@pytest.mark.parametrize(("perms", "status"), [((), 403), (("limits.add_suspension",), 403)])
def test_the_page_needs_the_permission_to_see_spend_not_just_staff(client: Any, make_user: Any, spenders: None,
                                                                   perms: tuple, status: int) -> None:
    client.force_login(staff_with(make_user, "helper", *perms))
    assert client.get(TOP).status_code == status


def test_non_staff_are_sent_to_the_admin_login(client: Any, owner: Any) -> None:
    client.force_login(owner)
    assert client.get(TOP).status_code == 302


def test_one_click_suspend_cancels_the_users_work_and_stops_new_submissions(
        client: Any, make_user: Any, owner: Any, spenders: None, api_as: Any) -> None:
    queued = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    client.force_login(staff_with(make_user, "ops", "billing.view_ledgerentry", "limits.add_suspension"))
    assert "Suspend</button>" in client.get(TOP).content.decode()
    response = client.post(reverse("admin:limits_suspend"), {"user": owner.pk, "reason": "Looping empty jobs."})
    assert response.status_code == 302
    assert response["Location"] == TOP
    assert Suspension.objects.get(user=owner).reason == "Looping empty jobs."
    assert Submission.objects.get(pk=queued.pk).status == Status.CANCELLED
    refused = submit(api_as(owner), "local")
    assert refused.status_code == 403
    assert "(Looping empty jobs)" in refused.json()["message"]
    assert "suspended: Looping empty jobs." in client.get(TOP).content.decode()


def test_suspending_and_lifting_need_their_own_permissions(client: Any, make_user: Any, owner: Any,
                                                           spenders: None) -> None:
    client.force_login(staff_with(make_user, "auditor", "billing.view_ledgerentry"))
    assert client.post(reverse("admin:limits_suspend"), {"user": owner.pk}).status_code == 403
    assert not Suspension.objects.exists()
    Suspension.objects.create(user=owner, reason="x")
    assert client.post(reverse("admin:limits_unsuspend"), {"user": owner.pk}).status_code == 403
    client.force_login(staff_with(make_user, "lifter", "billing.view_ledgerentry", "limits.delete_suspension"))
    assert "Lift suspension</button>" in client.get(TOP).content.decode()
    assert client.post(reverse("admin:limits_unsuspend"), {"user": owner.pk}).status_code == 302
    assert not Suspension.objects.exists()


def test_forged_or_odd_posts_are_refused_without_a_500(admin_client: Any, admin_user: Any) -> None:
    assert admin_client.get(reverse("admin:limits_suspend")).status_code == 405
    assert admin_client.post(reverse("admin:limits_suspend"), {"user": "1 OR 1=1"}).status_code == 403
    response = admin_client.post(reverse("admin:limits_suspend"), {"user": admin_user.pk}, follow=True)
    assert "You cannot suspend yourself." in response.content.decode()
    response = admin_client.post(reverse("admin:limits_suspend"), {"user": "987654"}, follow=True)
    assert "No such user." in response.content.decode()


def test_the_suspension_admin_goes_through_the_services(admin_client: Any, admin_user: Any, owner: Any) -> None:
    queued = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    response = admin_client.post(reverse("admin:limits_suspension_add"), {"user": owner.pk, "reason": "spam"})
    assert response.status_code == 302
    assert Suspension.objects.get(user=owner).created_by == admin_user
    assert Submission.objects.get(pk=queued.pk).status == Status.CANCELLED
    refused = admin_client.post(reverse("admin:limits_suspension_add"), {"user": admin_user.pk, "reason": "x"})
    assert refused.status_code == 200
    assert "You cannot suspend yourself." in refused.content.decode()
    admin_client.post(reverse("admin:limits_suspension_delete", args=[owner.pk]), {"post": "yes"})
    assert not Suspension.objects.exists()


def test_suspending_again_replaces_the_reason(staff_user: Any, owner: Any) -> None:
    user_suspend(user_id=owner.pk, reason="first", by=staff_user)
    user_suspend(user_id=owner.pk, reason="  ", by=staff_user)
    assert Suspension.objects.get(user=owner).reason == "Suspended by the staff."


def test_suspending_sends_user_suspended_and_cancels_nothing_itself(staff_user: Any, owner: Any) -> None:
    """limits only reads submissions: without the submissions app's receiver the work stays queued."""
    queued = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    sent: list[dict] = []

    def record(sender: Any, **kwargs: Any) -> None:
        sent.append(kwargs)

    user_suspended.disconnect(dispatch_uid="submissions.on_user_suspended")
    user_suspended.connect(record)
    try:
        user_suspend(user_id=owner.pk, reason="spam", by=staff_user)
    finally:
        user_suspended.disconnect(record)
        user_suspended.connect(on_user_suspended, dispatch_uid="submissions.on_user_suspended")
    assert [(k["user_id"], k["by"]) for k in sent] == [(owner.pk, staff_user)]
    assert Submission.objects.get(pk=queued.pk).status == Status.IN_QUEUE


def test_user_suspended_cancels_the_users_queued_and_running_work_only(staff_user: Any, owner: Any,
                                                                      other_user: Any, local_pool: Any) -> None:
    def create(user: Any) -> Submission:
        return submission_create(user=user, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))

    queued, running, others = create(owner), create(owner), create(other_user)
    vm = VMInstance.objects.create(pool=local_pool, state=VMState.BUSY, job_ref=str(running.pk))
    Submission.objects.filter(pk=running.pk).update(status=Status.BENCHMARKING, vm=vm, attempt=1)
    user_suspended.send(sender=None, user_id=owner.pk, by=staff_user)
    assert Submission.objects.get(pk=queued.pk).status == Status.CANCELLED
    assert Submission.objects.get(pk=queued.pk).status_reason == "Cancelled by staff before it started."
    assert Submission.objects.get(pk=running.pk).cancel_requested
    assert Submission.objects.get(pk=others.pk).status == Status.IN_QUEUE


def test_every_limits_admin_page_opens(admin_client: Any, owner: Any, paid_pool: Any, open_to_group: Any,
                                       spenders: None) -> None:
    open_to_group(paid_pool, "gpu-users", owner)
    Suspension.objects.create(user=owner, reason="x")
    pages = [TOP, reverse("admin:index"), reverse("admin:app_list", args=["limits"])]
    for model, pk in (("poolgroupaccess", PoolGroupAccess.objects.get().pk), ("suspension", owner.pk)):
        pages += [reverse(f"admin:limits_{model}_changelist"), reverse(f"admin:limits_{model}_add"),
                  reverse(f"admin:limits_{model}_change", args=[pk])]
    for page in pages:
        assert admin_client.get(page).status_code == 200, page
    assert TOP in admin_client.get(reverse("admin:index")).content.decode()
