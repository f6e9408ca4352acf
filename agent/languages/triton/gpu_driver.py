"""Triton's runtime on a GPU without PyTorch.

Triton finds its active driver through PyTorch (`torch.cuda.is_available()`), and its HIP driver
takes the current device and stream from PyTorch too. The judge's child has no PyTorch: it uses one
GPU (device 0, the one the judge's own runtime binding opened) and the default stream, which is the
stream the judge's events time. CUDA's driver already falls back to that without PyTorch; HIP's is
given the same here.

Triton compiles nothing here: its kernels and launcher stub come from the read-only cache the
compile phase wrote (agent.languages.triton.precompiled). An autotuned kernel's configurations are
timed with the judge's own events on that stream (at most MAX_TRITON_AUTOTUNE_CONFIGS of them, in
agent.languages.triton.budget, each AUTOTUNE_RUNS times), in the first call of each new autotune
key: an untimed call, since every phase calls each case untimed before it times it (the tests, the
warm-ups, the ranked pass's determinism check).

Not run on a GPU yet (no GPU where it was written): see docs/adding-a-language.md.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable
from typing import Any

AUTOTUNE_RUNS = 5  # timed launches per autotune configuration, after one untimed


def install(api: str, timed_call: Callable[[Callable[[], None]], float] | None = None) -> None:
    """Make Triton launch on device 0's default stream of `api` ("hip" or "cuda"), from the
    precompiled cache; `timed_call` (the judge's events around a call, in ms) times autotuning."""
    from triton.runtime import driver

    from agent.languages.triton.precompiled import NotPrecompiled, read_manifest, use_precompiled

    manifest = read_manifest(os.environ.get("TRITON_CACHE_DIR"))
    if manifest is None or manifest.get("backend") != api:
        raise NotPrecompiled(f"no Triton cache precompiled for {api} was handed to this run (a judge error)")
    use_precompiled(manifest)
    active = _hip_driver() if api == "hip" else _cuda_driver()
    if timed_call is not None:
        active.get_benchmarker = lambda: _benchmarker(timed_call)
    driver.set_active(active)


def _benchmarker(timed_call: Callable[[Callable[[], None]], float]) -> Callable[..., list[float]]:
    """Triton's `do_bench` for the autotuner, without PyTorch: the median and quantiles of a few
    event-timed launches."""

    def do_bench(kernel_call: Callable[[], None], quantiles: Any = None, **_: Any) -> list[float]:
        kernel_call()  # the first launch loads the kernel's module
        times = sorted(timed_call(kernel_call) for _ in range(AUTOTUNE_RUNS))
        if not quantiles:
            return [statistics.median(times)]
        return [times[min(len(times) - 1, int(q * len(times)))] for q in quantiles]

    return do_bench


def _cuda_driver() -> Any:
    from triton.backends.nvidia.driver import CudaDriver

    return CudaDriver()  # without torch in sys.modules it uses the default stream itself


def _hip_driver() -> Any:
    from triton.backends.amd.driver import HIPDriver, HIPLauncher, HIPUtils

    class TorchFreeHIPDriver(HIPDriver):
        def __init__(self) -> None:  # not HIPDriver's: GPUDriver.__init__ imports torch
            self.utils = HIPUtils()
            self.launcher_cls = HIPLauncher
            self.get_current_device = lambda: 0
            self.set_current_device = lambda device: None
            self.get_current_stream = lambda device=None: 0  # the default stream: the judge's events time it

    return TorchFreeHIPDriver()
