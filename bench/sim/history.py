"""The platform's own history as a trace (`costsim.py --from-db`): every stored submission of the
chosen pools, at the moment it was made, by its user, with the length its job really had (started
-> finished) when it was judged, else one drawn for its problem and mode."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import datetime, timedelta

from bench.sim.traces import HOUR, Arrival, JobLengths, Trace, span_for
from submissions.models import VERDICT_STATUSES, Submission


def _submissions(using: str, pools: list[str] | None) -> object:
    qs = Submission.objects.using(using).all()
    return qs.filter(pool__name__in=pools) if pools else qs


def history_lengths(*, using: str, pools: list[str] | None = None) -> dict[tuple[str, str], list[float]]:
    """Judged jobs' lengths by (problem, mode)."""
    lengths: dict[tuple[str, str], list[float]] = defaultdict(list)
    rows = (_submissions(using, pools).filter(status__in=VERDICT_STATUSES, started_at__isnull=False,  # type: ignore[attr-defined]
                                              finished_at__isnull=False)
            .values_list("problem__slug", "mode", "started_at", "finished_at"))
    for slug, mode, started, finished in rows:
        lengths[(slug, mode)].append(max((finished - started).total_seconds(), 0.0))
    return dict(lengths)


def history_trace(*, using: str, lengths: JobLengths, rng: random.Random, pools: list[str] | None = None,
                  since: datetime | None = None, until: datetime | None = None) -> Trace:
    qs = _submissions(using, pools)
    if since is not None:
        qs = qs.filter(created_at__gte=since)  # type: ignore[attr-defined]
    if until is not None:
        qs = qs.filter(created_at__lt=until)  # type: ignore[attr-defined]
    rows = list(qs.order_by("created_at", "id").values_list(  # type: ignore[attr-defined]
        "created_at", "user_id", "problem__slug", "mode", "status", "started_at", "finished_at"))
    if not rows:
        raise ValueError("the database holds no submissions for that pool and window")
    first = rows[0][0]
    start = first.replace(minute=0, second=0, microsecond=0)
    users: dict[int, int] = {}
    arrivals = []
    for created, user_id, slug, mode, status, started, finished in rows:
        if status in VERDICT_STATUSES and started is not None and finished is not None:
            duration = max((finished - started).total_seconds(), 0.0)
        else:
            duration = lengths.draw(rng, slug, mode)
        arrivals.append(Arrival((created - start).total_seconds(), users.setdefault(user_id, len(users)), slug, mode,
                                duration))
    span = max(span_for(arrivals), HOUR)
    about = (f"{len(arrivals)} submissions of {len(users)} users from {start:%Y-%m-%d %H:%M} to "
             f"{start + timedelta(seconds=span):%Y-%m-%d %H:%M} UTC")
    return Trace("from-db", start, span, arrivals, about)
