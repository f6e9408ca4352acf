"""The bundle's part of the ranked pass (docs/agent.md, Ranked pass): `ranked` cases in problem.yaml, each
differing from every public shape and present for both device classes, and the reference solutions
shipped as `baselines` (part of the version: another baseline, another speedup)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.problems.bundle import ProblemError, load_catalogue, parse_definition, problem_from_bundle
from agent.problems.schema import DEVICE_CLASSES, SOURCE_SUFFIX, buffer_shapes

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
VECTOR_ADD = PROBLEMS / "vector-add"


def definition(slug: str = "vector-add") -> dict[str, Any]:
    return yaml.safe_load((PROBLEMS / slug / "problem.yaml").read_text())


def reference(slug: str = "vector-add") -> str:
    return (PROBLEMS / slug / "reference.py").read_text()


def test_every_problem_ranks_on_new_shapes_on_both_device_classes_against_its_own_solutions() -> None:
    for problem in load_catalogue(PROBLEMS):
        public = {buffer_shapes(c, problem.signature) for c in (*problem.tests, *problem.benchmarks)}
        for device_class in DEVICE_CLASSES:
            ranked = problem.cases("ranked", device_class)
            assert ranked, f"{problem.slug}: no ranked case on {device_class}"
            assert all(buffer_shapes(c, problem.signature) not in public for c in ranked), problem.slug
        for language, text in problem.baselines.items():
            assert text == (PROBLEMS / problem.slug / "solutions" / f"{language}{SOURCE_SUFFIX[language]}").read_text()
        # Triton where the problem offers it (a template), beside the three every problem has.
        triton = {"triton"} if "triton" in problem.templates else set()
        assert set(problem.baselines) == {"cpp", "hip", "cuda"} | triton, problem.slug
        bundle = problem.to_bundle()
        assert bundle["baselines"] == problem.baselines
        assert problem_from_bundle(copy.deepcopy(bundle)).content_hash == bundle["hash"]


def test_the_baselines_are_part_of_the_version() -> None:
    problem = load_catalogue(PROBLEMS)[0]
    bundle = problem.to_bundle()
    bundle["baselines"]["cpp"] += "\n// another baseline\n"
    with pytest.raises(ProblemError, match=r"^problem\.hash"):
        problem_from_bundle(bundle)
    bundle.pop("hash")
    assert problem_from_bundle(bundle).content_hash != problem.content_hash


@pytest.mark.parametrize("baselines", [{"fortran": "x"}, {"cpp": ""}, {"cpp": 3}, ["cpp"]])
def test_bad_baselines_are_refused_naming_the_field(baselines: Any) -> None:
    bundle = load_catalogue(PROBLEMS)[0].to_bundle()
    bundle.pop("hash")
    bundle["baselines"] = baselines
    with pytest.raises(ProblemError, match=r"^problem\.baselines: must map some of cpp, hip, cuda"):
        problem_from_bundle(bundle)


def test_a_ranked_case_with_a_public_shape_is_refused() -> None:
    d = definition()
    d["ranked"].append({"name": "copy of a benchmark", "devices": ["gpu"], "params": {"n": 67108864}})
    with pytest.raises(ProblemError, match=re.escape("ranked[3].params: the shapes [(67108864,), (67108864,), "
                                                     "(67108864,)] are those of the public case 'n=2^26'")):
        parse_definition(d, reference())


def test_a_device_class_without_a_ranked_case_is_refused() -> None:
    d = definition()
    d["ranked"] = [case for case in d["ranked"] if "host" not in case["devices"]]
    with pytest.raises(ProblemError, match=r"^ranked: no case runs on the host device class"):
        parse_definition(d, reference())


def test_ranked_cases_are_validated_like_every_case() -> None:
    d = definition()
    d["ranked"][0]["params"] = {"n": 0}
    with pytest.raises(ProblemError, match=re.escape("ranked[0].params: a would have shape (0,)")):
        parse_definition(d, reference())


def test_a_problem_without_ranked_cases_still_loads_and_has_none() -> None:
    d = definition()
    del d["ranked"]
    problem = parse_definition(d, reference())
    assert problem.ranked == ()
    assert problem.cases("ranked", "host") == []
