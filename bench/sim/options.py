"""costsim's command line: which traces, which policies, what cloud."""

from __future__ import annotations

import argparse
import random
from datetime import datetime
from decimal import Decimal, InvalidOperation

from bench.sim.specs import CloudSpec, PolicySpec
from bench.sim.traces import DAY, JobLengths, Trace, contest, diurnal, sparse, steady

SYNTHETIC = ("steady", "diurnal", "contest", "sparse")
FIXED_MINUTES = (0, 2, 10, 30)


def _seconds_range(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    try:
        bounds = (float(low), float(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds, or low-high seconds (e.g. 300-420)") from None
    if bounds[0] < 0 or bounds[0] > bounds[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: low must be between 0 and high")
    return bounds


def _decimal(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def _when(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give an ISO date or time, e.g. 2026-11-01") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.now().astimezone().tzinfo).astimezone()


def build_parser() -> argparse.ArgumentParser:
    from bench import costsim

    parser = argparse.ArgumentParser(description=costsim.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", default=",".join(SYNTHETIC), help=f"comma-separated of {', '.join(SYNTHETIC)}")
    parser.add_argument("--from-db", action="store_true", help="also replay the platform's own history")
    parser.add_argument("--pool", action="append", help="--from-db: only this pool's submissions (repeatable)")
    parser.add_argument("--since", type=_when, help="--from-db: submissions from this moment")
    parser.add_argument("--until", type=_when, help="--from-db: submissions before this moment")
    parser.add_argument("--durations", choices=("model", "history"), default="model",
                        help="job lengths from the problem and mode (model) or from the platform's judged jobs")
    parser.add_argument("--policies", default="",
                        help="comma-separated, e.g. always-on-1,fixed-10,adaptive (default: all)")
    parser.add_argument("--days", type=float, default=7.0, help="length of each synthetic trace (default 7)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--users", type=int, default=30, help="simulated users of the synthetic traces")
    parser.add_argument("--steady-rate", type=float, default=8.0,
                        help="steady: jobs per hour (8: the prototype's 'high' use, 200 a day)")
    parser.add_argument("--diurnal-peak", type=float, default=24.0,
                        help="diurnal: jobs per hour at the 14:00 peak (24: about 200 a day)")
    parser.add_argument("--contest-background", type=float, default=2.0, help="contest: jobs per hour before")
    parser.add_argument("--contest-peak", type=float, default=120.0, help="contest: jobs per hour at the deadline")
    parser.add_argument("--sparse-sessions", type=float, default=4.0, help="sparse: sessions per day")
    parser.add_argument("--cold-start", type=_seconds_range, default=(300.0, 420.0),
                        help="seconds, uniform between low-high (default 300-420: 5-7 min)")
    parser.add_argument("--no-capacity", type=float, default=0.0, help="share of VM starts failing (default 0)")
    parser.add_argument("--rate", type=_decimal, default=Decimal("1.99"), help="USD per VM-hour (default 1.99)")
    parser.add_argument("--max-vms", type=int, default=3)
    parser.add_argument("--credit", type=_decimal, default=Decimal("1400"), help="the credit grant, USD")
    parser.add_argument("--credit-used", type=_decimal, default=Decimal(0),
                        help="percent of the credit spent before the trace starts (the adaptive policy tightens "
                             "from 80 and 95)")
    parser.add_argument("--prewarm-hours", default="", help="the adaptive policy's pre-warm hours, e.g. 08-18")
    parser.add_argument("--prewarm-budget", type=_decimal, default=Decimal("60"),
                        help="the forecast policy's pre-warm budget, USD a UTC day (default 60)")
    parser.add_argument("--json", action="store_true", help="print the table as a JSON list of objects")
    parser.add_argument("--html", metavar="FILE", help="write a report with charts to FILE")
    return parser


def policies_from(args: argparse.Namespace) -> list[PolicySpec]:
    every = [PolicySpec(f"always-on-{n}", "always_on", min_vms=n, max_vms=n) for n in sorted({1, args.max_vms})]
    every += [PolicySpec(f"fixed-{m}", "fixed", idle_timeout_s=60 * m) for m in FIXED_MINUTES]
    every.append(PolicySpec("adaptive", "adaptive", prewarm_hours=args.prewarm_hours))
    every.append(PolicySpec("forecast", "adaptive", prewarm_hours=args.prewarm_hours, forecast=True,
                            prewarm_budget=args.prewarm_budget))
    if not args.policies:
        return every
    by_name = {p.name: p for p in every}
    wanted = [name.strip() for name in args.policies.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        raise SystemExit(f"unknown policy {', '.join(unknown)}; known: {', '.join(by_name)}")
    return [by_name[name] for name in wanted]


def cloud_from(args: argparse.Namespace) -> CloudSpec:
    if not 0 <= args.no_capacity <= 1:
        raise SystemExit("--no-capacity: give a share between 0 and 1")
    if args.max_vms < 1:
        raise SystemExit("--max-vms: at least 1")
    return CloudSpec(cold_start_s=args.cold_start, no_capacity_rate=args.no_capacity, rate=args.rate,
                     max_vms=args.max_vms, seed=args.seed, credit=args.credit, credit_used_pct=args.credit_used)


def trace_names(args: argparse.Namespace) -> list[str]:
    names = [name.strip() for name in args.traces.split(",") if name.strip()]
    unknown = [name for name in names if name not in SYNTHETIC]
    if unknown:
        raise SystemExit(f"unknown trace {', '.join(unknown)}; known: {', '.join(SYNTHETIC)} (and --from-db)")
    if args.days <= 0 or args.users < 1:
        raise SystemExit("--days must be above 0 and --users at least 1")
    return names


def traces_from(args: argparse.Namespace, names: list[str]) -> list[Trace]:
    """The traces asked for (Django is set up: --from-db and --durations history read the database)."""
    from django.db import DatabaseError

    from bench.sim.history import history_lengths, history_trace

    try:
        history = history_lengths(using="history", pools=args.pool) if args.durations == "history" else None
    except DatabaseError as exc:
        raise SystemExit(f"--durations history: the platform's database cannot be read ({exc}); is it migrated "
                         "(DATABASE_URL, else var/db.sqlite3)?") from exc
    lengths = JobLengths(history=history)
    span = args.days * DAY
    makers = {
        "steady": lambda rng: steady(rng=rng, lengths=lengths, span_s=span, rate_per_h=args.steady_rate,
                                     users=args.users),
        "diurnal": lambda rng: diurnal(rng=rng, lengths=lengths, span_s=span, peak_per_h=args.diurnal_peak,
                                       users=args.users),
        "contest": lambda rng: contest(rng=rng, lengths=lengths, span_s=span, background_per_h=args.contest_background,
                                       peak_per_h=args.contest_peak, users=args.users),
        "sparse": lambda rng: sparse(rng=rng, lengths=lengths, span_s=span, sessions_per_day=args.sparse_sessions,
                                     users=args.users),
    }
    traces = [makers[name](random.Random(f"{args.seed}:{name}")) for name in names]
    if args.from_db:
        try:
            traces.append(history_trace(using="history", lengths=lengths, rng=random.Random(args.seed),
                                        pools=args.pool, since=args.since, until=args.until))
        except ValueError as exc:
            raise SystemExit(f"--from-db: {exc}") from exc
        except DatabaseError as exc:
            raise SystemExit(f"--from-db: the platform's database cannot be read ({exc}); is it migrated "
                             "(DATABASE_URL, else var/db.sqlite3)?") from exc
    return traces
