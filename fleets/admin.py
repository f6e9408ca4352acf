from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from fleets.models import Fleet, VMInstance, VMState
from fleets.services import vm_fail, vm_stop


@admin.register(Fleet)
class FleetAdmin(admin.ModelAdmin):
    list_display = ("name", "backend", "device", "max_vms", "idle_timeout_s", "hourly_rate", "enabled")
    list_filter = ("backend", "device", "enabled")
    search_fields = ("name", "title")


@admin.register(VMInstance)
class VMInstanceAdmin(admin.ModelAdmin):
    list_display = ("short_id", "fleet", "state", "pid", "base_url", "job_ref", "jobs_started",
                    "created_at", "last_used_at", "idle_for")
    list_filter = ("state", "fleet")
    list_select_related = ("fleet",)
    search_fields = ("id", "job_ref", "handle")
    # The agent token never shows in the admin: it would let any staff session drive the agent.
    exclude = ("token",)
    readonly_fields = [f.name for f in VMInstance._meta.fields if f.name != "token"]
    actions = ("stop_idle", "fail_and_tear_down")

    @admin.display(description="id")
    def short_id(self, vm: VMInstance) -> str:
        return str(vm.pk)[:8]

    @admin.display(description="idle for")
    def idle_for(self, vm: VMInstance) -> str:
        if vm.state != VMState.WARM or vm.last_used_at is None:
            return "-"
        return f"{(timezone.now() - vm.last_used_at).total_seconds():.0f} s"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # VMs are started by the orchestrator, never by hand

    @admin.action(description="Stop selected idle (warm) VMs")
    def stop_idle(self, request: HttpRequest, queryset: QuerySet[VMInstance]) -> None:
        stopped = sum(vm_stop(vm=vm, reason=f"Stopped by {request.user}.") for vm in queryset)
        self.message_user(request, f"Stopped {stopped} VM(s); busy or stopped ones were left alone.")

    @admin.action(description="Fail and tear down selected VMs (their jobs are re-queued)")
    def fail_and_tear_down(self, request: HttpRequest, queryset: QuerySet[VMInstance]) -> None:
        failed = sum(vm_fail(vm=vm, reason=f"Torn down by {request.user}.") for vm in queryset)
        self.message_user(request, f"Tore down {failed} VM(s).", messages.WARNING)
