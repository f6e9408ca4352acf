"""The triton language (agent/languages/triton/): its pieces alone, then jobs through the real
judge (the compile in the sandbox and its report, the check in Triton's interpreter)."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
import uuid
from typing import Any

import numpy as np
import pytest

from agent.config import AgentConfig
from agent.judging.judge import JobSpec, JobSpecError
from agent.languages.triton.bounds import BufferMap, OutOfBounds, Region
from agent.languages.triton.compile import split_report, summary_text
from agent.languages.triton.report import REPORT_MARKER, amdgcn_resources, listing_chunks
from agent.languages.triton.tensors import DeviceBuffer, launcher_args
from agent.problems.bundle import load_problem_dir
from tests.agent.conftest import PROBLEMS_DIR, load_problem, problem_dirs

TRITON_SLUGS = [d.name for d in problem_dirs() if (d / "templates" / "triton.py").is_file()]


# ---- the pieces --------------------------------------------------------------------------------

def two_buffers() -> BufferMap:
    return BufferMap([Region("a", 4096, 16, 4), Region("c", 8192, 8, 2)])


def test_an_access_inside_the_buffers_or_masked_out_passes() -> None:
    buffers = two_buffers()
    buffers.check("read", np.array([4096, 4100, 4108], dtype=np.uint64), None, 4)
    buffers.check("write", np.array([8192, 8198], dtype=np.uint64), np.array([True, True]), 2)
    # Outside, but masked out: never touched, never refused.
    buffers.check("read", np.array([4108, 4112], dtype=np.uint64), np.array([True, False]), 4)


def test_an_unmasked_element_past_the_end_names_the_buffer_and_how_far() -> None:
    with pytest.raises(OutOfBounds, match=r"read of buffer 'a' \(4 elements, 16 bytes\) at byte 16, 1 element past"):
        two_buffers().check("read", np.array([4104, 4112], dtype=np.uint64), np.array([True, True]), 4)
    # An element that starts inside but ends outside is outside too.
    with pytest.raises(OutOfBounds, match="buffer 'a'"):
        two_buffers().check("read", np.array([4110], dtype=np.uint64), None, 4)


def test_a_tile_across_two_buffers_is_checked_element_by_element() -> None:
    """The lowest and highest addresses lie in different buffers: each element is looked up, and one
    in the gap between them is refused with the buffer it ran past."""
    two_buffers().check("read", np.array([4096, 8192, 8196], dtype=np.uint64), None, 2)
    with pytest.raises(OutOfBounds, match=r"read of buffer 'a' .* at byte 20, 2 elements past the end"):
        two_buffers().check("read", np.array([4096, 4116, 8192], dtype=np.uint64), None, 2)
    with pytest.raises(OutOfBounds, match="buffer 'c'"):  # the highest runs past the last buffer
        two_buffers().check("write", np.array([4096, 8200], dtype=np.uint64), np.array([True, True]), 2)


def test_an_access_before_every_buffer_names_the_first() -> None:
    with pytest.raises(OutOfBounds, match=r"write of buffer 'a' .* 4 bytes before its start"):
        two_buffers().check("write", np.array([4092], dtype=np.uint64), None, 4)


def test_a_buffer_is_tensor_like_without_torch() -> None:
    buf = DeviceBuffer("A", 0x1000, "bfloat16", (3, 5), "cpu")
    assert str(buf.dtype) == "torch.bfloat16" and buf.element_size() == 2
    assert buf.numel() == 15 and buf.nbytes == 30 and buf.stride() == (5, 1) and buf.stride(0) == 5
    assert buf.untyped_storage() is buf and buf.cpu() is buf and buf.data_ptr() == 0x1000
    args = launcher_args([{"pointer": True, "name": "A", "type": "float", "shape": [4]},
                          {"pointer": False, "name": "n", "ctype": "size_t", "value": 4}], {"A": 64}, "cpu")
    assert isinstance(args[0], DeviceBuffer) and args[0].data_ptr() == 64 and args[1] == 4


def test_the_problem_states_the_triton_contract() -> None:
    problem = load_problem("gemm-bf16")
    assert "triton" in problem.languages
    assert problem.c_signature("triton") == "def solution(A, B, C, M, N, K)"
    by_name = {p["name"]: p for p in problem.parameters()}
    assert by_name["A"]["c_types"]["triton"] == "bf16"
    assert [p.declaration("triton") for p in problem.signature][:4] == [
        "A: *bf16 (read-only)", "B: *bf16 (read-only)", "C: *bf16", "M: int"]


def test_a_problem_without_a_triton_template_does_not_offer_it(tmp_path: Any) -> None:
    """Every problem of the catalogue has one today: a copy of one without it offers the rest."""
    copy = tmp_path / "vector-add"
    shutil.copytree(PROBLEMS_DIR / "vector-add", copy)
    (copy / "templates" / "triton.py").unlink()
    languages = load_problem_dir(copy).languages
    assert "triton" not in languages and "cpp" in languages
    assert "triton" in load_problem("vector-add").languages


def test_a_triton_benchmark_is_refused_on_an_agent_without_a_gpu(judge_config: AgentConfig) -> None:
    body = {"id": "triton-bench", "problem": load_problem("vector-add").to_bundle(), "language": "triton",
            "source": "def solution(a, b, c, n): pass", "mode": "benchmark"}
    with pytest.raises(JobSpecError, match="interpreter"):
        JobSpec.from_request(body, judge_config)
    assert JobSpec.from_request({**body, "mode": "check"}, judge_config).language == "triton"


def test_the_report_line_is_read_from_the_end_of_the_output_and_summarised() -> None:
    report = {"targets": [{"target": "gfx942", "backend": "hip", "kernels": [
        {"name": "k", "vgprs": 128, "agprs": 0, "sgprs": 30, "spills": 0, "lds_bytes": 32768,
         "occupancy_waves_per_simd": 4, "mfma_instructions": 48}]}]}
    said, found = split_report(f"hello\n{REPORT_MARKER}{{\"targets\": []}}\nmore\n{REPORT_MARKER}"
                               f"{__import__('json').dumps(report)}\n")
    assert found == report and said.startswith("hello")
    assert summary_text(report) == ("gfx942 k: 128 VGPRs, 0 AGPRs, 30 SGPRs, 0 spills, LDS 32768 bytes, "
                                    "occupancy 4 waves/SIMD, 48 MFMA instructions")
    assert split_report("no report here") == ("no report here", None)


def test_amdgcn_resources_are_read_from_the_listings_comments() -> None:
    listing = textwrap.dedent("""\
        v_mfma_f32_32x32x8_bf16 a[0:15], v[0:1], v[2:3], a[0:15]
          v_mfma_f32_32x32x8_bf16 a[0:15], v[0:1], v[2:3], a[0:15]
        ; NumVgprs: 168
        ; NumAgprs: 16
        ; TotalNumSgprs: 106
        ; ScratchSize: 8
        ; Occupancy: 3
            .sgpr_spill_count: 2
            .vgpr_spill_count: 1
        """)
    found = amdgcn_resources(listing)
    assert found == {"vgprs": 168, "agprs": 16, "sgprs": 106, "scratch_bytes": 8, "occupancy_waves_per_simd": 3,
                     "vgpr_spills": 1, "sgpr_spills": 2, "mfma_instructions": 2, "spills": 3}
    assert "".join(listing_chunks(listing * 1000)) == (listing * 1000)


def test_every_triton_file_of_the_catalogue_defines_the_launcher_of_its_problem() -> None:
    for slug in TRITON_SLUGS:
        problem = load_problem(slug)
        names = [p.name for p in problem.signature]
        for path in ("templates/triton.py", "solutions/triton.py", "solutions/wrong.py"):
            source = (PROBLEMS_DIR / slug / path).read_text()
            launchers = [node for node in ast.parse(source).body
                         if isinstance(node, ast.FunctionDef) and node.name == "solution"]
            assert len(launchers) == 1, f"{slug}/{path}"
            assert [a.arg for a in launchers[0].args.args] == names, f"{slug}/{path}"
            for rule in problem.forbidden:
                if "triton" in rule.languages:
                    assert rule.search(source) is None, f"{slug}/{path} trips {rule.pattern!r}"


def test_the_interpreter_multiplies_bf16_tiles_as_numbers() -> None:
    """Triton 3.9's interpreter gives tl.dot the bit patterns of bf16 as integers; the fix widens them.
    In a process of its own: the interpreter is chosen when Triton is imported."""
    pytest.importorskip("triton")
    script = textwrap.dedent("""
        import ml_dtypes, numpy as np
        from agent.languages.triton.submission import prepare_environment, load_module
        prepare_environment(interpreted=True)
        from agent.languages.triton import interpreter_fixes
        from agent.languages.triton.tensors import DeviceBuffer
        import sys
        if sys.argv[1] == "fixed":
            interpreter_fixes.apply()
        module = load_module(open("problems/gemm-bf16/solutions/triton.py").read(), interpreted=True)
        rng = np.random.default_rng(0)
        a = rng.uniform(-1, 1, (20, 24)).astype(ml_dtypes.bfloat16)
        b = rng.uniform(-1, 1, (24, 18)).astype(ml_dtypes.bfloat16)
        c = np.zeros((20, 18), ml_dtypes.bfloat16)
        bufs = [DeviceBuffer(n, x.ctypes.data, "bfloat16", x.shape, "cpu") for n, x in zip("ABC", (a, b, c))]
        module.solution(*bufs, 20, 18, 24)
        want = a.astype(np.float32) @ b.astype(np.float32)
        print(float(np.abs(c.astype(np.float32) - want).max()))
    """)
    errors = {}
    for which in ("fixed", "as-shipped"):
        run = subprocess.run([sys.executable, "-c", script, which], capture_output=True, text=True, timeout=300,
                             cwd=PROBLEMS_DIR.parent)
        assert run.returncode == 0, run.stderr[-2000:]
        errors[which] = float(run.stdout.split()[-1])
    assert errors["fixed"] < 0.02
    assert errors["as-shipped"] > 1.0  # what the fix is for: without it an honest GEMM is wrong


def _fixed_and_as_shipped(kernel: str, body: str) -> dict[str, list[str]]:
    """What `body` prints (after loading `kernel` in Triton's interpreter as `module`), with the
    interpreter's fixes applied and as Triton ships it, each in a fresh process."""
    script = textwrap.dedent("""
        import sys, ml_dtypes, numpy as np
        from agent.languages.triton.submission import prepare_environment, load_module
        prepare_environment(interpreted=True)
        from agent.languages.triton import interpreter_fixes
        from agent.languages.triton.tensors import DeviceBuffer
        if sys.argv[1] == "fixed":
            interpreter_fixes.apply()
        module = load_module(sys.argv[2], interpreted=True)
    """) + textwrap.dedent(body)
    said = {}
    for which in ("fixed", "as-shipped"):
        run = subprocess.run([sys.executable, "-c", script, which, kernel], capture_output=True, text=True,
                             timeout=300, cwd=PROBLEMS_DIR.parent)
        assert run.returncode == 0, run.stderr[-2000:]
        said[which] = run.stdout.split()
    return said


def test_the_interpreter_rounds_float32_to_bfloat16_to_nearest_even_as_the_gpu_does() -> None:
    """Triton 3.9's interpreter truncates float32 to bfloat16 (`.to(tl.bfloat16)`); the GPU and the
    reference round to nearest even, and a `bias` rule refuses truncation. An explicit "rtz" stays."""
    pytest.importorskip("triton")
    kernel = textwrap.dedent('''
        import triton
        import triton.language as tl

        @triton.jit
        def convert(x, y, z, n, BLOCK: tl.constexpr):
            i = tl.arange(0, BLOCK)
            v = tl.load(x + i, mask=i < n)
            tl.store(y + i, v.to(tl.bfloat16), mask=i < n)
            tl.store(z + i, v.to(tl.bfloat16, fp_downcast_rounding="rtz"), mask=i < n)

        def solution(x, y, z, n):
            convert[(1,)](x, y, z, n, BLOCK=triton.next_power_of_2(n))
    ''')
    said = _fixed_and_as_shipped(kernel, """
        x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
        x[:6] = [np.nan, np.inf, -np.inf, 3.4e38, 1 + 2.0**-8, 1 + 3 * 2.0**-8]  # the last two: ties to even
        y, z = np.zeros(1000, ml_dtypes.bfloat16), np.zeros(1000, ml_dtypes.bfloat16)
        module.solution(*[DeviceBuffer(n, a.ctypes.data, t, a.shape, "cpu")
                          for n, a, t in (("x", x, "float"), ("y", y, "bfloat16"), ("z", z, "bfloat16"))], 1000)
        nearest = (y.view(np.uint16) == x.astype(ml_dtypes.bfloat16).view(np.uint16)) | np.isnan(x)
        truncated = z.view(np.uint16)[1:] == (x.view(np.uint32)[1:] >> 16).astype(np.uint16)
        print(int(nearest.sum()), int(truncated.sum()), bool(np.isnan(y[0].astype(np.float32))))
    """)
    counts = {which: words[-3:] for which, words in said.items()}
    assert counts["fixed"] == ["1000", "999", "True"]
    assert int(counts["as-shipped"][0]) < 700  # what the fix is for: about half were rounded down
    assert counts["as-shipped"][1] == "999"


def test_the_interpreter_rounds_to_bf16_and_fp8_as_the_gpu_does() -> None:
    """Triton 3.9's interpreter truncates float32 to bfloat16 and loses the carry of an fp8 rounding
    (63.25 became 32); the fix rounds to nearest even (and saturates fp8), as ml_dtypes and the GPU do."""
    pytest.importorskip("triton")
    kernel = textwrap.dedent('''
        import triton
        import triton.language as tl
        @triton.jit
        def k(x, b, q, n, B: tl.constexpr):
            i = tl.arange(0, B)
            v = tl.load(x + i, mask=i < n)
            tl.store(b + i, v.to(tl.bfloat16), mask=i < n)
            tl.store(q + i, v.to(q.dtype.element_ty), mask=i < n)
        def solution(x, b, q, n):
            k[(1,)](x, b, q, n, B=triton.next_power_of_2(n))
    ''')
    said = _fixed_and_as_shipped(kernel, """
        rng = np.random.default_rng(0)
        x = np.concatenate([rng.uniform(-300, 300, 2000), rng.uniform(-1, 1, 2000), [63.25, 1 + 2**-8]])
        x = x.astype(np.float32)
        b = np.zeros(x.shape, ml_dtypes.bfloat16)
        q = np.zeros(x.shape, ml_dtypes.float8_e4m3fnuz)
        module.solution(DeviceBuffer("x", x.ctypes.data, "float", x.shape, "cpu"),
                        DeviceBuffer("b", b.ctypes.data, "bfloat16", b.shape, "cpu"),
                        DeviceBuffer("q", q.ctypes.data, "fp8_e4m3fnuz", q.shape, "cpu"), x.size)
        want_b, want_q = x.astype(ml_dtypes.bfloat16), np.clip(x, -240, 240).astype(ml_dtypes.float8_e4m3fnuz)
        print(int((b.view(np.uint16) != want_b.view(np.uint16)).sum()),
              int((q.view(np.uint8) != want_q.view(np.uint8)).sum()))
    """)
    differ = {which: [int(n) for n in words[-2:]] for which, words in said.items()}
    assert differ["fixed"] == [0, 0]
    assert differ["as-shipped"][0] > 100 and differ["as-shipped"][1] > 10  # what the fix is for


def test_the_fixed_interpreter_multiplies_every_float_tile_and_drops_only_dead_overflow_checks() -> None:
    """tl.dot through BLAS for fp32, fp16 and fp8 tiles gives the float32 sum of the exact products;
    the integer overflow checks (dropped without debug anyway) are off, integer arithmetic unchanged."""
    pytest.importorskip("triton")
    script = textwrap.dedent("""
        import ml_dtypes, numpy as np
        from agent.languages.triton.submission import prepare_environment
        prepare_environment(interpreted=True)
        import triton, triton.language as tl
        from triton.runtime import interpreter
        from agent.languages.triton import interpreter_fixes
        from agent.languages.triton.tensors import DeviceBuffer
        interpreter_fixes.apply()
        assert interpreter.interpreter_builder.options.sanitize_overflow is False
        assert interpreter.interpreter_builder.options.debug is False

        @triton.jit
        def dot(a, b, c, i, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
            m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
            acc = tl.dot(tl.load(a + m[:, None] * K + k[None, :]), tl.load(b + k[:, None] * N + n[None, :]),
                         input_precision="ieee")
            tl.store(c + m[:, None] * N + n[None, :], acc)
            tl.store(i + m, (m * 1000003 + 2147483000).to(tl.int32))  # wraps in int32, as on the GPU

        rng = np.random.default_rng(0)
        for name, dtype in (("float", np.float32), ("half", np.float16), ("fp8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz)):
            a = rng.uniform(-1, 1, (16, 32)).astype(dtype)
            b = rng.uniform(-1, 1, (32, 16)).astype(dtype)
            c = np.zeros((16, 16), np.float32)
            i = np.zeros(16, np.int32)
            bufs = [DeviceBuffer(n, x.ctypes.data, t, x.shape, "cpu")
                    for n, x, t in (("a", a, name), ("b", b, name), ("c", c, "float"), ("i", i, "int"))]
            dot[(1,)](*bufs, M=16, N=16, K=32)
            want = a.astype(np.float64) @ b.astype(np.float64)
            assert np.abs(c - want).max() < 1e-5, (name, np.abs(c - want).max())
            assert (i == (np.arange(16) * 1000003 + 2147483000).astype(np.int32)).all()
        print("ok")
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         cwd=PROBLEMS_DIR.parent)
    assert run.returncode == 0 and run.stdout.split()[-1] == "ok", run.stderr[-2000:]


def test_the_fixed_interpreter_patches_the_language_once_and_asks_each_dtype_once() -> None:
    """A kernel calling tl.sum and a helper of its own in a loop: the language is patched a few
    times, not at every call (the user's module and triton.language.standard's each found the
    other's patch in place of their own), and the NumPy dtype of each Triton type is looked up once;
    the sums are unchanged."""
    pytest.importorskip("triton")
    script = textwrap.dedent("""
        import numpy as np
        from agent.languages.triton.submission import prepare_environment
        prepare_environment(interpreted=True)
        import triton, triton.language as tl
        from triton.runtime import interpreter
        from agent.languages.triton.tensors import DeviceBuffer
        counts = {"patch": 0, "dtype": 0}
        patch_lang, np_dtype = interpreter._patch_lang, interpreter._get_np_dtype
        def counted_patch(fn):
            counts["patch"] += 1
            return patch_lang(fn)
        def counted_dtype(t):
            counts["dtype"] += 1
            return np_dtype(t)
        interpreter._patch_lang, interpreter._get_np_dtype = counted_patch, counted_dtype
        from agent.languages.triton import interpreter_fixes
        interpreter_fixes.apply()

        @triton.jit
        def doubled(x):
            return x * 2

        @triton.jit
        def sums(a, out, n, BLOCK: tl.constexpr):
            total = tl.zeros((), tl.float32)
            for start in range(0, n, BLOCK):
                offs = start + tl.arange(0, BLOCK)
                total += tl.sum(doubled(tl.load(a + offs, mask=offs < n, other=0.0)), axis=0)
            tl.store(out, total)

        a = np.arange(4096, dtype=np.float32)
        out = np.zeros(1, np.float32)
        bufs = [DeviceBuffer("a", a.ctypes.data, "float", a.shape, "cpu"),
                DeviceBuffer("out", out.ctypes.data, "float", out.shape, "cpu")]
        for _ in range(2):
            sums[(1,)](*bufs, 4096, BLOCK=64)
            assert out[0] == 2 * a.sum(), out
        print(counts["patch"], counts["dtype"])
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         cwd=PROBLEMS_DIR.parent)
    assert run.returncode == 0, run.stderr[-2000:]
    patches, dtypes = (int(x) for x in run.stdout.split()[-2:])
    # Two launches of 64 iterations, each calling tl.sum and doubled: a launch patches once and
    # restores at its end, so each launch's first calls patch again; none of the 256 calls does.
    assert patches <= 8, patches
    assert dtypes <= 16, dtypes  # the few distinct types (fp32, int32, int1, pointers), once each


def test_topk_fp32s_triton_selection_compiles_for_gfx942_without_spills(tmp_path: Any) -> None:
    """Its radix select's block: the histogram pass of a large block spilled registers on gfx942
    and made the compile most of the check's time (issue 37's budget)."""
    pytest.importorskip("triton")
    problem = load_problem("topk-fp32")
    case = (problem.cases("bench", "gpu") or problem.tests)[0]
    from agent.judging.phase import call_args

    (tmp_path / "solution.py").write_text((PROBLEMS_DIR / "topk-fp32" / "solutions" / "triton.py").read_text())
    (tmp_path / "launch.json").write_text(json.dumps({"case": case.name, "args": call_args(problem, case)}))
    run = subprocess.run([sys.executable, "-m", "agent.languages.triton.report_child"], capture_output=True, text=True,
                         timeout=600, cwd=PROBLEMS_DIR.parent,
                         env={**os.environ, "HIPJUDGE_BOX": str(tmp_path), "TRITON_HOME": str(tmp_path),
                              "TRITON_CACHE_DIR": str(tmp_path / "cache")})
    assert run.returncode == 0, run.stderr[-2000:]
    _, report = split_report(run.stdout)
    assert report is not None
    kernels = {k["name"]: k for k in report["targets"][0]["kernels"]}
    assert report["targets"][0]["target"] == "gfx942" and set(kernels) == {"select", "order"}
    assert kernels["select"]["spills"] == 0, kernels["select"]


# ---- jobs through the judge --------------------------------------------------------------------

def _run(judge_run_job: Any, slug: str, file: str, mode: str = "check", **kwargs: Any) -> tuple[dict, list]:
    source = (PROBLEMS_DIR / slug / "solutions" / file).read_text()
    return judge_run_job(load_problem(slug), source, "triton", mode, {"compile_s": 120, "emulated_check_s": 300},
                         **kwargs)


@pytest.mark.integration
@pytest.mark.timeout(600)
def test_a_triton_gemm_is_checked_on_the_cpu_with_its_gfx942_report(judge_run_job: Any) -> None:
    pytest.importorskip("triton")
    result, events = _run(judge_run_job, "gemm-bf16", "triton.py")
    assert result["status"] == "CHECKED", result
    assert "on the CPU (Triton's interpreter)" in result["reason"]
    report = result["summary"]["compile_report"]
    gfx942 = next(t for t in report["targets"] if t["target"] == "gfx942")
    kernel = gfx942["kernels"][0]
    assert kernel["mfma_instructions"] > 0  # tl.dot on the matrix cores
    assert kernel["vgprs"] > 0 and 1 <= kernel["occupancy_waves_per_simd"] <= 8 and kernel["lds_bytes"] > 0
    assert kernel["signature"]["a"] == "*bf16" and kernel["constexprs"]["BLOCK_M"] == 128
    sm90 = next(t for t in report["targets"] if t["target"] == "sm_90")
    assert sm90["kernels"][0]["mma_instructions"] > 0
    compiled = next(e.data for e in events if e.kind == "COMPILE_RESULT")
    assert "v_mfma" in "".join(compiled["report"]["amdgcn_listing"])  # the listing travels in the event only
    assert "amdgcn_listing" not in report
    assert {k: v for k, v in compiled["report"].items() if k != "amdgcn_listing"} == report
    assert "MFMA instructions" in compiled["output"]


@pytest.mark.integration
@pytest.mark.timeout(600)
def test_an_off_by_one_mask_is_an_error_naming_the_buffer(judge_run_job: Any) -> None:
    pytest.importorskip("triton")
    result, _ = _run(judge_run_job, "vector-add", "wrong.py")
    assert result["status"] == "RUNTIME_ERROR", result
    assert "case 'n=1': OutOfBounds: out-of-bounds read of buffer 'a' (1 element, 4 bytes) at byte 4" \
        in result["reason"]
    assert "(solution.py, line 9)" in result["reason"]


@pytest.mark.integration
@pytest.mark.timeout(600)
def test_the_compile_report_is_cached_per_user(judge_run_job: Any) -> None:
    pytest.importorskip("triton")
    source = (PROBLEMS_DIR / "vector-add" / "solutions" / "triton.py").read_text() + f"\n# {uuid.uuid4().hex}\n"
    problem = load_problem("vector-add")
    first, _ = judge_run_job(problem, source, "triton", "compile", None, cache_scope="user-a")
    again, _ = judge_run_job(problem, source, "triton", "compile", None, cache_scope="user-a")
    other, _ = judge_run_job(problem, source, "triton", "compile", None, cache_scope="user-b")
    assert [r["status"] for r in (first, again, other)] == ["COMPILED"] * 3
    assert [r["summary"]["compile"]["cached"] for r in (first, again, other)] == [False, True, False]
    assert again["summary"]["compile_report"] == first["summary"]["compile_report"]


@pytest.mark.integration
@pytest.mark.timeout(600)
def test_a_kernel_only_mi300x_compiles_is_compiled_with_sm90s_refusal_in_its_report(judge_run_job: Any) -> None:
    """MI300X's fp8 (E4M3 FNUZ, Triton's fp8e4b8) has no NVIDIA type: gfx942 decides the compile."""
    pytest.importorskip("triton")
    result, _ = _run(judge_run_job, "gemm-fp8", "triton.py", mode="compile")
    assert result["status"] == "COMPILED", result
    targets = {t["target"]: t for t in result["summary"]["compile_report"]["targets"]}
    assert targets["gfx942"]["kernels"][0]["mfma_instructions"] > 0
    assert targets["sm_90"]["kernels"] == [] and "fp8e4b8" in targets["sm_90"]["launcher_error"]


@pytest.mark.parametrize("target", ["fp8e4b8", "fp8e5b16", "fp8e4nv", "fp8e5", "bf16"])
def test_narrowing_rounds_to_nearest_even_as_the_gpu(target: str) -> None:
    """The interpreter's own fp8 rounding turns 15.99 into 8 (no carry into the exponent) and its
    bfloat16 truncates; float_rounding matches ml_dtypes' round-to-nearest-even bit for bit."""
    pytest.importorskip("triton")
    import ml_dtypes
    import triton.language as tl

    from agent.languages.triton.float_rounding import narrowed

    dtype = {"fp8e4b8": ml_dtypes.float8_e4m3fnuz, "fp8e5b16": ml_dtypes.float8_e5m2fnuz,
             "fp8e4nv": ml_dtypes.float8_e4m3fn, "fp8e5": ml_dtypes.float8_e5m2, "bf16": ml_dtypes.bfloat16}[target]
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(20000) * np.exp2(rng.integers(-24, 12, 20000)),
                        [0.0, -0.0, 1.0625, 15.99, 2.0**-10, 3 * 2.0**-11]]).astype(np.float32)
    x = x[np.abs(x) <= float(ml_dtypes.finfo(dtype).max)]
    want = x.astype(dtype).view(np.uint8 if np.dtype(dtype).itemsize == 1 else np.uint16)
    kind = getattr(tl, {"fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16", "fp8e4nv": "float8e4nv",
                        "fp8e5": "float8e5", "bf16": "bfloat16"}[target])
    assert np.array_equal(narrowed(x, kind), want)
    # NaN stays NaN (E4M3FN's one NaN pattern is S.1111.111); infinity stays infinite where the format
    # has one, and saturates where it has none (as HIP's conversions do; ml_dtypes makes it NaN).
    special = np.array([np.nan, np.inf], dtype=np.float32)
    has_inf = np.isinf(float(special[1].astype(dtype)))
    for toward_zero in (False, True):
        back = narrowed(special, kind, toward_zero=toward_zero).view(dtype).astype(np.float64)
        assert np.isnan(back[0])
        assert back[1] == (np.inf if has_inf else float(ml_dtypes.finfo(dtype).max))
