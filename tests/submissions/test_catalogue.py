"""load_problems: idempotent, versioned by content hash, old submissions keep their version."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import DataError, transaction

from submissions import catalogue as catalogue_module
from submissions.catalogue import problems_load
from submissions.models import Problem, ProblemVersion
from submissions.services import submission_create
from tests.conftest import PROBLEMS, read_source


@pytest.fixture
def catalogue(tmp_path: Path) -> Path:
    root = tmp_path / "problems"
    shutil.copytree(PROBLEMS / "vector-add", root / "vector-add")
    return root


def test_loading_twice_changes_nothing(db: Any, catalogue: Path) -> None:
    assert problems_load(root=catalogue).created == ["vector-add"]
    report = problems_load(root=catalogue)
    assert report.unchanged == ["vector-add"]
    assert ProblemVersion.objects.count() == 1


def test_an_edited_bundle_becomes_a_new_version_and_old_submissions_keep_theirs(
        catalogue: Path, owner: Any, local_pool: Any) -> None:
    problems_load(root=catalogue)
    old = submission_create(user=owner, problem="vector-add", language="cpp", source=read_source("cpp.cpp"))
    yaml_path = catalogue / "vector-add" / "problem.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("title: Vector Addition", "title: Vector Addition v2"))
    assert problems_load(root=catalogue).updated == ["vector-add"]
    problem = Problem.objects.get()
    assert problem.title == "Vector Addition v2"
    assert problem.versions.count() == 2
    old.refresh_from_db()
    assert old.problem_version != problem.current_version
    assert old.problem_version.bundle["definition"]["title"] == "Vector Addition"


def test_a_problem_whose_folder_is_gone_is_retired(catalogue: Path, db: Any) -> None:
    problems_load(root=catalogue)
    shutil.rmtree(catalogue / "vector-add")
    assert problems_load(root=catalogue).retired == ["vector-add"]
    assert not Problem.objects.get().is_active


def test_the_command_names_the_bad_field_and_fails(catalogue: Path, db: Any) -> None:
    bad = catalogue / "broken"
    shutil.copytree(catalogue / "vector-add", bad)
    (bad / "problem.yaml").write_text((bad / "problem.yaml").read_text().replace("slug: vector-add", "slug: broken")
                                      .replace("difficulty: easy", "difficulty: trivial"))
    with pytest.raises(CommandError, match="1 problem"):
        call_command("load_problems", root=catalogue)
    assert Problem.objects.filter(slug="vector-add").exists()  # the good one still loaded


def good_copy(catalogue: Path, slug: str) -> Path:
    """A copy of vector-add under another slug: sorted before or after it, as the test needs."""
    folder = catalogue / slug
    shutil.copytree(catalogue / "vector-add", folder)
    (folder / "problem.yaml").write_text((folder / "problem.yaml").read_text().replace("slug: vector-add",
                                                                                          f"slug: {slug}"))
    return folder


BAD_BUNDLES = {
    "reference syntax error": (lambda folder: (folder / "reference.py").write_text("def generate(:\n"),
                               "reference.py:1: syntax error"),
    "reference raising at import": (lambda folder: (folder / "reference.py").write_text("import no_such_module\n"),
                                    "reference.py: loading it raised ModuleNotFoundError"),
    "problem.yaml not UTF-8": (lambda folder: (folder / "problem.yaml").write_bytes(
        (folder / "problem.yaml").read_bytes().replace(b"title: ", b"title: \xff\xfe")), "problem.yaml: not UTF-8"),
    "statement not UTF-8": (lambda folder: (folder / "statement.md").write_bytes(b"\xc3("), "statement.md: not UTF-8"),
    "title over the column": (lambda folder: (folder / "problem.yaml").write_text(
        re.sub(r"(?m)^title: .*$", "title: " + "T" * 201, (folder / "problem.yaml").read_text())),
        "title: 201 characters"),
}


@pytest.mark.parametrize("breakage", BAD_BUNDLES, ids=list(BAD_BUNDLES))
def test_a_bad_bundle_is_named_with_its_file_and_reason_and_every_good_one_loads(
        breakage: str, catalogue: Path, db: Any) -> None:
    break_it, reason = BAD_BUNDLES[breakage]
    good_copy(catalogue, "aaa-first")
    break_it(good_copy(catalogue, "mmm-broken"))
    good_copy(catalogue, "zzz-last")
    report = problems_load(root=catalogue)
    assert list(report.errors) == ["mmm-broken"]
    assert reason in report.errors["mmm-broken"]
    assert report.created == ["aaa-first", "vector-add", "zzz-last"]
    assert not Problem.objects.filter(slug="mmm-broken").exists()  # nothing of it written
    with pytest.raises(CommandError, match="1 problem"):
        call_command("load_problems", root=catalogue, stderr=(err := io.StringIO()))
    assert "error: mmm-broken: " in err.getvalue() and reason in err.getvalue()


def test_a_problem_the_database_refuses_is_rolled_back_alone(catalogue: Path, db: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    good_copy(catalogue, "mmm-refused")
    store = catalogue_module.problem_store

    def refusing(bundle: Any) -> str:
        outcome = store(bundle)  # written, then refused inside the same transaction: nothing may remain
        if bundle.slug == "mmm-refused":
            raise DataError("value too long for type character varying(200)")
        return outcome

    monkeypatch.setattr(catalogue_module, "problem_store", lambda bundle: _in_one_transaction(refusing, bundle))
    report = problems_load(root=catalogue)
    assert report.created == ["vector-add"]
    assert "the database refused it (DataError" in report.errors["mmm-refused"]
    assert not Problem.objects.filter(slug="mmm-refused").exists()


def _in_one_transaction(store: Any, bundle: Any) -> str:
    with transaction.atomic():
        return store(bundle)


def test_problems_api_shows_statement_signature_and_templates(problems_loaded: None, owner: Any,
                                                              api_as: Any) -> None:
    listed = api_as(owner).get("/api/v1/problems").json()
    assert "vector-add" in [p["slug"] for p in listed]
    detail = api_as(owner).get("/api/v1/problems/vector-add").json()
    assert detail["signature"].startswith('extern "C" void solution(const float* a')
    assert set(detail["templates"]) == {"cpp", "hip", "cuda", "triton"}
    assert detail["statement"]
    assert api_as(owner).get("/api/v1/problems/nope").status_code == 404
    # Each parameter's type, and the declaration, as each language spells it.
    typed = api_as(owner).get("/api/v1/problems/gemm-bf16").json()
    assert typed["parameters"][0] == {"name": "A", "type": "bfloat16", "pointer": True, "const": True, "output": False,
                                      "shape": ["M", "K"], "c_types": {"cpp": "hj_bfloat16", "hip": "__hip_bfloat16",
                                                                       "cuda": "__nv_bfloat16", "triton": "bf16"}}
    assert typed["signatures"]["hip"].startswith('extern "C" void solution(const __hip_bfloat16* A')
    assert typed["signatures"]["cuda"].startswith('extern "C" void solution(const __nv_bfloat16* A')


def test_the_problem_page_shows_each_parameters_type_in_each_language(problems_loaded: None, client: Any) -> None:
    page = client.get("/problems/gemm-fp8/").content.decode()
    assert "fp8_e4m3fnuz" in page
    assert "__hip_fp8_e4m3_fnuz" in page
    assert "hj_fp8_e4m3fnuz" in page
    assert "__nv_fp8_storage_t" in page
