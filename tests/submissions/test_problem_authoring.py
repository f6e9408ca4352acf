"""`manage.py problem new` and `manage.py problem check` as a problem author runs them: the skeleton
loads and passes its own check on every device here, a surprise (a wrong solution that passes, a
bundle that does not load) ends the check non-zero naming it, and a bad slug is refused."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from agent.problems import TITLE_MAX_CHARS
from agent.problems.bundle import load_problem_dir
from agent.sandbox.modes import SandboxUnavailable, detect_sandbox
from submissions.authoring.check import plan
from submissions.models import Problem

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems"
SKELETON_FILES = {"problem.yaml", "statement.md", "reference.py", "templates/cpp.cpp", "templates/hip.hip",
                  "templates/cuda.cu", "solutions/cpp.cpp", "solutions/hip.hip", "solutions/cuda.cu",
                  "solutions/wrong.cpp"}


@pytest.fixture
def sandbox_here() -> None:
    try:
        detect_sandbox(preferred="bwrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bubblewrap is not usable on this machine: {exc}")


def problem(*args: str) -> str:
    out = io.StringIO()
    call_command("problem", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.mark.integration
@pytest.mark.db_agnostic
@pytest.mark.timeout(900)
def test_a_new_problem_loads_and_passes_its_check_on_every_device_here(tmp_path: Path, sandbox_here: None) -> None:
    said = problem("--root", str(tmp_path), "new", "scale-add-demo")
    folder = tmp_path / "scale-add-demo"
    assert f"wrote {folder}/" in said
    assert {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()} == SKELETON_FILES
    loaded = load_problem_dir(folder)
    assert (loaded.slug, loaded.title) == ("scale-add-demo", "Scale Add Demo")
    assert loaded.tests
    assert loaded.benchmarks
    assert loaded.ranked
    assert loaded.forbidden
    assert "{{" not in "".join(p.read_text() for p in folder.rglob("*") if p.is_file())

    table = problem("--root", str(tmp_path), "check", "scale-add-demo", "--workdir", str(tmp_path / "agent"))
    lines = table.splitlines()
    assert lines[0].split() == ["problem", "device", "solution", "expected", "got", "seconds"]
    assert not [line for line in lines if line.startswith("SURPRISE")], table
    rows = [line.split() for line in lines[1:]]
    host = [(r[2], r[-2]) for r in rows if r[1] == "host"]
    assert host == [("cpp.cpp", "ACCEPTED"), ("cpp.cpp", "CHECKED"), ("cpp.cpp", "CHECKED"),
                    ("wrong.cpp", "WRONG_ANSWER"), ("templates/cpp.cpp", "COMPILED")], table
    emulated = [(r[2], r[-2]) for r in rows if r[1] == "emulated"]
    assert emulated == [("hip.hip", "CHECKED"), ("cuda.cu", "CHECKED")], table


def copied(tmp_path: Path, slug: str = "vector-add") -> Path:
    shutil.copytree(PROBLEMS / slug, tmp_path / slug)
    return tmp_path / slug


@pytest.mark.integration
@pytest.mark.db_agnostic
def test_a_wrong_solution_that_passes_fails_the_check_naming_it(tmp_path: Path, sandbox_here: None) -> None:
    folder = copied(tmp_path)
    shutil.copy(folder / "solutions" / "cpp.cpp", folder / "solutions" / "wrong.cpp")
    out = io.StringIO()
    with pytest.raises(CommandError, match=r"^1 surprise\(s\): vector-add \(host, wrong\.cpp seed=1\)$"):
        call_command("problem", "--root", str(tmp_path), "check", "vector-add", "--device", "host", "--seeds", "1",
                     "--workdir", str(tmp_path / "agent"), stdout=out, stderr=io.StringIO())
    assert "SURPRISE vector-add host wrong.cpp seed=1: expected WRONG_ANSWER, got CHECKED" in out.getvalue()


@pytest.mark.integration
@pytest.mark.db_agnostic
def test_a_bundle_that_does_not_load_fails_the_check_with_the_loaders_message(tmp_path: Path,
                                                                                sandbox_here: None) -> None:
    folder = copied(tmp_path)
    definition = yaml.safe_load((folder / "problem.yaml").read_text())
    definition["signature"][1]["type"] = "flaot"
    (folder / "problem.yaml").write_text(yaml.safe_dump(definition))
    out = io.StringIO()
    with pytest.raises(CommandError, match=r"vector-add \(-, problem\.yaml\)"):
        call_command("problem", "--root", str(tmp_path), "check", "--all", "--device", "host",
                     "--workdir", str(tmp_path / "agent"), stdout=out, stderr=io.StringIO())
    assert "got invalid: signature[1].type: unknown type 'flaot'" in out.getvalue()


@pytest.mark.parametrize("slug", ["Bad_Slug", "x", "trailing-", "two--dashes", "has space", "a" * 64])
def test_problem_new_refuses_a_bad_slug_and_writes_nothing(tmp_path: Path, slug: str) -> None:
    with pytest.raises(CommandError, match="is not a problem slug"):
        problem("--root", str(tmp_path), "new", slug)
    assert list(tmp_path.iterdir()) == []


def test_problem_new_refuses_a_title_longer_than_its_column_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=f"the title has {TITLE_MAX_CHARS + 1} characters"):
        problem("--root", str(tmp_path), "new", "long-title", "--title", "T" * (TITLE_MAX_CHARS + 1))
    assert list(tmp_path.iterdir()) == []
    problem("--root", str(tmp_path), "new", "long-title", "--title", "T" * TITLE_MAX_CHARS)
    assert load_problem_dir(tmp_path / "long-title").title == "T" * TITLE_MAX_CHARS


def test_the_bundle_title_limit_is_the_columns() -> None:
    assert Problem._meta.get_field("title").max_length == TITLE_MAX_CHARS


def test_problem_new_refuses_an_existing_slug_and_leaves_it_alone(tmp_path: Path) -> None:
    folder = copied(tmp_path)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with pytest.raises(CommandError, match=r"vector-add already exists"):
        problem("--root", str(tmp_path), "new", "vector-add")
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


def test_the_command_line_exits_non_zero_with_the_reason(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "manage.py", "problem", "--root", str(tmp_path), "new", "Bad_Slug"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "CommandError: 'Bad_Slug' is not a problem slug" in done.stderr
    with pytest.raises(CommandError, match="name the problems to check, or --all"):
        problem("--root", str(tmp_path), "check")
    with pytest.raises(CommandError, match="no such problem under .*: nowhere"):
        problem("--root", str(tmp_path), "check", "nowhere")


def test_the_plan_runs_the_cpp_solution_under_every_seed_and_the_others_once() -> None:
    runs = plan(("host", "emulated", "hipcc", "nvcc"), seeds=(7, 8, 9))
    assert [(r.device, r.file, r.mode, r.expected, r.seed) for r in runs] == [
        ("host", "solutions/cpp.cpp", "benchmark", "ACCEPTED", 7),
        ("host", "solutions/cpp.cpp", "check", "CHECKED", 8),
        ("host", "solutions/cpp.cpp", "check", "CHECKED", 9),
        ("host", "solutions/wrong.cpp", "check", "WRONG_ANSWER", 7),
        ("host", "templates/cpp.cpp", "compile", "COMPILED", None),
        ("emulated", "solutions/hip.hip", "check", "CHECKED", None),
        ("emulated", "solutions/cuda.cu", "check", "CHECKED", None),
        ("hipcc", "solutions/hip.hip", "compile", "COMPILED", None),
        ("hipcc", "templates/hip.hip", "compile", "COMPILED", None),
        ("nvcc", "solutions/cuda.cu", "compile", "COMPILED", None),
        ("nvcc", "templates/cuda.cu", "compile", "COMPILED", None),
    ]


def test_the_plan_checks_a_triton_solution_refuses_its_wrong_one_and_compiles_its_template() -> None:
    runs = plan(("triton",), seeds=(7, 8))
    assert [(r.device, r.file, r.language, r.mode, r.expected, r.seed) for r in runs] == [
        ("triton", "solutions/triton.py", "triton", "check", "CHECKED", 7),
        ("triton", "solutions/wrong.py", "triton", "check", "WRONG_ANSWER or RUNTIME_ERROR", 7),
        ("triton", "templates/triton.py", "triton", "compile", "COMPILED", None),
    ]
