"""The dstack side of the fleets admin: plan / apply / verify / delete actions on dstack pools (with
a confirmation page for the two that change things) and the page that shows dstack's instances
beside our VMs. Each action calls one service per selected pool and shows what it said, errors
included (they already say what to do).

dstack's client and models take seconds to import and every Django process loads the admin, so the
dstack modules are imported by the functions that use them, not by this module."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib import admin
from django.contrib.admin import ModelAdmin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.html import format_html

from fleets.models import Backend, Pool
from fleets.selectors import vm_list_live

RESULT_TEMPLATE = "admin/fleets/dstack_result.html"


@dataclass
class Outcome:
    pool: Pool
    ok: bool = True
    message: str = ""
    error: str = ""
    yaml: str = ""
    details: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _each(queryset: QuerySet[Pool], work: Callable[[Pool, Outcome], None]) -> list[Outcome]:
    from fleets.dstack import DstackError

    outcomes = []
    for pool in queryset.order_by("name"):
        outcome = Outcome(pool=pool)
        if pool.backend != Backend.DSTACK:
            outcome.ok, outcome.error = False, f"Skipped: pool {pool.name} uses the {pool.backend} backend."
        else:
            try:
                work(pool, outcome)
            except DstackError as exc:
                outcome.ok, outcome.error = False, str(exc)
        outcomes.append(outcome)
    return outcomes


def _plan(pool: Pool, out: Outcome) -> None:
    from fleets.dstack_pools.services import dstack_fleet_plan

    report = dstack_fleet_plan(pool=pool)
    server, plan = report.server, report.plan
    out.yaml = plan.yaml
    out.message = f"dstack would {plan.action} fleet {plan.name}" if plan.action != "none" else "Nothing to change."
    price = f"{plan.max_price:.2f} USD/h" if plan.max_price is not None else "-"
    out.details = [f"Server: dstack {server.server_version or 'dev'} at {server.server_url}, project {server.project}, "
                   f"user {server.user}; backends configured: {', '.join(server.backends) or 'none'}.",
                   f"Offers now: {plan.offers} (dearest {price})."]
    out.details += [f"Change: {change}" for change in plan.changes]
    out.warnings = list(plan.warnings)


def _response(admin: ModelAdmin, request: HttpRequest, title: str, outcomes: list[Outcome], *,
              confirm: str = "", question: str = "", option: tuple[str, str] | None = None) -> TemplateResponse:
    context = {**admin.admin_site.each_context(request), "title": title, "outcomes": outcomes,
               "opts": admin.model._meta, "confirm": confirm, "question": question, "option": option,
               "selected": [o.pool.pk for o in outcomes if o.pool.backend == Backend.DSTACK]}
    return TemplateResponse(request, RESULT_TEMPLATE, context)


# Plan and verify change nothing (view permission); apply and delete change the pool (change permission).
@admin.action(description="dstack: plan (dry run: YAML and dstack's plan)", permissions=["view"])
def dstack_plan(admin: ModelAdmin, request: HttpRequest, queryset: QuerySet[Pool]) -> TemplateResponse:
    return _response(admin, request, "dstack plan (dry run: nothing was created)", _each(queryset, _plan),
                     confirm="dstack_apply", question="Apply these plans (create or update, then verify)?",
                     option=("recreate", "Re-create fleets dstack cannot update in place (terminates their instances)"))


@admin.action(description="dstack: apply (create or update, then verify)", permissions=["change"])
def dstack_apply(admin: ModelAdmin, request: HttpRequest, queryset: QuerySet[Pool]) -> TemplateResponse:
    if request.POST.get("confirm") != "yes":
        return dstack_plan(admin, request, queryset)
    recreate = request.POST.get("recreate") == "on"
    from fleets.dstack import fleet_yaml
    from fleets.dstack_pools.config import dstack_fleet_settings
    from fleets.dstack_pools.services import dstack_fleet_apply

    def apply(pool: Pool, out: Outcome) -> None:
        state = dstack_fleet_apply(pool=pool, recreate=recreate)
        out.yaml = fleet_yaml(dstack_fleet_settings(pool))
        out.message = (f"Applied ({state.action}): dstack fleet {state.name} is {state.status} with "
                       f"{state.instances} instance(s) and matches the pool's settings.")

    return _response(admin, request, "dstack apply", _each(queryset, apply))


@admin.action(description="dstack: verify against dstack", permissions=["view"])
def dstack_verify(admin: ModelAdmin, request: HttpRequest, queryset: QuerySet[Pool]) -> TemplateResponse:
    from fleets.dstack_pools.services import dstack_fleet_verify

    def verify(pool: Pool, out: Outcome) -> None:
        differences = dstack_fleet_verify(pool=pool)
        out.ok = not differences
        out.message = "In sync with dstack." if out.ok else "dstack's fleet differs; apply brings it in line."
        out.details = [str(d) for d in differences]

    return _response(admin, request, "dstack verify", _each(queryset, verify))


@admin.action(description="dstack: delete the dstack fleet", permissions=["change"])
def dstack_delete(admin: ModelAdmin, request: HttpRequest, queryset: QuerySet[Pool]) -> TemplateResponse:
    if request.POST.get("confirm") != "yes":
        def preview(pool: Pool, out: Outcome) -> None:
            live = vm_list_live(pool=pool).count()
            out.message = f"Deletes dstack fleet {pool.name} and terminates its instances; {live} live VM(s) here."

        return _response(admin, request, "Delete dstack fleets?", _each(queryset, preview), confirm="dstack_delete",
                         question="Delete these dstack fleets? The pools stop taking submissions.",
                         option=("force", "Even with VMs in use (their jobs are killed)"))
    force = request.POST.get("force") == "on"
    from fleets.dstack_pools.services import dstack_fleet_delete

    def delete(pool: Pool, out: Outcome) -> None:
        result = dstack_fleet_delete(pool=pool, force=force, wait_s=5)  # a web request: do not hang on it
        out.message = (f"dstack fleet {pool.name} {'deleted' if result == 'gone' else 'is terminating'}; "
                       "the pool is disabled.")

    return _response(admin, request, "dstack delete", _each(queryset, delete))


# ---- dstack's instances beside our VMs ---------------------------------------------------------------
@dataclass
class DstackPoolInstances:
    """One dstack pool on the instances page: its backend fleet's instances, our live VMs, its runs."""

    pool: Pool
    instances: list[Any] = field(default_factory=list)
    vms: list[Any] = field(default_factory=list)
    runs: list[Any] = field(default_factory=list)
    error: str = ""


