"""What a pool policy costs: arrival traces replayed through the platform's own dispatcher, VM
services, reaper and billing on a simulated clock (bench/sim/engine.py says what is real and what
is simulated), against a simulated cloud: cold starts drawn from a distribution, no-capacity failures
at a set rate, a price per hour.

For each trace and policy it prints the total cost (the ledger's), the cost / lower bound (busy
seconds x rate: what the jobs alone would cost on VMs that appear and vanish instantly), the cost /
offline optimum (what a pool that knew every arrival in advance would pay, letting no job wait:
bench/sim/optimum.py), the idle share of VM time, cold starts, the p50 / p95 wait in the queue
(submitted -> job started on a VM), p95 submitted -> result, and the CPU seconds the run took. Each
run also checks that the ledger equals the simulated cloud's own bill to the cent.

    .venv/bin/python bench/costsim.py                          # every trace x every policy, a week each
    .venv/bin/python bench/costsim.py --traces steady --policies fixed-10,adaptive --days 2
    .venv/bin/python bench/costsim.py --from-db --pool mi300x   # the platform's own history (DATABASE_URL)
    .venv/bin/python bench/costsim.py --json > figures.json     # the same table as JSON
    .venv/bin/python bench/costsim.py --html report.html        # charts: VMs up, queue, spend over time

Traces (seeded: the same command prints the same table): steady (Poisson), diurnal (day/night),
contest (a deadline rush), sparse (a few sessions a day), from-db (--from-db). Policies: always-on-N,
fixed-0, fixed-2, fixed-10, fixed-30 (idle timeout in minutes), adaptive (fleets/policy.py) and forecast (adaptive
with pre-warming from the pool's forecast, fleets/prewarm.py, within --prewarm-budget USD a day; the contest
trace declares its deadline's last hours as an event, as staff would).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _platform_database_url() -> str:
    """The platform's database as config.settings would pick it (DATABASE_URL, else var/db.sqlite3)."""
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    var = Path(os.environ.get("HIPJUDGE_VAR_DIR", str(ROOT / "var")))
    return f"sqlite:///{var / 'db.sqlite3'}"


def _set_up_django(work: Path, *, history: bool) -> Path:
    """Django on a throwaway SQLite file, migrated and with the problems loaded once: every run
    starts from a copy of it. The platform's database, when --from-db reads it, is `history`."""
    if history:
        os.environ["HIPJUDGE_COSTSIM_HISTORY_URL"] = _platform_database_url()
    template = work / "template.sqlite3"
    os.environ.update({"DATABASE_URL": f"sqlite:///{template}", "HIPJUDGE_LOG_LEVEL": "ERROR",
                       "DJANGO_SETTINGS_MODULE": "bench.sim.settings", "HIPJUDGE_VAR_DIR": str(work / "var")})
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    call_command("load_problems", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
    connection.close()
    return template


def _fresh_database(template: Path, work: Path, index: int) -> Path:
    from django.db import connection

    connection.close()
    path = work / f"run-{index}.sqlite3"
    shutil.copyfile(template, path)
    connection.settings_dict["NAME"] = str(path)
    return path


def main(argv: list[str] | None = None) -> int:
    from bench.sim.options import build_parser, cloud_from, policies_from, trace_names

    args = build_parser().parse_args(argv)
    policies, cloud, names = policies_from(args), cloud_from(args), trace_names(args)  # refused before any work
    work = Path(tempfile.mkdtemp(prefix="hipjudge-costsim-"))
    try:
        template = _set_up_django(work, history=args.from_db or args.durations == "history")
        from bench.sim.engine import Engine
        from bench.sim.measure import figures
        from bench.sim.options import traces_from
        from bench.sim.report import print_table, write_html

        traces = traces_from(args, names)
        results, runs = [], []
        for index, (trace, policy) in enumerate((t, p) for t in traces for p in policies):
            path = _fresh_database(template, work, index)
            run = Engine(trace, policy, cloud).execute()
            figure = figures(run)
            results.append(figure)
            runs.append((run, figure))
            if not args.json:
                print(f"  {trace.name:<8} {policy.name:<12} {len(trace.arrivals):6d} jobs, {trace.span_s / 86400:.1f} "
                      f"days: {figure.wall_s:5.1f} s ({figure.cpu_s:5.1f} s of CPU)", file=sys.stderr)
            path.unlink()
        print_table(results, traces, cloud, json_out=args.json)
        if args.html:
            write_html(Path(args.html), runs, cloud)
        mismatched = [f for f in results if abs(f.cost_usd - f.cloud_bill_usd) >= Decimal("0.01")]
        return 1 if mismatched else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
