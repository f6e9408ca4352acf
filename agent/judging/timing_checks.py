"""The times a benchmark reports, and the checks on them. Each check returns a sentence for the
verdict (None: nothing wrong).

Every call is timed by the trusted parent: from just before it sends GO to the kernel's stamp on
the child's DONE (agent.harness.channel). On the host device that is the time reported. On a GPU the
kernel's time is measured by events in the child's process (a GPU context belongs to one
process), and the child is the user's: its event times are claims. The parent bounds them from
below by its own clock: a call cannot have taken less than the parent saw minus what a call costs
around its kernel on this machine (the handshake, two event records, the synchronization). That
cost is calibrated with empty calls before user code is loaded into the child, so no kernel can
inflate it; a forged event time gains at most that much per call.
"""

from __future__ import annotations

import statistics

from agent.problems.roofline import DEFAULT_FLOPS_TYPE, H100_SXM, MI300X

MIN_RUNS = 3
# What no kernel on a device can beat (bytes/s and fp32 FLOP/s with margin over the best hardware of
# the class): a faster time is a broken measurement, not a fast kernel.
PEAK_GBPS = {"host": 1_000.0, "hip": 12_000.0, "cuda": 12_000.0, "emulated": 1_000.0}
PEAK_GFLOPS = {"host": 20_000.0, "hip": 350_000.0, "cuda": 1_000_000.0, "emulated": 20_000.0}
# Matrix units run lower precisions many times faster (an honest fp8 GEMM at half an MI300X's peak
# computes 1.3 PFLOPS): the ceiling for a problem's flops_type is the fp32 one above or this margin
# times the class's documented dense peak for the type (agent.problems.roofline), whichever is higher. The
# margin covers the class's faster parts (MI355X over MI300X, B200 over H100). fp32 and fp64 keep
# the fp32 ceiling.
PLAUSIBLE_MARGIN = 2.5
# A CPU's matrix extensions (AMX: 16x and 32x the per-cycle fp32 FMA rate in bf16/fp16 and int8).
_HOST_TYPE_GFLOPS = {"fp16": 128_000.0, "bf16": 128_000.0, "int8": 256_000.0}
_LOW_PRECISION = ("fp32_emulated", "fp16", "bf16", "fp8", "int8")
TYPE_PEAK_GFLOPS = {"hip": {k: MI300X.compute(k) for k in _LOW_PRECISION},
                    "cuda": {k: H100_SXM.compute(k) for k in _LOW_PRECISION},
                    "host": _HOST_TYPE_GFLOPS, "emulated": _HOST_TYPE_GFLOPS}
# The allowance for a call's cost around its kernel: what the quickest of the calibrated empty
# calls cost (the others waited for a CPU), times this, plus this much for what an empty call does
# not do (the launch; the harness's own code running cache-cold after a kernel swept the caches).
OVERHEAD_FACTOR = 2.0
OVERHEAD_SLACK_MS = 0.05
# A call on entirely fresh inputs may take this much longer than the fastest call on changed inputs
# timed beside it before the work is judged to depend on earlier calls. Fastest against fastest: on
# a busy machine a call now and then waits for a CPU, which only ever adds time.
FRESH_RATIO = 3.0
FRESH_SLACK_MS = 0.05


