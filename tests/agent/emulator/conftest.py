"""Fixtures for the emulator's tests: one runtime build and one work folder per test session, the
kernel programs under kernels/ compiled two at a time on first use, and an agent (host device,
bubblewrap) whose compile cache holds that same runtime build, for jobs on the emulated device."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agent.config import AgentConfig, build_config
from agent.emulator.build import build_runtime, gxx_version
from agent.sandbox.modes import SandboxUnavailable, detect_sandbox
from tests.agent.emulator.driver import CompileFailed, compile_program

KERNELS = Path(__file__).with_name("kernels")
# Each program with the APIs it is compiled for (a .cpp is written for both).
PROGRAMS = {
    "blocks.hip": ("hip",),
    "wavefront.hip": ("hip",),
    "warps.cu": ("cuda",),
    "launches.cu": ("cuda",),
    "vectors_math.cpp": ("hip", "cuda"),
    "api.cpp": ("hip", "cuda"),
    "faults.cpp": ("hip", "cuda"),
    "ipc.hip": ("hip",),
    "matrix.hip": ("hip",),
    "matrix_shapes.hip": ("hip",),
    "amdgcn.hip": ("hip",),
    "rocwmma.hip": ("hip",),
    "wmma_lowp.cu": ("cuda",),
}
JOBS = 2  # compilers at a time: the CI machine has two cores


@pytest.fixture(scope="session")
def emu_agent_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hjemu-agent")


@pytest.fixture(scope="session")
def emu_runtime(shared_agent_builds: Path) -> Path:
    if gxx_version() is None:
        pytest.skip("g++ is not installed")
    runtime = build_runtime(shared_agent_builds)  # where emu_config's agent (every agent of the run) looks for it
    assert runtime is not None, "building libhjemu.so failed (see the log)"
    return runtime


@pytest.fixture(scope="session")
def emu_config(emu_runtime: Path, emu_agent_workdir: Path) -> AgentConfig:
    """An agent without a GPU: hip and cuda jobs in check mode run on the emulated device."""
    try:
        sandbox = detect_sandbox(preferred="bwrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap is not usable on this machine: {exc}")
    config = build_config(workdir=emu_agent_workdir, device="host", allow_insecure=True)
    config.sandbox = sandbox
    return config


@pytest.fixture(scope="session")
def emu_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hjemu-work")


@pytest.fixture(scope="session")
def emu_programs(emu_runtime: Path, emu_workdir: Path) -> dict[tuple[str, str], Path | CompileFailed]:
    """(program, api) -> executable, or the compile failure (reported by the test that uses it)."""
    jobs = [(name, api) for name, apis in PROGRAMS.items() for api in apis]

    def build(job: tuple[str, str]) -> Path | CompileFailed:
        name, api = job
        try:
            return compile_program((KERNELS / name).read_text(), api, emu_runtime, emu_workdir, name,
                                   extra=["-I", str(KERNELS)])
        except CompileFailed as exc:
            return exc

    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        return dict(zip(jobs, pool.map(build, jobs), strict=True))


def run_program(programs: dict[tuple[str, str], Path | CompileFailed], name: str, api: str, *args: str,
                env: dict[str, str] | None = None, pass_fds: tuple[int, ...] = ()) -> subprocess.CompletedProcess[str]:
    program = programs[(name, api)]
    if isinstance(program, CompileFailed):
        pytest.fail(f"{name} ({api}) does not compile:\n{program}")
    return subprocess.run([str(program), *args], capture_output=True, text=True, timeout=120, env=env,
                          pass_fds=pass_fds)
