"""Triton on a GPU agent without the GPU: the compile phase fills a Triton cache with every case's
kernels for the agent's target and Triton's launcher stub (built here with this machine's gcc);
the run side finds every one of them in the read-only cache, inside the run sandbox that refuses
new processes; the cache is a compile cache entry per user scope; autotuning is capped. Loading the
kernels into a GPU is the one step left to a machine with one (test_a_triton_job_runs_on_this_gpu,
and bench/gpu_device.sh's triton section)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from agent.config import AgentConfig
from agent.judging.compiler import CompileResult, compile_solution
from agent.judging.phase import call_args, precompile_cases
from agent.languages.triton.precompile import (
    CACHE_NAME,
    MANIFEST,
    MAX_CACHE_BYTES,
    CacheTreeError,
    GpuTarget,
    cache_overflow,
    gpu_target,
    pack_cache,
    unpack_cache,
)
from agent.languages.triton.precompiled import NotPrecompiled, PrecompiledCache, lookup_group
from agent.sandbox.boxfs import fresh_box
from agent.sandbox.modes import BoxLayout
from agent.sandbox.resources import MIB, ProcessLimits, ResourceLimits
from tests.agent.conftest import PROBLEMS_DIR, load_problem

AMD = GpuTarget("hip", "gfx942", 64, "/opt/rocm/lib/libamdhip64.so")
needs_gpu = pytest.mark.skipif(not (Path("/dev/kfd").exists() or Path("/dev/nvidia0").exists()),
                               reason="needs a GPU (run bench/gpu_device.sh's triton section on a GPU machine)")

# ---- the run side's lookup, on folders made here --------------------------------------------------


def _group(folder: Path, kernel: str, recorded_at: str) -> None:
    folder.mkdir(parents=True)
    children = {}
    for suffix in ("json", "hsaco", "amdgcn"):
        (folder / f"{kernel}.{suffix}").write_text("x")
        children[f"{kernel}.{suffix}"] = f"{recorded_at}/{kernel}.{suffix}"
    (folder / f"__grp__{kernel}.json").write_text(json.dumps({"child_paths": children}))


def test_a_precompiled_kernel_is_found_by_its_names_in_the_keys_folder(tmp_path: Path) -> None:
    """The group record names the compile box's paths; the run box has the folder elsewhere."""
    _group(tmp_path / "KEY", "vector_add", "/box/triton-cache/KEY")
    found = lookup_group(str(tmp_path / "KEY"), "vector_add.json")
    assert found == {f"vector_add.{s}": str(tmp_path / "KEY" / f"vector_add.{s}") for s in ("json", "hsaco", "amdgcn")}
    (tmp_path / "KEY" / "vector_add.hsaco").unlink()
    assert lookup_group(str(tmp_path / "KEY"), "vector_add.json") is None  # a group with a file missing


