"""Reads about pools and VMs."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from fleets.models import LIVE_VM_STATES, Pool, VMInstance, VMState


def pool_get(*, name: str) -> Pool | None:
    return Pool.objects.filter(name=name).first()


def pool_list(*, enabled_only: bool = True) -> QuerySet[Pool]:
    qs = Pool.objects.all()
    if enabled_only:
        qs = qs.filter(enabled=True)
    return qs.annotate(
        warm_vms=Count("vms", filter=Q(vms__state=VMState.WARM)),
        live_vms=Count("vms", filter=Q(vms__state__in=LIVE_VM_STATES)),
    ).order_by("name")


def vm_list_live(*, pool: Pool | None = None) -> QuerySet[VMInstance]:
    qs = VMInstance.objects.filter(state__in=LIVE_VM_STATES).select_related("pool")
    return qs.filter(pool=pool) if pool is not None else qs
