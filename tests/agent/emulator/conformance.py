"""The emulator's conformance suite (tests/agent/emulator/conformance/): kernels in the styles people
really write, each with the verdict the judge must give it on the emulated device.

Each entry is one `.hip` or `.cu` solution of a catalogue problem with a header:

    // expect: CHECKED | WRONG_ANSWER: <text> | RUNTIME_ERROR: <text> | COMPILE_ERROR: <text>
    // problem: <slug>
    // cases: <name>, <name>    (optional: default, the problem's gpu test cases of at most 4 MiB)
    // judge: agent             (optional: judged by the agent itself, sandbox and harness included)

The text after a verdict must appear in the judge's reason (a fault's `hjemu: ` line, the first
mismatch, the compiler's output). To keep the suite's CPU cost small, the entries of a language are
compiled together, a few per g++ run (each in its own namespace, `solution` renamed), and run in
one process (conformance_child.py) that loads the libraries one after another as the judge's child
loads a solution; an entry expected to fault runs in a process of its own, forked from one that
loaded everything once. Entries marked
`judge: agent` go through the whole judge (run_job), one job each.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from agent.problems.bundle import Problem
from tests.agent.emulator.driver import CompileFailed, compile_library

ROOT = Path(__file__).resolve().parents[3]
ENTRIES = Path(__file__).with_name("conformance")
HEADER = re.compile(r"^// (expect|problem|cases|judge): (.*)$", re.MULTILINE)
VERDICTS = ("CHECKED", "WRONG_ANSWER", "RUNTIME_ERROR", "COMPILE_ERROR")
SMALL_CASE_BYTES = 4 << 20
PER_LIBRARY = 16  # entries per g++ run: the headers are parsed once per run (26 entries: 1.4 s, one: 0.4 s)
CHILD_TIMEOUT = 240


@dataclass(frozen=True)
class Entry:
    path: Path
    verdict: str
    text: str
    problem: str
    cases: tuple[str, ...]
    judge: str

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def language(self) -> str:
        return "hip" if self.path.suffix == ".hip" else "cuda"

    def matches(self, got: str) -> bool:
        """Whether the judge's `VERDICT: reason` (or plain CHECKED) is what the header expects."""
        verdict, _, reason = got.partition(": ")
        return verdict == self.verdict and self.text in reason


def parse_entry(path: Path) -> Entry:
    meta = dict(HEADER.findall(path.read_text()))
    verdict, _, text = meta.get("expect", "").partition(": ")
    if verdict not in VERDICTS or "problem" not in meta:
        raise ValueError(f"{path.name}: needs `// expect: <verdict>[: text]` and `// problem: <slug>`")
    cases = tuple(c.strip() for c in meta.get("cases", "").split(",") if c.strip())
    return Entry(path, verdict, text.strip(), meta["problem"].strip(), cases, meta.get("judge", "batch").strip())


def entries() -> list[Entry]:
    return [parse_entry(p) for p in sorted(ENTRIES.iterdir()) if p.suffix in (".hip", ".cu")]


def case_indices(entry: Entry, problem: Problem) -> list[int]:
    """Indices into problem.tests: the named cases, or every small gpu test case."""
    if entry.cases:
        named = {c.name: i for i, c in enumerate(problem.tests)}
        missing = [c for c in entry.cases if c not in named]
        assert not missing, f"{entry.name}: no test case {missing} in {problem.slug}"
        return [named[c] for c in entry.cases]
    small = []
    for i, case in enumerate(problem.tests):
        total = sum(int(p.dtype.itemsize) * _count(p.shape_for(case.params)) for p in problem.signature if p.pointer)
        if case.runs_on("gpu") and total <= SMALL_CASE_BYTES:
            small.append(i)
    return small


def _count(shape: tuple[int, ...]) -> int:
    total = 1
    for s in shape:
        total *= s
    return total


# ---- batches: several entries in one library -------------------------------------------------------

_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b.*$", re.MULTILINE)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)
_SOLUTION = re.compile(r'extern\s+"C"\s+void\s+solution\s*\(')


def namespace(entry: Entry) -> str:
    """Unique across every library of a run: the libraries are loaded RTLD_GLOBAL, so a kernel with
    the same mangled name in two of them would bind to the first one loaded."""
    return "hjc_" + re.sub(r"\W", "_", entry.path.stem)


