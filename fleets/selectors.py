"""Reads about fleets and VMs."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from fleets.models import LIVE_VM_STATES, Fleet, VMInstance, VMState


def fleet_get(*, name: str) -> Fleet | None:
    return Fleet.objects.filter(name=name).first()


def fleet_list(*, enabled_only: bool = True) -> QuerySet[Fleet]:
    qs = Fleet.objects.all()
    if enabled_only:
        qs = qs.filter(enabled=True)
    return qs.annotate(
        warm_vms=Count("vms", filter=Q(vms__state=VMState.WARM)),
        live_vms=Count("vms", filter=Q(vms__state__in=LIVE_VM_STATES)),
    ).order_by("name")


def vm_list_live(*, fleet: Fleet | None = None) -> QuerySet[VMInstance]:
    qs = VMInstance.objects.filter(state__in=LIVE_VM_STATES).select_related("fleet")
    return qs.filter(fleet=fleet) if fleet is not None else qs
