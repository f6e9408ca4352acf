from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html

from fleets import admin_dstack
from fleets.dstack import DstackError, fleet_yaml
from fleets.dstack_config import fleet_settings
from fleets.dstack_services import fleet_dstack_effective
from fleets.models import Backend, Fleet, VMInstance, VMState
from fleets.services import vm_drain, vm_stop_now


def _duration(delta: timedelta | None) -> str:
    if delta is None:
        return "-"
    seconds = int(delta.total_seconds())
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


@admin.register(Fleet)
class FleetAdmin(admin.ModelAdmin):
    list_display = ("name", "backend", "device", "gpu", "max_vms", "idle_timeout_s", "provision_timeout_s",
                    "hourly_rate", "enabled")
    list_filter = ("backend", "device", "enabled")
    search_fields = ("name", "title")
    readonly_fields = ("dstack_yaml", "dstack_settings")
    actions = (admin_dstack.dstack_plan, admin_dstack.dstack_apply, admin_dstack.dstack_verify,
               admin_dstack.dstack_delete)
    change_list_template = "admin/fleets/fleet/change_list.html"

    @admin.display(description="GPU")
    def gpu(self, fleet: Fleet) -> str:
        return f"{fleet.gpu_count}x {fleet.gpu_name}" if fleet.gpu_name else "-"

    @admin.display(description="dstack fleet YAML (what `fleet plan` sends)")
    def dstack_yaml(self, fleet: Fleet) -> str:
        if fleet.pk is None or fleet.backend != Backend.DSTACK:
            return "- (dstack pools only)"
        try:
            return format_html("<pre>{}</pre>", fleet_yaml(fleet_settings(fleet)))
        except DstackError as exc:
            return format_html('<p class="errornote">{}</p>', exc)

    @admin.display(description="dstack settings in effect (config keys; unset ones use these defaults)")
    def dstack_settings(self, fleet: Fleet) -> str:
        if fleet.pk is None or fleet.backend != Backend.DSTACK:
            return "- (dstack pools only)"
        return format_html("<pre>{}</pre>", json.dumps(fleet_dstack_effective(fleet=fleet), indent=2))

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.instances_view)
        return [path("dstack/", view, name="fleets_fleet_dstack"), *super().get_urls()]

    def instances_view(self, request: HttpRequest) -> TemplateResponse:
        return admin_dstack.instances_view(self, request)


class VMChangeList(ChangeList):
    """Fetches the cost so far of the page's VMs in one query (not one per row)."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        from billing.selectors import vm_costs  # billing reads fleets; fleets' admin only shows its figure

        costs = vm_costs(vm_ids=[vm.pk for vm in self.result_list])
        for vm in self.result_list:
            vm.cost_so_far = costs.get(vm.pk)


@admin.register(VMInstance)
class VMInstanceAdmin(admin.ModelAdmin):
    list_display = ("short_id", "fleet", "state", "run", "up_for", "idle_for", "cold_start", "cost",
                    "serves", "jobs_started", "created_at")
    list_filter = ("state", "fleet")
    list_select_related = ("fleet",)
    search_fields = ("id", "job_ref", "handle")
    # The agent token never shows in the admin: it would let any staff session drive the agent.
    exclude = ("token",)
    readonly_fields = [f.name for f in VMInstance._meta.fields if f.name != "token"]
    actions = ("drain", "stop_now")

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return VMChangeList

    @admin.display(description="id")
    def short_id(self, vm: VMInstance) -> str:
        return str(vm.pk)[:8]

    @admin.display(description="run / process")
    def run(self, vm: VMInstance) -> str:
        if vm.fleet.backend == Backend.DSTACK and vm.handle:
            return vm.handle
        if vm.pid:
            return f"pid {vm.pid}"
        return "(starting)" if vm.state == VMState.PROVISIONING else "-"

    @admin.display(description="up for")
    def up_for(self, vm: VMInstance) -> str:
        end: datetime = vm.stopped_at or timezone.now()
        return _duration(end - vm.created_at)

    @admin.display(description="idle for")
    def idle_for(self, vm: VMInstance) -> str:
        if vm.state != VMState.WARM:
            return "-"
        return _duration(timezone.now() - (vm.last_used_at or vm.ready_at or vm.created_at))

    @admin.display(description="cold start")
    def cold_start(self, vm: VMInstance) -> str:
        return _duration(vm.ready_at - vm.created_at) if vm.ready_at else "-"

    @admin.display(description="cost so far")
    def cost(self, vm: VMInstance) -> str:
        cost = getattr(vm, "cost_so_far", None)
        return f"${cost:.2f}" if cost is not None else "-"

    @admin.display(description="serves")
    def serves(self, vm: VMInstance) -> str:
        if not vm.job_ref:
            return "-"
        try:  # job_ref is the submission's id when the submissions app runs the job
            url = reverse("admin:submissions_submission_change", args=[vm.job_ref])
        except NoReverseMatch:
            return vm.job_ref
        return format_html('<a href="{}">{}</a>', url, vm.job_ref[:8])

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # VMs are started by the orchestrator, never by hand

    @admin.action(description="Drain: stop warm VMs now, busy ones after their job")
    def drain(self, request: HttpRequest, queryset: QuerySet[VMInstance]) -> None:
        done = [vm_drain(vm=vm, reason=f"Drained by {request.user}.") for vm in queryset]
        self.message_user(request, f"Stopped {done.count('stopped')} VM(s); {done.count('draining')} will stop after "
                                   f"their job; {done.count('unchanged')} left as they were (starting or ended).")

    @admin.action(description="Stop now (jobs on them are re-queued)")
    def stop_now(self, request: HttpRequest, queryset: QuerySet[VMInstance]) -> None:
        stopped = sum(vm_stop_now(vm=vm, reason=f"Stopped by {request.user}.")
                      for vm in queryset)
        self.message_user(request, f"Stopped {stopped} VM(s); ended ones were left alone.", messages.WARNING)
