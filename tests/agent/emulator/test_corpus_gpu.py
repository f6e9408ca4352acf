"""The GPU-bug corpus (tests/agent/corpus_gpu/): kernels with the bugs GPU code usually has, each
judged by the agent on the emulated device, on the one test case its header names
(`// case: ...`), with the verdict its header says (`// expect: <outcome>: <text>`):

- `fault`: RUNTIME_ERROR, the emulator's `hjemu: ` line (named buffer, kernel, thread), holding the text;
- `wrong`: WRONG_ANSWER, the comparison's message starting with the text;
- `launch-error`: RUNTIME_ERROR, the launch error GetLastError gave;
- `compile-error`: COMPILE_ERROR, the rewriter's or g++'s message containing the text;
- `pass`: CHECKED (a control: the same algorithm where it is right).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.config import AgentConfig
from agent.problems.bundle import parse_definition
from tests.agent.conftest import load_problem, run_job

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "agent" / "corpus_gpu"
HEADER = re.compile(r"^// (problem|case|expect): (.*)$", re.MULTILINE)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


def header(path: Path) -> dict[str, str]:
    return dict(HEADER.findall(path.read_text()))


def entries() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix in (".hip", ".cu"))


def test_the_corpus_covers_the_bugs_the_emulator_promises_to_catch() -> None:
    names = {p.stem for p in entries()}
    assert {"missing_bounds_check", "grid_rounded_down", "wave32_reduction", "missing_syncthreads",
            "out_of_bounds_write", "divergent_barrier", "oversized_block", "oversized_shared"} <= names
    for path in entries():
        assert set(header(path)) == {"problem", "case", "expect"}, path.name


@pytest.mark.parametrize("path", entries(), ids=lambda p: p.name)
def test_corpus_entry_gets_its_verdict_through_the_agent(emu_config: AgentConfig, path: Path) -> None:
    meta = header(path)
    outcome, _, text = meta["expect"].partition(": ")
    base = load_problem(meta["problem"])
    tests = [t for t in base.definition["tests"] if t["name"] == meta["case"]]
    assert tests, f"{path.name}: no test case {meta['case']!r} in {meta['problem']}"
    problem = parse_definition({**base.definition, "tests": tests}, base.reference_source)
    language = "hip" if path.suffix == ".hip" else "cuda"
    result, _ = run_job(problem, path.read_text(), language, "check", config=emu_config)
    status, reason, case = result["status"], result["reason"], meta["case"]
    if outcome == "fault":
        assert status == "RUNTIME_ERROR", result
        assert reason.startswith(f"the kernel faulted in case '{case}': "), result
        assert text in reason
    elif outcome == "wrong":
        assert status == "WRONG_ANSWER", result
        assert reason.startswith(f"test '{case}' failed: {text}"), result
    elif outcome == "launch-error":
        assert (status, reason) == ("RUNTIME_ERROR", f"case '{case}': {text}"), result
    elif outcome == "compile-error":
        assert status == "COMPILE_ERROR", result
        assert text in result["summary"].get("compile_output", reason), result
    else:
        assert outcome == "pass"
        assert status == "CHECKED", result
