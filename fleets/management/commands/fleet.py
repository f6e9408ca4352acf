"""`manage.py fleet init|plan|apply|verify|delete|instances NAME`: a dstack pool's backend fleet.

`init NAME --backend sim` makes a simulated pool instead (fleets.sim_pools): a local agent judges
its jobs, cold starts and the price are simulated; it has no backend fleet to plan or apply.
Thin: each operation is one call into fleets.dstack_pools.services; every dstack error already says what
to do, so it is shown as is (exit status 1).
"""

from __future__ import annotations

import sys
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from fleets.dstack import DstackError, FleetMissingError
from fleets.dstack_pools.services import (
    dstack_fleet_apply,
    dstack_fleet_delete,
    dstack_fleet_instances,
    dstack_fleet_plan,
    dstack_fleet_verify,
    pool_dstack_ensure,
)
from fleets.models import Pool
from fleets.selectors import pool_get
from fleets.sim_pools import pool_sim_ensure

OPERATIONS = ("init", "plan", "apply", "verify", "delete", "instances")


class Command(BaseCommand):
    help = ("Manage the dstack backend fleet of a pool: init (create the pool row), plan (dry run), "
            "apply (create/update, then verify), verify, delete, instances.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("operation", choices=OPERATIONS)
        parser.add_argument("name", help="the pool (and dstack fleet) name, e.g. mi300x")
        parser.add_argument("--yes", action="store_true", help="apply or delete without asking")
        parser.add_argument("--recreate", action="store_true",
                            help="apply: delete and re-create when dstack cannot update in place")
        parser.add_argument("--force", action="store_true", help="delete: even with VMs in use (kills their jobs)")
        parser.add_argument("--allow-missing-backends", action="store_true",
                            help="apply: do not refuse backends the dstack project lacks (test servers)")
        init = parser.add_argument_group("init")
        init.add_argument("--backend", choices=("dstack", "sim"), default="dstack",
                          help="dstack (a real backend fleet) or sim (a simulated cloud, jobs on this machine)")
        init.add_argument("--backends", default="amddevcloud", help="comma-separated, e.g. amddevcloud,hotaisle")
        init.add_argument("--image", default="", help="pinned ROCm image name:tag@sha256:<digest>")
        init.add_argument("--max-vms", type=int, default=1, help="also the fleet's nodes maximum")
        init.add_argument("--rate", default="1.99", help="USD per VM-hour when dstack reports no price")
        init.add_argument("--idle-timeout", type=int, default=600, help="seconds")
        init.add_argument("--provision-timeout", type=int, default=900, help="seconds")
        init.add_argument("--cold-start", type=float, default=30.0, help="sim: simulated cold start, seconds")
        init.add_argument("--no-capacity", type=float, default=0.0,
                          help="sim: share of starts that fail for no capacity (0-1)")
        init.add_argument("--insecure-no-sandbox", action="store_true",
                          help="sim: run user code without bubblewrap (only for code you trust)")

    def handle(self, *args: Any, **opts: Any) -> None:
        operation, name = opts["operation"], opts["name"]
        try:
            if operation == "init":
                self.init(name, opts)
                return
            pool = pool_get(name=name)
            if pool is None:
                raise CommandError(f"No pool named {name!r}. Create it with `manage.py fleet init {name} "
                                   "--backends amddevcloud --image <pinned image>` or in the admin.")
            getattr(self, operation)(pool, opts)
        except DstackError as exc:
            raise CommandError(str(exc)) from exc

    # ---- operations ------------------------------------------------------------------------------
    def init(self, name: str, opts: dict[str, Any]) -> None:
        if opts["backend"] == "sim":
            self.init_sim(name, opts)
            return
        backends = [b.strip() for b in opts["backends"].split(",") if b.strip()]
        pool, created = pool_dstack_ensure(
            name=name, backends=backends, image=opts["image"], max_vms=opts["max_vms"],
            hourly_rate=Decimal(opts["rate"]), idle_timeout_s=opts["idle_timeout"],
            provision_timeout_s=opts["provision_timeout"])
        self.stdout.write(f"{'created' if created else 'updated'} pool {pool.name}: dstack on {', '.join(backends)}, "
                          f"{pool.gpu_count}x {pool.gpu_name}, max {pool.max_vms} VM(s), "
                          f"{pool.hourly_rate} USD/h. Next: `manage.py fleet plan {pool.name}`.")

    def init_sim(self, name: str, opts: dict[str, Any]) -> None:
        try:
            pool, created = pool_sim_ensure(
                name=name, hourly_rate=Decimal(opts["rate"]), max_vms=opts["max_vms"],
                cold_start_s=opts["cold_start"], no_capacity_rate=opts["no_capacity"],
                idle_timeout_s=opts["idle_timeout"], insecure_no_sandbox=opts["insecure_no_sandbox"])
        except (ValidationError, InvalidOperation) as exc:
            raise CommandError(f"Pool {name} was not saved: {_sentence(exc)}") from exc
        self.stdout.write(f"{'created' if created else 'updated'} simulated pool {pool.name}: jobs run on this "
                          f"machine's host device (cpp), cold starts simulated ({opts['cold_start']:g} s), "
                          f"{pool.hourly_rate} USD per VM-hour, max {pool.max_vms} VM(s). It is a paid pool: "
                          "add a credit grant, then submit to it (superusers, or users given access).")

    def plan(self, pool: Pool, opts: dict[str, Any]) -> None:
        report = dstack_fleet_plan(pool=pool)
        server, plan = report.server, report.plan
        self.stdout.write(f"dstack {server.server_version or 'dev'} at {server.server_url} (project {server.project}, "
                          f"user {server.user}); backends configured: {', '.join(server.backends) or 'none'}")
        self.stdout.write(f"pool {pool.name} -> dstack fleet {plan.name}: {plan.action}")
        self.stdout.write("--- fleet YAML ---")
        self.stdout.write(plan.yaml.rstrip())
        self.stdout.write("------------------")
        price = f"{plan.max_price:.2f} USD/h" if plan.max_price is not None else "-"
        self.stdout.write(f"offers now: {plan.offers} (dearest {price})")
        for change in plan.changes:
            self.stdout.write(f"change: {change}")
        for warning in plan.warnings:
            self.stderr.write(f"warning: {warning}")

    def apply(self, pool: Pool, opts: dict[str, Any]) -> None:
        self.plan(pool, opts)
        self._confirm(opts, f"Create or update dstack fleet {pool.name}?")
        state = dstack_fleet_apply(pool=pool, recreate=opts["recreate"],
                                   require_backends=not opts["allow_missing_backends"])
        self.stdout.write(self.style.SUCCESS(
            f"applied ({state.action}): dstack fleet {state.name} is {state.status} with {state.instances} "
            "instance(s), and matches the pool's settings"))

    def verify(self, pool: Pool, opts: dict[str, Any]) -> None:
        try:
            differences = dstack_fleet_verify(pool=pool)
        except FleetMissingError as exc:
            raise CommandError(str(exc)) from exc
        if differences:
            for difference in differences:
                self.stderr.write(f"differs: {difference}")
            raise CommandError(f"dstack fleet {pool.name} differs from the pool's settings; "
                               f"`manage.py fleet apply {pool.name}` brings it in line.")
        self.stdout.write(self.style.SUCCESS(f"dstack fleet {pool.name} matches the pool's settings"))

    def delete(self, pool: Pool, opts: dict[str, Any]) -> None:
        self._confirm(opts, f"Delete dstack fleet {pool.name} (its instances are terminated)?")
        result = dstack_fleet_delete(pool=pool, force=opts["force"])
        self.stdout.write(self.style.SUCCESS(
            f"dstack fleet {pool.name} {'deleted' if result == 'gone' else 'is terminating'}; pool {pool.name} "
            "is disabled (enable it in the admin after `fleet apply`)"))

    def instances(self, pool: Pool, opts: dict[str, Any]) -> None:
        rows = dstack_fleet_instances(pool=pool)
        if not rows:
            self.stdout.write(f"dstack fleet {pool.name} has no instances")
        for i in rows:
            price = f"{i.price:.2f} USD/h" if i.price is not None else "-"
            self.stdout.write(f"{i.name}\t{i.status}\t{i.backend or '-'}\t{i.region or '-'}\t{price}\t"
                              f"since {i.created:%Y-%m-%d %H:%M}")

    def _confirm(self, opts: dict[str, Any], question: str) -> None:
        if opts["yes"]:
            return
        if not sys.stdin.isatty():
            raise CommandError(f"{question} Pass --yes to confirm (no terminal to ask).")
        if input(f"{question} [y/N] ").strip().lower() not in ("y", "yes"):
            raise CommandError("Nothing done.")


def _sentence(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages)
    return "the rate must be a number of USD per hour."
