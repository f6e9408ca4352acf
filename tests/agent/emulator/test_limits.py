"""The check phase on the emulated device has its own wall-clock limit (`emulated_check_s`): the
host's CPU runs every GPU thread there, on cores the whole local pool shares, so the GPU's 30 s
(`check_s`) would fail correct kernels whenever the machine is busy. Both directions are pinned
with sleeps and spins, never with the machine's speed."""

from __future__ import annotations

import pytest

from agent.config import AgentConfig
from agent.sandbox.resources import CEILINGS
from tests.agent.conftest import load_problem, run_job

pytestmark = [pytest.mark.integration]

# Correct, but every call first sleeps 0.5 s: a check (one call per test case, four or more cases)
# outlasts a 1 s limit whatever the machine's speed.
SLOW_BUT_RIGHT = """#include <hip/hip_runtime.h>
#include <time.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    struct timespec pause = {0, 500000000};
    nanosleep(&pause, 0);
    hipLaunchKernelGGL(add, dim3((unsigned)((n + 255) / 256)), dim3(256), 0, 0, a, b, c, n);
}
"""

SPINS_FOREVER = """#include <hip/hip_runtime.h>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    volatile int forever = 1;
    while (forever) {
    }
}
"""


def test_the_gpu_check_limit_does_not_bind_a_check_on_the_emulated_device(emu_config: AgentConfig) -> None:
    result, _ = run_job(load_problem("vector-add"), SLOW_BUT_RIGHT, "hip", "check", {"check_s": 1},
                        config=emu_config)
    assert result["status"] == "CHECKED", result
    assert result["summary"]["device"] == "emulated"


def test_the_emulated_check_limit_stops_a_kernel_that_never_returns(emu_config: AgentConfig) -> None:
    result, _ = run_job(load_problem("vector-add"), SPINS_FOREVER, "hip", "check",
                        {"check_s": CEILINGS["check_s"], "emulated_check_s": 2}, config=emu_config)
    assert result["status"] == "TIME_LIMIT_EXCEEDED", result
    assert "within the 2 s limit" in result["reason"], result
