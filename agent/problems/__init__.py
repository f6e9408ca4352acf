"""Problems: bundles (problem.yaml and its references), their schema, element types, formulas and
speed of light.

The platform imports the names below from here, never a module of this package
(tests/test_dependencies.py). They load on first use: a web process that evaluates a formula must
not load NumPy, which the bundle's loader needs (agent.problems.bundle), and the agent's own
modules import what they use from the module that defines it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.problems.bundle import Problem, ProblemError, load_problem_dir, problem_from_bundle
    from agent.problems.expr import ExprError, evaluate
    from agent.problems.schema import HIP_ARCHS, SLUG_RE, TITLE_MAX_CHARS

__all__ = ["HIP_ARCHS", "SLUG_RE", "TITLE_MAX_CHARS", "ExprError", "Problem", "ProblemError", "evaluate",
           "load_problem_dir", "problem_from_bundle"]
_MODULE_OF = {"Problem": "bundle", "ProblemError": "bundle", "load_problem_dir": "bundle",
              "problem_from_bundle": "bundle", "ExprError": "expr", "evaluate": "expr", "HIP_ARCHS": "schema",
              "SLUG_RE": "schema", "TITLE_MAX_CHARS": "schema"}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
