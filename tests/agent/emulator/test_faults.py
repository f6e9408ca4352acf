"""Faults a GPU shows, reported better than a GPU would: one `hjemu: ` line and exit code 86, or
an error the compiler or the rewriter gives before anything runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.emulator.build import FAULT_EXIT_CODE
from tests.agent.emulator.conftest import run_program
from tests.agent.emulator.driver import CompileFailed, compile_library

BOTH = ("hip", "cuda")
IN_KERNEL = r", in kernel \w+, block \(0,0,0\) thread \(\d+,0,0\)$"
FAULTS = [
    ("read-past-end", BOTH, r"out-of-bounds read of device buffer 'a' \(4000 bytes\) at byte 4000 "
                            r"\(1 element past the end\)" + IN_KERNEL),
    ("write-far-past-end", BOTH, r"out-of-bounds write of device buffer 'a' .* at byte 4400 \(101 elements past"),
    ("read-before-start", BOTH, r"out-of-bounds read of device buffer 'a' .* at byte -4120 \(1030 element\(s\) "
                                r"before the start\)"),
    ("write-padding", BOTH, r"out-of-bounds write to device buffer 'odd' \(4004 bytes\) at byte 4004 \(just past "
                            r"the end\): found after kernel write_at finished"),
    ("write-below-start", BOTH, r"out-of-bounds write to device buffer 'odd' .* at byte -4 \(4 bytes before"),
    ("null", BOTH, r"invalid memory read at address 0xc \(a null pointer\)" + IN_KERNEL),
    ("use-after-free", BOTH, r"inside device buffer 'odd' \(4004 bytes\), which was freed"),
    ("host-read-past-end", BOTH, r"out-of-bounds read of device buffer 'a' .*, in host code$"),
    ("stack-overflow", BOTH, r"stack overflow: a GPU thread used more than its 64 KiB stack"),
    ("dynamic-shared", BOTH, r"out-of-bounds read of dynamic shared memory \(extern __shared__\) at byte 4096: "
                             r"the launch gave each block 1024 bytes"),
    ("divide-by-zero", BOTH, r"integer division by zero, in kernel divide, block \(0,0,0\) thread \(7,0,0\)"),
    ("trap", BOTH, r"the kernel called __trap\(\)"),
    ("nested-launch", BOTH, r"kernel outer launched kernel inner: .*dynamic parallelism"),
    ("exception", BOTH, r"a C\+\+ exception escaped the kernel"),
    ("different-barriers", BOTH, r"kernel two_barriers, block \(0,0,0\): barrier divergence: thread \(0,0,0\) "
                                 r"waits at __syncthreads\(\) on line 40 while thread \(32,0,0\) waits at the one "
                                 r"on line 42"),
    ("exit-before-barrier", BOTH, r"barrier divergence: 100 threads .* on line 51 but 28 threads \(thread "
                                  r"\(100,0,0\) first\) have already exited"),
    ("shuffle-width", BOTH, r"__shfl_sync on line 55 .*: width 12 is not a power of two"),
    ("mask-names-exited-lane", BOTH, r"__shfl_down_sync on line 59: the mask 0xf+ names lane 20 .*, which has "
                                     r"exited"),
    ("lane-outside-mask", ("hip",), r"lane 32 \(thread \(32,0,0\)\) calls it but is not in its mask 0xffffffff "
                                    r"\(HIP wavefronts have 64 lanes"),
]


@pytest.mark.parametrize(("mode", "api", "message"),
                         [(mode, api, message) for mode, apis, message in FAULTS for api in apis])
def test_fault_is_one_line_and_exit_86(emu_programs: dict[tuple[str, str], Path | CompileFailed], mode: str,
                                       api: str, message: str) -> None:
    result = run_program(emu_programs, "faults.cpp", api, mode)
    assert result.returncode == FAULT_EXIT_CODE, result.stdout + result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("hjemu: ")]
    assert len(lines) == 1, result.stderr
    assert re.search(message, lines[0]), lines[0]


def test_a_32_lane_mask_on_cuda_is_valid(emu_programs: dict[tuple[str, str], Path | CompileFailed]) -> None:
    result = run_program(emu_programs, "faults.cpp", "cuda", "lane-outside-mask")
    assert result.returncode == 0, result.stderr
    assert "no fault: 0" in result.stdout, result.stderr


@pytest.mark.parametrize(("api", "source", "message"), [
    ("hip", "__global__ void k(int* p) { p[0] = __shfl_sync(0xffffffffu, p[0], 0); }",
     "The mask must be a 64-bit integer"),
    ("cuda", "__global__ void k(int* p) { __shared__ float big[20000]; big[p[0]] = 1; p[1] = (int)big[3]; }",
     "__shared__ big takes more than the 64 KiB of shared memory"),
    ("hip", "__global__ void k(int* p) {\n  __shared__ float a[10240];\n  __shared__ float b[10240];\n"
            "  a[p[0]] = b[p[1]] = 1; p[2] = (int)(a[3] + b[4]);\n}",
     "the __shared__ variables of this function, up to b, take more than the 64 KiB"),
    ("cuda", "__global__ void k(int* p) { p[0] = 1; }\nvoid f(int* p) { k<<<1>>>(p); }",
     "line 2: a kernel launch needs at least a grid and a block size"),
    ("hip", "#include <cuda_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }",
     "includes both"),
])
def test_mistakes_found_before_running(emu_workdir: Path, api: str, source: str, message: str) -> None:
    with pytest.raises(CompileFailed) as info:
        compile_library(source, api, emu_workdir, "solution")
    assert message in str(info.value)
