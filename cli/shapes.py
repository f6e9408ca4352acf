"""The shapes of the answers the CLI reads, checked before any command uses them, so that a server
that sends a list where an object belongs, a string for a number or null for a name gets "the
server sent an unexpected response: problems[3].slug: expected a string, got null", never a
KeyError. Only what the CLI reads is checked: a server may add fields.

A shape is `str`, `bool`, `int`, NUMBER, DECIMAL, `dict` (any object), `list` (any list), ANY
(anything, null too), `[shape]` (a list of it), `{"key": shape, "key?": shape}` (an object with
these keys; "?": may be missing or null), Map(shape) (an object of any keys) or Maybe(shape).
"""

from __future__ import annotations

from typing import Any

from cli.errors import BadResponse
from cli.protocol import BENCHMARK_RESULT, COMPILE_RESULT, RANKED_RESULT, RESULT, STATUS, TEST_RESULT

# Plain classes, not dataclasses: importing dataclasses (inspect, ast, ...) would add milliseconds
# to every CLI start (bench/turnaround.py times it).


class Maybe:
    def __init__(self, shape: Any) -> None:
        self.shape = shape


class Map:
    def __init__(self, values: Any) -> None:
        self.values = values


class Scalar:
    def __init__(self, name: str, kind: str) -> None:
        self.name, self.kind = name, kind  # kind: "any", "number" or "decimal"


ANY = Scalar("anything", "any")
NUMBER = Scalar("a number", "number")
DECIMAL = Scalar("a decimal number", "decimal")  # money: "0.001200" (or a number)
NAMES = {str: "a string", bool: "true or false", int: "an integer", dict: "an object", list: "a list"}


def said(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    for kind, name in ((int, "an integer"), (float, "a number"), (str, "a string"), (list, "a list"),
                       (dict, "an object")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _wanted(shape: Any) -> str:
    if isinstance(shape, Scalar):
        return shape.name
    if isinstance(shape, Maybe):
        return f"{_wanted(shape.shape)} or null"
    if isinstance(shape, list):
        return "a list"
    if isinstance(shape, dict | Map):
        return "an object"
    return NAMES.get(shape, str(shape))


def _fits(value: Any, shape: Any) -> bool:
    """Whether the value itself (not what it holds) is of the shape's kind."""
    if isinstance(shape, Scalar):
        if shape.kind == "any":
            return True
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if shape.kind == "number" or number:
            return number
        try:
            return isinstance(value, str) and len(value) < 40 and float(value) == float(value)
        except ValueError:
            return False
    if isinstance(shape, list):
        return isinstance(value, list)
    if isinstance(shape, dict | Map):
        return isinstance(value, dict)
    if shape is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, shape)


def ask(client: Any, shape: Any, method: str, path: str, *args: Any, **kwargs: Any) -> Any:
    """`client.call(method, path, ...)`'s answer, checked against the shape the caller reads."""
    return check(client.call(method, path, *args, **kwargs), shape, f"{method} {path}")


def check(value: Any, shape: Any, where: str) -> Any:
    """`value` when it has `shape`; BadResponse naming the first place where it does not."""
    if isinstance(shape, Maybe):
        return value if value is None else check(value, shape.shape, where)
    if not _fits(value, shape):
        raise BadResponse(f"{where}: expected {_wanted(shape)}, got {said(value)}")
    if isinstance(shape, list):
        for index, item in enumerate(value):
            check(item, shape[0], f"{where}[{index}]")
    elif isinstance(shape, Map):
        for key, item in value.items():
            check(item, shape.values, f"{where}.{key}"[:200])
    elif isinstance(shape, dict):
        for key, inner in shape.items():
            name = key.rstrip("?")
            if key.endswith("?"):
                check(value.get(name), Maybe(inner), f"{where}.{name}")
            elif name not in value:
                raise BadResponse(f"{where}: no {name!r}")
            else:
                check(value[name], inner, f"{where}.{name}")
    return value


TOKEN = {"token": str, "username": str}
PROBLEMS = [{"slug": str, "title": str, "difficulty": str, "tags": [str], "data_types?": [str],
             "solved_by?": int, "your_best?": list, "best_speed_of_light?": list}]
PARAMETER = {"name": str, "type": str, "c_types": {"cpp": ANY, "hip": ANY, "cuda": ANY}, "pointer": bool,
             "output": bool, "shape": list}
PROBLEM = {"slug": str, "title": str, "difficulty": str, "parameters?": [PARAMETER], "signatures?": Map(ANY)}
OFFER = {"language": str, "modes": [str], "emulated?": bool}
POOLS = [{"name": str, "device": str, "languages": [str], "offers?": [OFFER], "warm_vms": int, "max_vms": int,
          "hourly_rate": DECIMAL, "access?": str, "emulated_note?": str}]
COST = {"cost_usd?": DECIMAL, "cost_parts?": Map(DECIMAL)}
RANKED = {"score_ms": NUMBER}
SUBMISSION = {"id": str, "problem": str, "language": str, "mode": str, "pool": str, "status": str,
              "status_reason": str, "is_terminal": bool, "score_ms?": NUMBER, "speed_of_light?": dict,
              "results?": {"tests?": [dict], "benchmarks?": [dict], "ranked?": [dict]},
              "leaderboard": {"state": str}, "ranked?": RANKED, **COST}
ROW = {"id": str, "created_at": str, "problem": str, "language": str, "mode": str, "pool": str, "status": str,
       "score_ms?": NUMBER, "ranked_score_ms?": NUMBER, **COST}
SUBMISSIONS = {"results": [ROW], "count?": int}
CREATED = {"id": str, "pool": str, "emulated?": bool}
CANCELLED = {"id": str, "status": str, "status_reason": str}
LEADERBOARD = {"problem": str, "pool": str, "rows": [{"rank": int, "user": ANY, "score_ms": NUMBER,
                                                      "ci95_ms": ANY, "speedup": ANY, "language": ANY,
                                                      "submitted_at": str, "submission": ANY}]}

# An event of the stream, and what the CLI reads of each kind's payload.
EVENT = {"seq": int, "type": str, "payload?": dict}
_CASE = {"index?": int, "total?": int, "mean_ms?": NUMBER, "gflops?": NUMBER}
PAYLOADS: dict[str, Any] = {
    STATUS: {"status?": str},
    COMPILE_RESULT: {"seconds?": NUMBER},
    TEST_RESULT: {"index?": int, "total?": int},
    BENCHMARK_RESULT: _CASE,
    RANKED_RESULT: _CASE,
    RESULT: {"status?": str, "score_ms?": NUMBER, "summary?": {"ranked?": {"score_ms?": NUMBER}}},
}


def event(value: Any) -> dict[str, Any]:
    """One event of the stream, checked with its kind's payload."""
    checked: dict[str, Any] = check(value, EVENT, "event")
    shape = PAYLOADS.get(checked["type"])
    if shape is not None:
        check(checked.get("payload") or {}, shape, f"event {checked['seq']} ({checked['type'][:40]}).payload")
    return checked
