"""The least any online policy can pay for a wait goal on a Poisson trace: what issue 42's goal
(p95 wait for a VM <= 60 s at <= 1.6x the offline optimum) costs at the very least, per trace.

The argument, for a trace whose arrivals are a Poisson process of known rate lambda(t):
- A policy that does not see the future (every policy a platform can run) decides from what has
  happened. A Poisson arrival at t is independent of that past, so it finds the pool as the pool is
  at t, whatever the policy did (arrivals see time averages; with a varying rate, weighted by it).
- An arrival waits at most W only if a VM is already billed at its moment (booting, idle or busy):
  one started at the arrival needs a cold start, which is never under the cloud's low end > W.
- With R(t) the probability that a VM is billed at t, the expected share of arrivals waiting at
  most W is at most (integral of lambda R) / (integral of lambda), and the expected VM-seconds are
  at least the integral of R.
- So a share q of arrivals within W costs at least the least integral of R with 0 <= R <= 1 and
  integral of lambda R >= q times integral of lambda: a fractional knapsack, solved by billing the
  busiest moments first until they carry share q of the expected arrivals.

The bound is on expectations: one seeded week can land a little either side of it. It leaves out
everything else a real policy pays (second VMs when jobs overlap, the job's own seconds at quiet
moments), so real policies sit above it.
"""

from __future__ import annotations

from collections.abc import Callable

SLOT_S = 60.0  # the rate is read at each minute's middle; the traces' rates change over hours


def least_billed_seconds(rate_per_h: Callable[[float], float], span_s: float, *, share: float,
                         slot_s: float = SLOT_S) -> float:
    """The least expected VM-seconds for which `share` of the expected arrivals find a VM billed."""
    if not 0 <= share <= 1:
        raise ValueError(f"share {share} is not between 0 and 1")
    slots = max(int(span_s // slot_s), 1)
    rates = sorted((max(rate_per_h((i + 0.5) * slot_s), 0.0) for i in range(slots)), reverse=True)
    needed, seconds = share * sum(rates), 0.0
    for rate in rates:
        if needed <= 0:
            break
        if rate <= 0:  # the rest carry no arrivals: the share cannot be reached with them
            break
        part = min(1.0, needed / rate)  # the last slot needs only part of itself
        seconds += part * slot_s
        needed -= part * rate
    return seconds


def online_bound_seconds(rate_per_h: Callable[[float], float] | None, span_s: float, *,
                         cold_start_low_s: float, wait_s: float = 60.0, share: float = 0.95) -> float | None:
    """The least VM-seconds any online policy pays for `share` of arrivals to wait at most wait_s;
    None where the argument does not hold: arrivals not Poisson with a known rate, or a cold start
    that can itself end within wait_s."""
    if rate_per_h is None or cold_start_low_s <= wait_s:
        return None
    return least_billed_seconds(rate_per_h, span_s, share=share)
