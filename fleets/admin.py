from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from billing.selectors import vm_costs
from core.units import format_duration
from fleets.dstack_pools import admin as dstack_admin
from fleets.models import Backend, Pool, PoolEvent, PoolPolicy, PrewarmDecision, VMInstance, VMState
from fleets.policy import policy_summary
from fleets.selectors import prewarm_overview
from fleets.services import vm_drain, vm_stop_now


def _duration(delta: timedelta | None) -> str:
    return "-" if delta is None else format_duration(delta.total_seconds())


class PoolEventInline(admin.TabularInline):
    """Demand events staff declare ahead (a contest window): the forecast expects their rate."""

    model = PoolEvent
    extra = 0
    fields = ("title", "starts_at", "ends_at", "expected_per_h")


@admin.register(Pool)
class PoolAdmin(admin.ModelAdmin):
    list_display = ("name", "backend_shown", "device", "gpu", "max_vms", "policy_shown", "idle_timeout_s",
                    "provision_timeout_s", "hourly_rate", "enabled")
    list_filter = ("backend", "policy", "device", "enabled", "forecast_prewarm")
    search_fields = ("name", "title")
    readonly_fields = ("policy_in_effect_now", "forecast_now", "prewarm_starts", "credit_used_pct", "dstack_yaml",
                       "dstack_settings")
    inlines = (PoolEventInline,)
    actions = (dstack_admin.dstack_plan, dstack_admin.dstack_apply, dstack_admin.dstack_verify,
               dstack_admin.dstack_delete)
    change_list_template = "admin/fleets/pool/change_list.html"

    @admin.display(description="backend", ordering="backend")
    def backend_shown(self, pool: Pool) -> str:
        return "simulated" if pool.is_simulated else pool.backend

    @admin.display(description="policy", ordering="policy")
    def policy_shown(self, pool: Pool) -> str:
        shown = PoolPolicy(pool.policy_in_effect).label
        return shown if pool.policy else f"{shown} (default)"

    @admin.display(description="GPU")
    def gpu(self, pool: Pool) -> str:
        return f"{pool.gpu_count}x {pool.gpu_name}" if pool.gpu_name else "-"

    @admin.display(description="policy in effect")
    def policy_in_effect_now(self, pool: Pool) -> str:
        if pool.pk is None:
            return "-"
        return policy_summary(pool=pool, now=timezone.now())

    @admin.display(description="forecast now")
    def forecast_now(self, pool: Pool) -> str:
        if pool.pk is None or not pool.forecast_prewarm:
            return "- (forecast pre-warming is off)"
        shown = next((o for o in prewarm_overview(now=timezone.now(), pools=[pool.pk])), None)
        if shown is None:
            return "-"
        return (f"{shown.forecast.sentence()}: {shown.vms_wanted} VM(s) kept ready; pre-warming spent "
                f"{shown.spent_today:.2f} of {shown.budget} USD today (UTC).")

    @admin.display(description="latest pre-warm starts")
    def prewarm_starts(self, pool: Pool) -> str:
        if pool.pk is None:
            return "-"
        reasons = list(PrewarmDecision.objects.filter(pool=pool).values_list("reason", flat=True)[:10])
        return format_html_join("", "<div>{}</div>", ((reason,) for reason in reasons)) if reasons else "-"

    @admin.display(description="dstack fleet YAML (what `fleet plan` sends)")
    def dstack_yaml(self, pool: Pool) -> str:
        if pool.pk is None or pool.backend != Backend.DSTACK:
            return "- (dstack pools only)"
        return dstack_admin.fleet_yaml_html(pool)

    @admin.display(description="dstack settings in effect (config keys; unset ones use these defaults)")
    def dstack_settings(self, pool: Pool) -> str:
        if pool.pk is None or pool.backend != Backend.DSTACK:
            return "- (dstack pools only)"
        return dstack_admin.fleet_settings_html(pool)

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.instances_view)
        return [path("dstack/", view, name="fleets_pool_dstack"), *super().get_urls()]

    def instances_view(self, request: HttpRequest) -> TemplateResponse:
        if not self.has_view_permission(request):  # staff alone is not enough: it lists VMs and runs
            raise PermissionDenied
        return dstack_admin.instances_view(self, request)


class VMChangeList(ChangeList):
    """Fetches the cost so far of the page's VMs in one query (not one per row). The admin is a page
like web's: it may show what billing booked, while fleets' services never call billing."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        costs = vm_costs(vm_ids=[vm.pk for vm in self.result_list])
        for vm in self.result_list:
            vm.cost_so_far = costs.get(vm.pk)


@admin.register(VMInstance)
class VMInstanceAdmin(admin.ModelAdmin):
    list_display = ("short_id", "pool", "state", "run", "up_for", "idle_for", "cold_start", "cost",
                    "serves", "jobs_started", "created_at")
    list_filter = ("state", "pool")
    list_select_related = ("pool",)
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
        if vm.pool.backend == Backend.DSTACK and vm.handle:
            return vm.handle
        if vm.pool.is_simulated:
            return f"simulated{f', agent pid {vm.pid}' if vm.pid else ''}"
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

    @admin.action(description="Drain: stop warm VMs now, busy ones after their job", permissions=["change"])
    def drain(self, request: HttpRequest, queryset: QuerySet[VMInstance]) -> None:
        done = [vm_drain(vm=vm, reason=f"Drained by {request.user}.") for vm in queryset]
        self.message_user(request, f"Stopped {done.count('stopped')} VM(s); {done.count('draining')} will stop after "
                                   f"their job; {done.count('unchanged')} left as they were (starting or ended).")

    @admin.action(description="Stop now (jobs on them are re-queued)", permissions=["change"])
    def stop_now(self, request: HttpRequest, queryset: QuerySet[VMInstance]) -> None:
        stopped = sum(vm_stop_now(vm=vm, reason=f"Stopped by {request.user}.")
                      for vm in queryset)
        self.message_user(request, f"Stopped {stopped} VM(s); ended ones were left alone.", messages.WARNING)


@admin.register(PrewarmDecision)
class PrewarmDecisionAdmin(admin.ModelAdmin):
    """Every VM the forecast started, and why: read only (the reaper writes them)."""

    list_display = ("at", "pool", "vm", "expected", "vms_wanted", "reason")
    list_filter = ("pool",)
    list_select_related = ("pool", "vm__pool")
    readonly_fields = ("pool", "vm", "at", "expected", "horizon_s", "vms_wanted", "reason")
    date_hierarchy = "at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