def symbol(entry: Entry) -> str:
    return f"{namespace(entry)}_solution"


def combined_source(batch: list[Entry]) -> str:
    """One translation unit: every entry in its own namespace with `solution` renamed, its
    #includes hoisted to the top (the API's header is already included first) and its macros
    undefined after it; `#line` keeps each entry's own file and line numbers in messages."""
    includes: list[str] = []
    parts: list[str] = []
    for entry in batch:
        text = entry.path.read_text()
        for line in _INCLUDE.findall(text):
            if line.strip() not in includes:
                includes.append(line.strip())
        text = _INCLUDE.sub("", text)
        text, renamed = _SOLUTION.subn(f'extern "C" void {symbol(entry)}(', text)
        assert renamed == 1, f"{entry.name}: expected one extern \"C\" solution"
        undefs = "".join(f"#undef {name}\n" for name in dict.fromkeys(_DEFINE.findall(text)))
        parts.append(f'namespace {namespace(entry)} {{\n#line 1 "{entry.name}"\n{text}\n}}\n{undefs}')
    return "\n".join(includes) + "\n" + "".join(parts)


def compile_batches(language: str, batch_entries: list[Entry], workdir: Path) -> list[tuple[Path, list[Entry]]]:
    batches = [batch_entries[i:i + PER_LIBRARY] for i in range(0, len(batch_entries), PER_LIBRARY)]
    return [(compile_library(combined_source(b), language, workdir, f"conformance-{language}-{k}"), b)
            for k, b in enumerate(batches)]


def run_child(language: str, runtime: Path, runs: list[dict[str, object]]) -> dict[str, str]:
    """entry name -> the judge-style verdict of every run, restarting after a run that killed the
    process (its verdict is the fault)."""
    verdicts: dict[str, str] = {}
    remaining = list(runs)
    while remaining:
        try:
            done = subprocess.run([sys.executable, "-m", "tests.agent.emulator.conformance_child", language,
                                   str(runtime), json.dumps(remaining)], cwd=ROOT, capture_output=True,
                                  text=True, timeout=CHILD_TIMEOUT)
            stdout, stderr, code = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired as exc:
            stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
            stderr, code = "timed out", -1
        started = None
        for line in stdout.splitlines():
            record = json.loads(line)
            if record.get("start"):
                started = record["entry"]
            else:
                verdicts[record["entry"]] = record["verdict"]
        if code == 0:
            break
        assert started is not None, f"the child failed before any run:\n{stderr[-3000:]}"
        assert started not in verdicts, f"the child failed before any run:\n{stderr[-3000:]}"
        fault = [line for line in stderr.splitlines() if line.startswith("hjemu: ")]
        verdicts[started] = f"RUNTIME_ERROR: {fault[-1] if fault else stderr.strip()[-500:]}"
        remaining = [r for r in remaining if r["entry"] not in verdicts]
    return verdicts


def judge_batched(language: str, chosen: list[Entry], problems: dict[str, Problem], runtime: Path,
                  workdir: Path) -> dict[str, str]:
    """The verdict of every entry of one language that is not judged alone by the agent."""
    verdicts: dict[str, str] = {}
    compiled = [e for e in chosen if e.verdict != "COMPILE_ERROR"]
    for entry in (e for e in chosen if e.verdict == "COMPILE_ERROR"):
        try:
            compile_library(entry.path.read_text(), language, workdir, entry.name)
            verdicts[entry.name] = "COMPILED"
        except CompileFailed as exc:
            verdicts[entry.name] = f"COMPILE_ERROR: {exc}"
    together: list[dict[str, object]] = []
    alone: list[dict[str, object]] = []
    for library, batch in compile_batches(language, compiled, workdir):
        for entry in batch:
            run: dict[str, object] = {"entry": entry.name, "library": str(library), "symbol": symbol(entry),
                                      "problem": entry.problem,
                                      "cases": case_indices(entry, problems[entry.problem])}
            (alone if entry.verdict == "RUNTIME_ERROR" else together).append(run)
    verdicts.update(run_child(language, runtime, together))
    verdicts.update(run_child(language, runtime, [{**run, "isolate": True} for run in alone]))
    return verdicts