def test_a_kernel_missing_from_the_cache_is_named_and_nothing_is_written(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    cache = PrecompiledCache("NOKEY")
    with pytest.raises(NotPrecompiled, match="kernel not precompiled for this shape: gemm "):
        cache.get_group("gemm.json")
    with pytest.raises(NotPrecompiled, match=r"launcher \(hip_utils\) was not built"):
        cache.get_file("hip_utils.cpython-311-x86_64-linux-gnu.so")
    with pytest.raises(NotPrecompiled, match="nothing is compiled"):
        cache.put(b"x", "gemm.hsaco")
    assert not (tmp_path / "NOKEY").exists()


def test_the_cache_is_taken_out_of_the_box_as_regular_files_only(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    box = tmp_path / "box"
    _group(box / "KEY", "k", "/box/triton-cache/KEY")
    (box / "KEY" / "link").symlink_to("/etc/passwd")
    (box / "outside").symlink_to(tmp_path)
    os.mkfifo(box / "fifo")
    pack_cache(box, {"targets": []}, tmp_path / "entry.tar")
    report, folder = unpack_cache(tmp_path / "entry.tar", tmp_path / "job")
    assert report == {"targets": []}
    assert sorted(p.name for p in folder.rglob("*")) == ["KEY", "__grp__k.json", "k.amdgcn", "k.hsaco", "k.json"]
    monkeypatch.setattr("agent.languages.triton.precompile.MAX_CACHE_FILES", 2)
    with pytest.raises(CacheTreeError, match="more than 2 files"):
        pack_cache(box, {}, tmp_path / "again.tar")


def test_every_gpu_case_is_precompiled_once() -> None:
    problem = load_problem("vector-add")
    names = {c.name for kind in ("test", "bench", "ranked") for c in problem.cases(kind, "gpu")}
    cases = precompile_cases(problem)
    assert {c["case"] for c in cases} <= names and len(cases) == len({json.dumps(c["args"]) for c in cases})
    assert len(cases) >= len(problem.cases("bench", "gpu"))


def test_the_agents_gpu_is_named_as_triton_names_it() -> None:
    assert gpu_target("hip", "gfx942:sramecc+:xnack-") is not None
    assert gpu_target("hip", "gfx942:sramecc+:xnack-").arch == "gfx942"  # type: ignore[union-attr]
    cuda = gpu_target("cuda", "sm_90a")
    assert cuda is not None and (cuda.arch, cuda.warp_size, cuda.name) == ("90", 32, "sm_90")
    assert gpu_target("host", None) is None


# ---- the compile phase in the sandbox, with this machine's gcc -------------------------------------

CHECK_IN_RUN_SANDBOX = textwrap.dedent("""
    import json, os, subprocess

    class NoProcess:
        def __init__(self, *args, **kwargs):
            raise RuntimeError(f"a process was started: {args[0] if args else kwargs}")

    subprocess.Popen = NoProcess  # outside the run sandbox too: nothing below may start one
    from agent.languages.triton.submission import launcher, load_module, prepare_environment
    prepare_environment(interpreted=False)
    from agent.languages.triton.precompiled import NotPrecompiled, read_manifest, use_precompiled
    use_precompiled(read_manifest(os.environ["TRITON_CACHE_DIR"]))
    from triton.backends.compiler import GPUTarget
    from triton.runtime import build, driver
    from agent.languages.triton.precompile_child import _StandIn
    from agent.languages.triton import report_child
    from agent.languages.triton.report_child import ALIGNED_BASE, _TargetDriver, _record_compiles
    report_child.MAX_KERNELS = 1 << 20  # every lookup counted
    from agent.languages.triton.tensors import launcher_args
    spec = json.load(open("/box/cases.json"))
    backend, arch, warp = spec["target"]
    driver.set_active(_TargetDriver(GPUTarget(backend, arch, warp)))
    found = _record_compiles()  # every launch a lookup (warmup: nothing is launched without a GPU)
    module = load_module(open("/box/solution.py").read(), interpreted=False)
    fn = launcher(module, [a["name"] for a in spec["cases"][0]["args"]])
    def run(args):
        ptrs = {a["name"]: ALIGNED_BASE + (k << 32) for k, a in enumerate(args) if a["pointer"]}
        fn(*launcher_args(args, ptrs, "cuda"))
    for case in spec["cases"]:
        run(case["args"])
    print("KERNELS", len(found), flush=True)
    build._load_module_from_path = lambda name, path: print("STUB", name, flush=True) or _StandIn()
    if backend == "hip":
        from triton.backends.amd.driver import HIPUtils
        HIPUtils()
    else:
        from triton.backends.nvidia.driver import CudaUtils
        CudaUtils()
    if spec.get("unseen"):
        try:
            run(spec["unseen"])
        except NotPrecompiled as exc:
            print("MISS", exc, flush=True)
    if spec.get("sandboxed"):
        try:
            os.fork()
        except OSError as exc:
            print("FORK", exc.errno, flush=True)
""")


def _compile(config: AgentConfig, slug: str, source: str, scope: str, job: str) -> CompileResult:
    return compile_solution(problem=load_problem(slug), language="triton", source=source,
                            box=fresh_box(config.jobs_dir / job, "compile-box"), cache_dir=config.cache_dir,
                            sandbox=config.sandbox, limits=ResourceLimits(compile_s=180), arch=None,
                            cache_scope=scope, triton_gpu=AMD)


def _check_in_run_sandbox(config: AgentConfig, folder: Path, source: str, cases: list[dict[str, Any]],
                          unseen: list[dict[str, Any]] | None = None) -> str:
    """The run side in the run phase's sandbox (threads only, the cache bound read-only)."""
    work = config.jobs_dir / "check"
    work.mkdir(parents=True, exist_ok=True)
    (work / "solution.py").write_text(source)
    (work / "cases.json").write_text(json.dumps({"cases": cases, "unseen": unseen, "target": ["hip", "gfx942", 64],
                                              "sandboxed": True}))
    box = fresh_box(work, "box")
    proc = config.sandbox.spawn(
        [config.sandbox.python, *config.sandbox.python_flags, "-c", CHECK_IN_RUN_SANDBOX], box=box,
        limits=ProcessLimits(wall_s=240, cpu_s=240, memory_bytes=None, ram_bytes=4096 * MIB, file_bytes=MIB,
                             nproc=64, output_bytes=MIB, threads_only=True),
        env={"TRITON_HOME": "/tmp", "TRITON_CACHE_DIR": f"/box/{CACHE_NAME}"},
        layout=BoxLayout(size_bytes=16 * MIB, files={CACHE_NAME: folder, "solution.py": work / "solution.py",
                                                     "cases.json": work / "cases.json"}))
    outcome = proc.wait(None)
    assert outcome.ok, outcome.output[-3000:]
    return outcome.output


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("slug", ["vector-add", "gemm-bf16"])
def test_the_compile_phase_fills_a_gfx942_cache_the_run_sandbox_reads(judge_config: AgentConfig, slug: str) -> None:
    pytest.importorskip("triton")
    source = (PROBLEMS_DIR / slug / "solutions" / "triton.py").read_text()
    compiled = _compile(judge_config, slug, source, "user-a", f"{slug}-a")
    assert compiled.ok, compiled.output
    assert compiled.triton_cache is not None and not compiled.cached
    manifest = json.loads((compiled.triton_cache / MANIFEST).read_text())
    assert manifest == {"backend": "hip", "arch": "gfx942", "runtime_library": AMD.runtime_library}
    assert list(compiled.triton_cache.glob("*/hip_utils*.so")), "Triton's launcher stub was not built"
    cases = precompile_cases(load_problem(slug))
    unseen = None
    if slug == "vector-add":  # n past 2^31: a 64-bit n, which no case has
        unseen = [dict(a, value=2**33) if a["name"] == "n" else a for a in cases[0]["args"]]
    said = _check_in_run_sandbox(judge_config, compiled.triton_cache, source, cases, unseen)
    assert f"KERNELS {len(cases)}" in said and "STUB hip_utils" in said
    assert "FORK" in said  # the run sandbox refuses new processes: nothing above could start one
    if unseen:
        assert "MISS kernel not precompiled for this shape: vector_add" in said


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_gpu_cache_is_a_compile_cache_entry_per_user(judge_config: AgentConfig) -> None:
    pytest.importorskip("triton")
    source = (PROBLEMS_DIR / "vector-add" / "solutions" / "triton.py").read_text()
    # Scopes of this test's own: another test of the worker may have compiled the same source as "user-a".
    user_a, user_b = f"user-a-{uuid.uuid4().hex}", f"user-b-{uuid.uuid4().hex}"
    first = _compile(judge_config, "vector-add", source, user_a, "entry-a")
    again = _compile(judge_config, "vector-add", source, user_a, "entry-a2")
    other = _compile(judge_config, "vector-add", source, user_b, "entry-b")
    assert first.ok and again.ok and other.ok
    assert (first.cached, again.cached, other.cached) == (False, True, False)
    assert first.triton_cache is not None and again.triton_cache is not None
    names = sorted(str(p.relative_to(first.triton_cache)) for p in first.triton_cache.rglob("*"))
    assert names == sorted(str(p.relative_to(again.triton_cache)) for p in again.triton_cache.rglob("*"))
    assert again.report == first.report


# An autotuned vector add: the hostile corpus's 4096 configurations, cut down to `count`.
HUGE_AUTOTUNE = Path(__file__).resolve().parent / "corpus_triton" / "huge_autotune.py"


def autotuned(count: int) -> str:
    source = HUGE_AUTOTUNE.read_text()
    assert "range(4096)" in source
    return source.replace("range(4096)", f"range({count})")


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_every_autotune_configuration_is_precompiled_for_every_case(judge_config: AgentConfig) -> None:
    pytest.importorskip("triton")
    compiled = _compile(judge_config, "vector-add", autotuned(2), "user-a", "autotuned")
    assert compiled.ok and compiled.triton_cache is not None, compiled.output
    cases = precompile_cases(load_problem("vector-add"))
    said = _check_in_run_sandbox(judge_config, compiled.triton_cache, autotuned(2), cases)
    # The stand-in's benchmark launches each configuration once: both found for every case, and the
    # chosen one launched again.
    assert f"KERNELS {3 * len(cases)}" in said


@pytest.mark.integration
@pytest.mark.timeout(600)
def test_an_autotune_of_more_than_16_configurations_is_refused_at_compile(judge_config: AgentConfig) -> None:
    pytest.importorskip("triton")
    compiled = _compile(judge_config, "vector-add", autotuned(17), "user-a", "too-many")
    assert not compiled.ok and "17 configurations; at most 16 are tried per kernel" in compiled.output


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_cuda_launcher_stub_builds_here_against_a_stand_in_libcuda(tmp_path: Path) -> None:
    """NVIDIA's stub links libcuda.so.1, which a CUDA agent has: here a stand-in built by gcc (outside
    the sandbox, which would not see it). ptxas's version is recorded for the run child."""
    pytest.importorskip("triton")
    libcuda = tmp_path / "libcuda"
    libcuda.mkdir()
    (libcuda / "stub.c").write_text("int cuInit(unsigned flags) { return 0; }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(libcuda / "libcuda.so.1"), str(libcuda / "stub.c")],
                   check=True)
    problem = load_problem("vector-add")
    target = GpuTarget("cuda", "90", 32, str(libcuda))
    box = tmp_path / "box"
    (box / CACHE_NAME).mkdir(parents=True)
    (box / "solution.py").write_text((PROBLEMS_DIR / "vector-add" / "solutions" / "triton.py").read_text())
    case = problem.cases("bench", "gpu")[0]
    (box / "launch.json").write_text(json.dumps({"case": case.name, "args": call_args(problem, case),
                                                 "precompile": target.spec(precompile_cases(problem))}))
    run = subprocess.run([sys.executable, "-m", "agent.languages.triton.report_child"], capture_output=True,
                         text=True, timeout=540, cwd=box,
                         env={"PATH": os.environ["PATH"], "HIPJUDGE_BOX": str(box), "TRITON_HOME": str(tmp_path),
                              "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert run.returncode == 0, run.stderr[-3000:]
    assert list((box / CACHE_NAME).glob("*/cuda_utils*.so")), "Triton's CUDA launcher stub was not built"
    assert list((box / CACHE_NAME).glob("*/vector_add.cubin"))
    manifest = json.loads((box / CACHE_NAME / MANIFEST).read_text())
    assert manifest["runtime_library"] == str(libcuda) and "Cuda compilation tools" in manifest["ptxas_version"]
    # The run side: every case's sm_90 kernel and the stub found, ptxas not asked (no process at all).
    cases = precompile_cases(problem)
    (box / "cases.json").write_text(json.dumps({"cases": cases, "target": ["cuda", 90, 32]}))
    check = subprocess.run([sys.executable, "-c", CHECK_IN_RUN_SANDBOX.replace("/box/", f"{box}/")],
                           capture_output=True, text=True, timeout=540, cwd=box,
                           env={"PATH": os.environ["PATH"], "TRITON_HOME": str(tmp_path),
                                "TRITON_CACHE_DIR": str(box / CACHE_NAME),
                                "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert check.returncode == 0, check.stderr[-3000:]
    assert f"KERNELS {len(cases)}" in check.stdout and "STUB cuda_utils" in check.stdout


@needs_gpu
@pytest.mark.integration
@pytest.mark.timeout(900)
@pytest.mark.parametrize("slug", ["vector-add", "gemm-bf16"])
def test_a_triton_job_runs_on_this_gpu(slug: str, tmp_path: Path) -> None:
    """On a GPU machine only: the whole path, from the precompiled cache to the judge's timing."""
    pytest.importorskip("triton")
    from agent.config import build_config, detect_device
    from tests.agent.conftest import run_job

    config = build_config(workdir=tmp_path, device=detect_device())
    source = (PROBLEMS_DIR / slug / "solutions" / "triton.py").read_text()
    result, _ = run_job(load_problem(slug), source, "triton", "benchmark", {"compile_s": 180}, config=config)
    assert result["status"] == "ACCEPTED", result["reason"]


# ---- the run phase's side, without a GPU -----------------------------------------------------------


def test_the_run_child_gets_the_cache_read_only_and_triton_is_pointed_at_it(tmp_path: Path) -> None:
    """PhaseChild binds the job's Triton cache as a read-only file of the run box's layout."""
    import threading

    from agent.harness.phase_child import PhaseChild
    from agent.judging.phase import JobContext
    from agent.sandbox.modes import BOX, Sandbox

    class Recording(Sandbox):
        mounts_box = True

        def spawn(self, argv: Any, **kwargs: Any) -> Any:
            self.seen = kwargs
            return None

    sandbox = Recording()
    job = JobContext(problem=load_problem("vector-add"), device="hip", sandbox=sandbox, job_dir=tmp_path,
                     limits=ResourceLimits(), secret=b"s", emit=lambda *a: None, cancel=threading.Event(),
                     libraries=[], child_module="agent.languages.triton.child", triton_cache=tmp_path / CACHE_NAME)

    class Access:
        arena = None

    limits = ProcessLimits(wall_s=1, cpu_s=1, memory_bytes=None, file_bytes=1, nproc=1, output_bytes=1)
    socket = type("Sock", (), {"fileno": lambda self: 5})()
    PhaseChild(job, name="test", specs=[], limits=limits)._spawn(tmp_path / "box", socket, Access())  # type: ignore[arg-type]
    layout = sandbox.seen["layout"]
    assert [(name, path, writable) for name, path, writable in layout.entries()] == [
        (CACHE_NAME, tmp_path / CACHE_NAME, False)]
    assert sandbox.seen["env"]["TRITON_CACHE_DIR"] == f"{BOX}/{CACHE_NAME}"


def test_autotuning_on_the_gpu_times_each_configuration_with_the_judges_events() -> None:
    from agent.languages.triton.gpu_driver import AUTOTUNE_RUNS, _benchmarker

    launches: list[int] = []
    times = iter([5.0, 1.0, 3.0, 2.0, 4.0])

    def timed_call(fn: Any) -> float:
        fn()
        return next(times)

    do_bench = _benchmarker(timed_call)
    assert do_bench(lambda: launches.append(1), quantiles=(0.5, 0.2, 0.8)) == [3.0, 2.0, 5.0]
    assert len(launches) == AUTOTUNE_RUNS + 1  # one untimed launch first: the module's load is not timed


# ---- the compile box's writable cache: bounded while it is written, and when it is packed ----------


def test_a_cache_over_its_bounds_is_found_while_it_is_written(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / CACHE_NAME
    _group(folder / "KEY", "k", "/box/triton-cache/KEY")
    (folder / "KEY" / "tmp.pid_1_2").mkdir()  # Triton writes each file in a temporary folder first
    (folder / "outside").symlink_to(tmp_path.parent)  # a link is one entry, never followed
    assert cache_overflow(folder) is None
    monkeypatch.setattr("agent.languages.triton.precompile.MAX_CACHE_FILES", 6)
    assert cache_overflow(folder) == "the compiled kernels take more than 6 files or 64 MiB"
    monkeypatch.setattr("agent.languages.triton.precompile.MAX_CACHE_FILES", 4096)
    with open(folder / "KEY" / "big", "wb") as big:
        big.truncate(MAX_CACHE_BYTES + 1)  # sparse: its size counts, not only its blocks
    assert cache_overflow(folder) == "the compiled kernels take more than 4096 files or 64 MiB"
    (folder / "KEY" / "big").unlink()
    (folder / "KEY" / "tmp.pid_1_2" / "deeper").mkdir()
    assert "3 levels deep" in (cache_overflow(folder) or "")


def test_the_packer_reads_no_more_names_than_its_bound_and_says_why_it_failed(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder of many names is not listed whole (the sandbox wrote it: it may hold millions), and
    an OSError while packing is a CacheTreeError the compile output shows, not a crash."""
    from agent.languages.triton import precompile

    box = tmp_path / "box"
    box.mkdir()
    for i in range(300):
        (box / f"f{i}").write_bytes(b"")
    read: list[str] = []

    class Counting:  # the module's `os`, counting every name a listing hands over
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def listdir(self, *args: Any) -> list[str]:
            names = os.listdir(*args)
            read.extend(names)
            return names

        def scandir(self, *args: Any) -> Any:
            class Entries:
                def __init__(self) -> None:
                    self.inner = os.scandir(*args)

                def __enter__(self) -> Any:
                    return self

                def __exit__(self, *exc: Any) -> None:
                    self.inner.close()

                def __iter__(self) -> Any:
                    for entry in self.inner:
                        read.append(entry.name)
                        yield entry

            return Entries()

    monkeypatch.setattr(precompile, "os", Counting())
    monkeypatch.setattr(precompile, "MAX_CACHE_FILES", 10)
    with pytest.raises(CacheTreeError, match="more than 10 files"):
        pack_cache(box, {}, tmp_path / "entry.tar")
    assert len(read) <= 11
    monkeypatch.setattr(precompile, "os", os)
    monkeypatch.setattr(precompile, "MAX_CACHE_FILES", 4096)
    with pytest.raises(CacheTreeError, match="could not be packed: No such file or directory"):
        pack_cache(box, {}, tmp_path / "no-such-folder" / "entry.tar")


def test_a_triton_entry_is_a_sixteenth_of_the_compile_cache_at_most(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The packer's bound is a sixteenth of the default cache, and an entry over a sixteenth of a
    smaller cache is compiled but not stored: one user's kernels never crowd out the others'."""
    from agent.judging import triton_build
    from agent.judging.compile_cache import DEFAULT_MAX_BYTES, CompileCache
    from agent.languages.triton.precompile import CACHE_ENTRY_SHARE

    assert CACHE_ENTRY_SHARE >= 16 and MAX_CACHE_BYTES * CACHE_ENTRY_SHARE <= 1024 * MIB
    assert DEFAULT_MAX_BYTES < 1024 * MIB or MAX_CACHE_BYTES <= DEFAULT_MAX_BYTES // CACHE_ENTRY_SHARE

    def compiled(*, source: str, launch: dict, box: Path, sandbox: Any, limits: Any, cancel: Any,
                 archive: Path | None) -> tuple:
        kernels = tmp_path / "kernels"
        kernels.mkdir(exist_ok=True)
        (kernels / "KEY").mkdir(exist_ok=True)
        (kernels / "KEY" / "k.hsaco").write_bytes(os.urandom(2 * MIB))
        assert archive is not None
        pack_cache(kernels, {"targets": []}, archive)
        return True, "", box.parent / "solution.py", {"targets": []}, False

    monkeypatch.setattr(triton_build, "compile_triton", compiled)
    problem = load_problem("vector-add")
    for size, stored in ((16 * MIB, False), (64 * MIB, True)):
        cache = CompileCache(tmp_path / f"cache-{size}", max_bytes=size)
        job = tmp_path / f"job-{size}"
        (job / "box").mkdir(parents=True)
        result = triton_build.compile_triton_source(problem, "source", job / "box", None, ResourceLimits(),  # type: ignore[arg-type]
                                                    None, 0.0, cache, "user-a", AMD)
        assert result.ok and result.triton_cache is not None
        assert bool(cache.entries()) is stored, size


def test_a_precompile_that_would_pass_the_compile_limit_stops_with_a_clear_error() -> None:
    """Autotune configurations times cases may not fit the compile limit: the compile child stops
    before a case that would take it past its share of the limit, and says how far it got and what
    to change, instead of being killed at the deadline mid-way."""
    pytest.importorskip("triton")
    script = textwrap.dedent("""
        import time
        from agent.languages.triton.submission import one_line, prepare_environment
        prepare_environment(interpreted=False)
        from agent.languages.triton.precompile_child import precompile
        from agent.languages.triton.report_child import _TargetDriver
        spec = {"backend": "hip", "arch": "gfx942", "warp_size": 64, "target": "gfx942", "compile_s": 2.0,
                "runtime_library": "/opt/rocm/lib/libamdhip64.so",
                "cases": [{"case": f"c{i}", "args": []} for i in range(8)]}
        print(precompile(lambda: time.sleep(0.5), spec, None, _TargetDriver, one_line, time.monotonic()))
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         cwd=PROBLEMS_DIR.parent)
    assert run.returncode == 0, run.stderr[-2000:]
    said = run.stdout.strip().splitlines()[-1]
    # Each case sleeps 0.5 s and the precompile stops at 85 % of the 2 s limit, so at most three cases
    # fit; a slower machine fits fewer. No duration is asserted, only the bounds that follow from these.
    match = re.match(r"compiling for gfx942 would not finish within the 2 s compile limit: ([0-3]) of 8 cases' "
                     r"kernels compiled in \d+ s \(the longest case \d+\.\d s\)\.", said)
    assert match, said
    assert "every @triton.autotune configuration is compiled for every case's sizes" in said
