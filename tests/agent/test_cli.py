"""`python -m agent run`: judge one file from the terminal with the real compiler, sandbox and judge."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "problems" / "vector-add" / "solutions"

pytestmark = [pytest.mark.integration, pytest.mark.timeout(150)]


def run_agent(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent", "run", "--workdir", str(tmp_path / "work"), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=140,
    )


def test_a_correct_solution_is_accepted_with_a_benchmark_table(tmp_path):
    result = run_agent(tmp_path, "--problem", "vector-add", "--language", "cpp", str(SOLUTIONS / "cpp.cpp"))
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "Result: ACCEPTED" in out
    assert "· COMPILING" in out
    assert "· BENCHMARKING" in out# live progress came first
    assert "✓ n=1 " in out
    assert "✗" not in out
    header = next(line for line in out.splitlines() if "mean ms" in line)
    for column in ("runs", "median ms", "std ms", "min ms", "max ms", "GFLOPS", "GB/s"):
        assert column in header
    assert "n=2^20" in out
    assert "Score:" in out


def test_a_wrong_solution_exits_non_zero_and_shows_the_first_mismatch(tmp_path):
    result = run_agent(tmp_path, "--problem", "vector-add", str(SOLUTIONS / "wrong.cpp"), "--mode", "check")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "Result: WRONG_ANSWER" in out
    failed = [line for line in out.splitlines() if "✗" in line]
    # wrong.cpp never writes the last element: n=1 already fails at c[0], and the report says so.
    assert failed, out
    assert all("c[0]" in line and "expected" in line for line in failed), out
    assert "test 'n=1' failed" in out
    assert "Benchmarks" not in out


def test_check_mode_reports_checked(tmp_path):
    result = run_agent(tmp_path, "--problem", "vector-add", str(SOLUTIONS / "cpp.cpp"), "--mode", "check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Result: CHECKED" in result.stdout, result.stdout + result.stderr


def test_a_compile_error_is_shown_and_exits_non_zero(tmp_path):
    broken = tmp_path / "broken.cpp"
    broken.write_text('#include <cstddef>\nextern "C" void solution(const float* a, const float* b, '
                      "float* c, size_t n) { c[0] = a[0] + ; }\n")
    result = run_agent(tmp_path, "--problem", "vector-add", str(broken), "--mode", "compile")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Result: COMPILE_ERROR" in result.stdout, result.stdout + result.stderr
    assert "error" in result.stdout.lower()


def test_an_unknown_problem_or_file_is_a_usage_error(tmp_path):
    result = run_agent(tmp_path, "--problem", "no-such-problem", str(SOLUTIONS / "cpp.cpp"))
    assert result.returncode == 2
    assert "no-such-problem" in result.stderr
    result = run_agent(tmp_path, "--problem", "vector-add", str(tmp_path / "missing.cpp"))
    assert result.returncode == 2
    assert "missing.cpp" in result.stderr


def test_a_hip_file_is_checked_on_the_emulated_device_without_a_gpu(tmp_path):
    hip = str(SOLUTIONS / "hip.hip")
    result = run_agent(tmp_path, "--problem", "vector-add", hip, "--mode", "check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(hip, check, device emulated (CPU, check only))" in result.stdout
    assert "Result: CHECKED — all 5 tests passed on the emulated device (CPU)" in result.stdout
    refused = run_agent(tmp_path, "--problem", "vector-add", hip, "--mode", "benchmark")
    assert refused.returncode == 2
    assert "benchmark mode needs a real GPU" in refused.stderr
