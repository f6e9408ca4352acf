"""A tiny, safe arithmetic evaluator for the formulas in problem.yaml (shapes, FLOPs, bytes).

Problem files are trusted, but a formula is still data: we never hand it to eval().
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_FUNCS: dict[str, Callable[..., int | float]] = {
    "log2": math.log2, "ceil": math.ceil, "floor": math.floor, "max": max, "min": min,
}


class ExprError(ValueError):
    pass


def names_in(expr: str | int | float) -> set[str]:
    """The variable names a formula uses (functions excluded)."""
    if not isinstance(expr, str):
        return set()
    tree = _parse(expr)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in _FUNCS}


def evaluate(expr: str | int | float, env: Mapping[str, int | float]) -> int | float:
    if isinstance(expr, bool):
        raise ExprError("a boolean is not a formula")
    if isinstance(expr, int | float):
        return expr
    return _eval(_parse(expr).body, env)


def _parse(expr: str) -> ast.Expression:
    try:
        return ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"cannot parse formula {expr!r}") from exc


def _eval(node: ast.AST, env: Mapping[str, int | float]) -> int | float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise ExprError(f"unknown name {node.id!r}")
        return env[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        op: Callable[[int | float, int | float], int | float] = _BINARY[type(node.op)]
        return op(_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, env)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCS
        and not node.keywords
    ):
        return _FUNCS[node.func.id](*(_eval(a, env) for a in node.args))
    raise ExprError(f"unsupported expression: {ast.dump(node)[:80]}")
