"""Problem.data_types: the element types of a problem's buffers, in signature order, each once,
one name per kind of number (what the problem lists filter by)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from agent.problems.bundle import load_problem_dir, parse_definition
from agent.problems.dtypes import TYPES, listed_name

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"


@pytest.mark.parametrize(("slug", "types"), [
    # fp8 inputs, float32 scales, a bfloat16 output: the scalars M, N, K (size_t) say nothing.
    ("gemm-fp8-blockwise", ("fp8_e4m3fnuz", "float", "bfloat16")),
    ("gemm-int8", ("int8", "int32")),
    # problem.yaml writes `int`: the same numbers as int32, listed under one name.
    ("histogram", ("int32",)),
    ("radix-sort", ("uint32",)),
    ("gemv-w4a16", ("half", "uint8")),
    ("gemv-w4a16-zp", ("half", "uint8")),
    # alpha is a float scalar, not a buffer.
    ("leaky-relu", ("float",)),
])
def test_data_types_are_the_buffers_types_in_order_each_once(slug: str, types: tuple[str, ...]) -> None:
    assert load_problem_dir(PROBLEMS / slug).data_types == types


def test_integers_of_one_width_share_a_name_and_floats_keep_theirs() -> None:
    by_dtype: dict[str, set[str]] = {}
    for t in TYPES.values():
        if t.is_integer:
            by_dtype.setdefault(t.numpy.name, set()).add(listed_name(t))
    assert all(len(names) == 1 for names in by_dtype.values()), by_dtype
    assert listed_name(TYPES["int"]) == listed_name(TYPES["int32"]) == "int32"
    floats = [listed_name(t) for t in TYPES.values() if t.is_float]
    assert len(set(floats)) == len(floats)
    assert {"float", "half", "bfloat16", "fp8_e4m3fnuz"} <= set(floats)
    # Names go into URLs (?type=) and the delimited index of Problem.labels.
    assert all(re.fullmatch(r"[a-z0-9_]+", listed_name(t)) for t in TYPES.values())


def test_a_scalar_only_type_is_not_listed() -> None:
    problem = load_problem_dir(PROBLEMS / "vector-add")
    definition = copy.deepcopy(problem.definition)
    definition["signature"].append({"name": "scale", "type": "double"})
    for case in (*definition["tests"], *definition["benchmarks"], *definition.get("ranked", [])):
        case["params"]["scale"] = 1.0
    assert parse_definition(definition, problem.reference_source).data_types == ("float",)