def instances_view(admin: ModelAdmin, request: HttpRequest) -> TemplateResponse:
    from fleets.dstack import DstackError, list_vm_runs
    from fleets.dstack_pools.config import dstack_client
    from fleets.dstack_pools.services import dstack_fleet_instances

    pools = [DstackPoolInstances(pool=f) for f in Pool.objects.filter(backend=Backend.DSTACK).order_by("name")]
    error, runs = "", []
    try:
        client = dstack_client() if pools else None
        runs = list_vm_runs(client) if client is not None else []
    except DstackError as exc:
        client, error = None, str(exc)
    for shown in pools:
        shown.vms = list(vm_list_live(pool=shown.pool).order_by("created_at"))
        shown.runs = [r for r in runs if r.fleet == shown.pool.name]
        if client is None:
            continue
        try:
            shown.instances = dstack_fleet_instances(pool=shown.pool, client=client)
        except DstackError as exc:
            shown.error = str(exc)
    ours = {p.pool.name for p in pools}
    context = {**admin.admin_site.each_context(request), "title": "dstack instances and our VMs", "pools": pools,
               "error": error, "stray_runs": [r for r in runs if r.fleet not in ours], "opts": admin.model._meta}
    return TemplateResponse(request, "admin/fleets/dstack_instances.html", context)


# ---- the pool's change page ----------------------------------------------------------------------
def fleet_yaml_html(pool: Pool) -> str:
    """The backend fleet's YAML (what `fleet plan` sends), or the error that stops it."""
    from fleets.dstack import DstackError, fleet_yaml
    from fleets.dstack_pools.config import dstack_fleet_settings

    try:
        return format_html("<pre>{}</pre>", fleet_yaml(dstack_fleet_settings(pool)))
    except DstackError as exc:
        return format_html('<p class="errornote">{}</p>', exc)


def fleet_settings_html(pool: Pool) -> str:
    """The dstack settings in effect: each config key, or the default it falls back to."""
    from fleets.dstack_pools.services import pool_dstack_effective

    return format_html("<pre>{}</pre>", json.dumps(pool_dstack_effective(pool=pool), indent=2))
