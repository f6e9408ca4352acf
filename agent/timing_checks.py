"""Cross-checks of the times the sandboxed child reports. The child runs in the same process as
the user's code, so its numbers are claims: each check here names what a lying or gaming kernel
would have to get past, and returns a sentence for the verdict (None: nothing wrong)."""

from __future__ import annotations

import statistics
from typing import Any

MIN_RUNS = 3
# What no kernel on a device can beat (bytes/s and FLOP/s with margin over the best hardware of the
# class): a faster reported time is a forged or broken measurement, not a fast kernel.
PEAK_GBPS = {"host": 1_000.0, "hip": 12_000.0, "cuda": 12_000.0}
PEAK_GFLOPS = {"host": 20_000.0, "hip": 350_000.0, "cuda": 1_000_000.0}
# GPU events must account for most of the wall clock around a call; below this the kernel ran work
# the events did not see (another stream, a thread) and its time would be a lie.
MIN_EVENT_SHARE = 0.5
LAUNCH_SLACK_MS = 0.2
# A call on entirely fresh inputs may take this much longer than the median timed call before the
# work is judged to depend on earlier calls (both fresh calls must be that slow: one preempted
# call on a busy host is not a verdict).
FRESH_RATIO = 3.0
FRESH_SLACK_MS = 0.05


def _numbers(values: Any) -> bool:
    return isinstance(values, list) and all(isinstance(v, int | float) and v >= 0 for v in values)


def _longer_than_wall(times: list[float], walls: list[float]) -> str | None:
    for event_ms, wall_ms in zip(times, walls, strict=True):
        if event_ms > wall_ms * 1.05 + 0.05:
            return f"a call timed at {event_ms:.4f} ms took only {wall_ms:.4f} ms of wall clock"
    return None


def timing_anomaly(device: str, times: Any, walls: Any) -> str | None:
    """Each call's event time must fit in the wall clock around it; on GPUs the events must see
    most of that wall clock."""
    if (not _numbers(times) or not _numbers(walls) or len(times) != len(walls) or len(times) < MIN_RUNS):
        return "the harness reported malformed timings"
    if message := _longer_than_wall(times, walls):
        return message
    if device != "host":
        event_med, wall_med = statistics.median(times), statistics.median(walls)
        if event_med < MIN_EVENT_SHARE * wall_med - LAUNCH_SLACK_MS:
            return (f"GPU events measured {event_med:.4f} ms but each call took {wall_med:.4f} ms of wall "
                    "clock: all work must run on the default stream inside solution()")
    return None


def fresh_anomaly(times: list[float], fresh: Any, fresh_walls: Any, sets: int) -> str | None:
    """The calls on fresh inputs must be timed like the others, and not be much slower: a kernel
    that keeps copies of earlier inputs and patches its last result where the few changed
    elements are (O(changes x N) instead of O(N^3) for a matmul) is fast only on changed inputs."""
    if not _numbers(fresh) or not _numbers(fresh_walls) or len(fresh) != sets or len(fresh_walls) != sets:
        return "the harness reported malformed timings of the calls on fresh inputs"
    if message := _longer_than_wall(fresh, fresh_walls):
        return message
    median = statistics.median(times)
    if min(fresh) > FRESH_RATIO * median + FRESH_SLACK_MS:
        shown = " and ".join(f"{t:.4f}" for t in fresh)
        return (f"calls on fresh inputs took {shown} ms but calls on slightly changed inputs {median:.4f} ms "
                "(median): the work must not be carried over from earlier calls")
    return None


def implausible(device: str, best_ms: float, nbytes: float, flops: float,
                peak_gbps: float | None = None, peak_gflops: float | None = None) -> str | None:
    """A time beyond the physical peak of any device of the class is forged or broken."""
    seconds = best_ms / 1e3
    gbps_limit = peak_gbps if peak_gbps is not None else PEAK_GBPS[device]
    gflops_limit = peak_gflops if peak_gflops is not None else PEAK_GFLOPS[device]
    if seconds <= 0:
        return "a timed run took no time at all"
    if nbytes and nbytes / seconds / 1e9 > gbps_limit:
        return (f"a run of {best_ms:.6f} ms would move {nbytes / seconds / 1e9:,.0f} GB/s, beyond any "
                f"{device} device ({gbps_limit:,.0f} GB/s)")
    if flops and flops / seconds / 1e9 > gflops_limit:
        return (f"a run of {best_ms:.6f} ms would compute {flops / seconds / 1e9:,.0f} GFLOPS, beyond any "
                f"{device} device ({gflops_limit:,.0f} GFLOPS)")
    return None
