"""Triton's runtime on a GPU without PyTorch.

Triton finds its active driver through PyTorch (`torch.cuda.is_available()`), and its HIP driver
takes the current device and stream from PyTorch too. The judge's child has no PyTorch: it uses one
GPU (device 0, the one the judge's own runtime binding opened) and the default stream, which is the
stream the judge's events time. CUDA's driver already falls back to that without PyTorch; HIP's is
given the same here.

Not run on a GPU yet (no GPU where it was written): see docs/adding-a-language.md.
"""

from __future__ import annotations

from typing import Any


def install(api: str) -> None:
    """Make Triton launch on device 0's default stream of `api` ("hip" or "cuda")."""
    from triton.runtime import driver

    driver.set_active(_hip_driver() if api == "hip" else _cuda_driver())


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
