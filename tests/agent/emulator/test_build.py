"""Building the runtime once per toolchain and source, the user compile command, the case budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.emulator import build
from agent.emulator.budget import EMULATED_CASE_BYTES, case_bytes, emulated_cases
from agent.problems.bundle import load_problem_dir

PROBLEMS = Path(__file__).resolve().parents[3] / "problems"


def test_the_runtime_is_built_once_and_reused(emu_runtime: Path) -> None:
    assert emu_runtime.name.startswith("libhjemu-")
    assert emu_runtime.suffix == ".so"
    before = emu_runtime.stat().st_mtime_ns
    assert build.build_runtime(emu_runtime.parent) == emu_runtime
    assert emu_runtime.stat().st_mtime_ns == before
    assert not [p for p in emu_runtime.parent.iterdir() if p.name.startswith(".hjemu-build-")]


def test_the_key_follows_the_compiler_and_the_sources(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    key = build.runtime_key("g++ 12")
    assert build.runtime_key("g++ 13") != key
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "a.cpp").write_text("int a;")
    monkeypatch.setattr(build, "RUNTIME_DIR", runtime)
    first = build.runtime_key("g++ 12")
    (runtime / "a.cpp").write_text("int b;")
    assert build.runtime_key("g++ 12") != first


def test_agents_starting_together_build_the_runtime_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    commands: list[list[str]] = []
    lock = threading.Lock()

    def compile_slowly(command: list[str]) -> bool:
        with lock:
            commands.append(command)
        time.sleep(0.05)  # long enough for the other agent to look for the library meanwhile
        Path(command[command.index("-o") + 1]).write_bytes(b"built")
        return True

    monkeypatch.setattr(build, "gxx_version", lambda: "g++ 12")
    monkeypatch.setattr(build, "_run", compile_slowly)
    with ThreadPoolExecutor(max_workers=3) as agents:
        built = list(agents.map(build.build_runtime, [tmp_path] * 3))
    assert built[0] is not None
    assert built == [built[0]] * 3
    assert built[0].read_bytes() == b"built"
    units = len(list(build.RUNTIME_DIR.glob("*.cpp")))
    assert len(commands) == units + 1  # one build: each unit, then the link
    assert sorted(p.name for p in tmp_path.iterdir()) == [built[0].name]  # no lock file, no scratch


def test_no_compiler_no_runtime(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(build, "gxx_version", lambda: None)
    assert build.build_runtime(tmp_path) is None


def test_a_failed_build_leaves_nothing_behind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "broken.cpp").write_text("this is not C++")
    monkeypatch.setattr(build, "RUNTIME_DIR", runtime)
    if build.gxx_version() is None:
        pytest.skip("g++ is not installed")
    cache = tmp_path / "cache"
    assert build.build_runtime(cache) is None
    assert list(cache.iterdir()) == []


def test_user_kernels_compile_unlinked_against_our_headers() -> None:
    command = build.emulator_compile_command(Path("/box/solution.cpp"), Path("/box/solution.so"), "hip",
                                             Path("/inc"))
    assert command[0] == "g++"
    assert command[-3:] == ["-o", "/box/solution.so", "/box/solution.cpp"]
    assert {"-shared", "-fPIC", "-O2", "-std=c++17"} <= set(command)
    assert command[command.index("-include") + 1] == "hip/hip_runtime.h"
    assert command[command.index("-I") + 1] == "/inc"
    assert "-l" not in " ".join(command)
    assert "libhjemu" not in " ".join(command)
    assert build.emulator_flags("cuda")[build.emulator_flags("cuda").index("-include") + 1] == "cuda_runtime.h"


def test_every_catalogue_case_fits_the_budget_and_big_ones_are_skipped() -> None:
    problem = load_problem_dir(PROBLEMS / "vector-add")
    cases, skipped = emulated_cases(problem)
    assert [c.name for c in cases] == ["n=1", "n=1000", "n=65537", "n=1048576", "n=16777216"]
    assert not skipped
    assert case_bytes(problem, cases[-1]) == 3 * 4 * 16777216 <= EMULATED_CASE_BYTES
    small, over = emulated_cases(problem, budget=4 * 1024 * 1024)
    assert [c.name for c in over] == ["n=1048576", "n=16777216"]
    assert len(small) == 3