def quickest(values: list[float]) -> list[float]:
    """The quickest quarter (at least three): on a busy machine the others include waits for a CPU."""
    return sorted(values)[: max(3, len(values) // 4)]


def overhead_bound(empty_calls_ms: list[float]) -> float:
    """How far below the parent's clock a GPU call's event time may fall."""
    return statistics.median(quickest(empty_calls_ms)) * OVERHEAD_FACTOR + OVERHEAD_SLACK_MS


def gpu_times(events_ms: list[float], walls_ms: list[float], bound_ms: float,
              judge_gaps: bool = True) -> tuple[list[float], str | None]:
    """The times to report for GPU calls, and a sentence when the events cannot be the calls'.

    Each time is the event time, raised to the parent's time minus the bound where it is lower: no
    time below what the parent can vouch for is ever reported, whatever the child claims. Events
    longer than the parent's clock are refused, and so are events below it by more than the bound
    in the calls the parent saw end soonest (on a busy machine a handshake now and then waits for
    a CPU, which only ever adds to the parent's time; the quickest calls are those it did not):
    the work ran outside the events (another stream, a thread) or the times are forged. The few
    calls on fresh inputs are only clamped (`judge_gaps` False): the timed runs decide that."""
    pairs = list(zip(events_ms, walls_ms, strict=True))
    for event, wall in pairs:
        if event > wall * 1.05 + 0.05:
            return [], f"a call timed at {event:.4f} ms by GPU events took only {wall:.4f} ms by the judge's clock"
    fastest = sorted(pairs, key=lambda pair: pair[1])[: max(3, len(pairs) // 4)]
    if judge_gaps and statistics.median(wall - event for event, wall in fastest) > bound_ms:
        return [], (f"GPU events measured {statistics.median(e for e, _ in fastest):.4f} ms per call but the "
                    f"judge's own clock saw {statistics.median(w for _, w in fastest):.4f} ms (the quickest "
                    f"calls), more than the {bound_ms:.4f} ms a call costs around its kernel on this machine: all "
                    "work must run on the default stream inside solution(), and the times must be the events'")
    return [max(event, wall - bound_ms) for event, wall in pairs], None


def fresh_anomaly(times: list[float], fresh: list[float]) -> str | None:
    """The calls on fresh inputs must not be much slower than those on changed inputs (`times`): a
    kernel that keeps copies of earlier inputs and patches its last result where the few changed
    elements are (O(changes x N) instead of O(N^3) for a matmul) is fast only on changed inputs."""
    best = min(times)
    if fresh and min(fresh) > FRESH_RATIO * best + FRESH_SLACK_MS:
        shown = " and ".join(f"{t:.4f}" for t in fresh)
        return (f"calls on fresh inputs took {shown} ms but calls on slightly changed inputs timed beside them "
                f"{best:.4f} ms (the fastest): the work must not be carried over from earlier calls")
    return None


def gflops_ceiling(device: str, flops_type: str = DEFAULT_FLOPS_TYPE, override: float | None = None) -> float:
    """The FLOP/s (GFLOPS) no device of the class reaches in `flops_type`. An operator's override
    (HIPJUDGE_PEAK_GFLOPS) replaces the fp32 ceiling; the other types keep their ratio to it."""
    fp32 = PEAK_GFLOPS[device]
    typed = max(fp32, PLAUSIBLE_MARGIN * TYPE_PEAK_GFLOPS[device].get(flops_type, 0.0))
    return typed if override is None else override * typed / fp32


def implausible(device: str, best_ms: float, nbytes: float, flops: float,
                peak_gbps: float | None = None, peak_gflops: float | None = None,
                flops_type: str = DEFAULT_FLOPS_TYPE) -> str | None:
    """A time beyond the physical peak of any device of the class is broken; the compute peak is
    that of the type the problem's work runs in."""
    seconds = best_ms / 1e3
    gbps_limit = peak_gbps if peak_gbps is not None else PEAK_GBPS[device]
    gflops_limit = gflops_ceiling(device, flops_type, peak_gflops)
    if seconds <= 0:
        return "a timed run took no time at all"
    if nbytes and nbytes / seconds / 1e9 > gbps_limit:
        return (f"a run of {best_ms:.6f} ms would move {nbytes / seconds / 1e9:,.0f} GB/s, beyond any "
                f"{device} device ({gbps_limit:,.0f} GB/s)")
    if flops and flops / seconds / 1e9 > gflops_limit:
        return (f"a run of {best_ms:.6f} ms would compute {flops / seconds / 1e9:,.0f} GFLOPS in {flops_type}, "
                f"beyond any {device} device ({gflops_limit:,.0f} GFLOPS)")
    return None
