"""The demand forecast of a pool: how many submissions it expects in the next few minutes, from its own
history (PoolArrivals: submissions per 5-minute slot) and the events staff declared (PoolEvent).

It reads only slots that ended before the current one began, and events (declared ahead), so what it
says at an instant depends on nothing that happens at or after that instant's slot (the simulator
checks this: tests/bench/test_prewarm.py). It is constant within a slot, which lets the reaper and
the simulator re-read it only at slot boundaries.

Three estimates of the submissions expected over the horizon, the largest wins (and the chance that
one comes at least is Poisson's for it):
- seasonal: the mean count in the same window of the last days (time of day) and, once two weeks are
  known, of the last weeks (time of week), half each; read from the window widened by an hour on each
  side and scaled down to it, so one user's session weighs little; only days and weeks the history
  covers count, and fewer than three count as three (the missing ones empty);
- recent: the last hour's rate, from five arrivals in it (a burst the calendar did not foresee, or a
  pool with no history yet; fewer are one or two users' sessions);
- events: the expected rate of a declared event overlapping the horizon.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Q

from fleets.models import Pool, PoolArrivals, PoolEvent

SLOT = timedelta(minutes=5)
HISTORY_KEPT = timedelta(weeks=8)
DAYS_READ, WEEKS_READ = 7, 8
RECENT = timedelta(hours=1)
RECENT_MIN = 5  # fewer arrivals in the last hour are a user's session, not a rate to plan for
MIN_SAMPLES = 3
SEASON_MARGIN = timedelta(hours=1)
DAY, WEEK = timedelta(days=1), timedelta(weeks=1)


def slot_start(at: datetime) -> datetime:
    """The start of the slot holding `at` (slots are aligned on the hour)."""
    floored = at.replace(second=0, microsecond=0)
    return floored - timedelta(minutes=floored.minute % int(SLOT.total_seconds() // 60))


@dataclass(frozen=True)
class Forecast:
    at: datetime  # the slot it was made for (it reads nothing from this slot on)
    horizon_s: float
    expected: float  # submissions expected within the horizon from `at`
    chance: float  # that one comes at least (Poisson)
    seasonal: float | None  # the same, from the calendar (None: no day of history yet)
    recent: float  # the same, at the last hour's rate
    event: float  # the same, at the rate of a declared event (0: none)
    event_title: str = ""

    @property
    def per_h(self) -> float:
        return self.expected * 3600 / self.horizon_s if self.horizon_s > 0 else 0.0

    @property
    def source(self) -> str:
        if self.event and self.expected == self.event:
            return f"event {self.event_title!r}"
        if self.seasonal is not None and self.expected == self.seasonal:
            return "the pool's history at this time"
        return "the last hour"

    def sentence(self) -> str:
        minutes = self.horizon_s / 60
        return f"expected {self.expected:.1f} arrivals in the next {minutes:.0f} min ({self.source})"


def _window_mean(counts: list[tuple[datetime, int]], starts: list[datetime], horizon: timedelta) -> float | None:
    """The mean count over the horizon from `starts`, read from the horizon widened by SEASON_MARGIN on
    each side and scaled down to it (a session that came a little earlier or later counts too, and one
    user's session weighs little), as if at least MIN_SAMPLES days were known (missing ones empty): one
    busy day alone is no pattern yet."""
    if not starts:
        return None
    total = sum(count for slot, count in counts for start in starts
                if start - SEASON_MARGIN <= slot < start + horizon + SEASON_MARGIN)
    return total / max(len(starts), MIN_SAMPLES) * horizon / (horizon + 2 * SEASON_MARGIN)


def demand_forecast(*, pool: Pool, now: datetime, horizon_s: float) -> Forecast:
    """What `pool` expects from the start of `now`'s slot over the next `horizon_s` seconds (three
    queries: the first slot known, the calendar's windows and the recent slots, the events)."""
    at = slot_start(now)
    horizon = timedelta(seconds=horizon_s)
    first = (PoolArrivals.objects.filter(pool=pool, slot__lt=at, slot__gte=at - HISTORY_KEPT)
             .order_by("slot").values_list("slot", flat=True).first())
    days = [at - d * DAY for d in range(1, DAYS_READ + 1)]
    weeks = [at - w * WEEK for w in range(1, WEEKS_READ + 1)]
    days = [start for start in days if first is not None and start - SEASON_MARGIN >= first]
    weeks = [start for start in weeks if first is not None and start - SEASON_MARGIN >= first]
    windows = Q(slot__gte=at - RECENT, slot__lt=at)
    for start in {*days, *weeks}:
        windows |= Q(slot__gte=start - SEASON_MARGIN, slot__lt=start + horizon + SEASON_MARGIN)
    counts = list(PoolArrivals.objects.filter(windows, pool=pool, slot__lt=at).values_list("slot", "count"))
    daily, weekly = _window_mean(counts, days, horizon), _window_mean(counts, weeks, horizon)
    seasonal = (daily + weekly) / 2 if daily is not None and weekly is not None and len(weeks) >= 2 else daily
    recent_count = sum(count for slot, count in counts if slot >= at - RECENT)
    recent = recent_count * horizon_s / RECENT.total_seconds() if recent_count >= RECENT_MIN else 0.0
    event_rate, title = 0.0, ""
    for declared in PoolEvent.objects.filter(pool=pool, starts_at__lt=at + horizon, ends_at__gt=at):
        if declared.expected_per_h > event_rate:
            event_rate, title = declared.expected_per_h, declared.title
    event = event_rate * horizon_s / 3600
    expected = max(seasonal or 0.0, recent, event)
    chance = 1 - math.exp(-expected)  # Poisson
    return Forecast(at=at, horizon_s=horizon_s, expected=expected, chance=chance, seasonal=seasonal, recent=recent,
                    event=event, event_title=title)
