"""A Triton submission as a module: its text executed in a fresh module named `solution`, with its
source registered where `inspect` looks (Triton reads every @triton.jit function's source back
with `inspect.getsource`, and a file the child would write to find it again is a file in the box).

The autotuner is bounded before the module runs: at most MAX_TRITON_AUTOTUNE_CONFIGS configurations
per kernel (agent.languages.triton.budget: a list of thousands would be a compile bomb on a GPU and
hours in the interpreter), and in the interpreter it benchmarks nothing (its timings would
measure Python) and takes the first.
"""

from __future__ import annotations

import inspect
import linecache
import os
import sys
import types
from collections.abc import Callable
from typing import Any

from agent.languages.triton.budget import MAX_TRITON_AUTOTUNE_CONFIGS

SOURCE_NAME = "solution.py"  # the name tracebacks and Triton's messages give the user's file
_LOADED: set[str] = set()  # the file names of the modules loaded here, for one_line


def prepare_environment(*, interpreted: bool) -> None:
    """Triton's switches, set before it is first imported: the interpreter or the compiler; its
    caches in the sandbox's private /tmp (not $HOME/.triton); its in-tree backends only (found
    without the package metadata the child's path lacks, and no plugin of the host's); Triton 3.9's
    default fp fusion, without the warning that it will change."""
    os.environ["TRITON_INTERPRET"] = "1" if interpreted else "0"
    os.environ["TRITON_BACKENDS_IN_TREE"] = "1"
    os.environ.setdefault("TRITON_HOME", "/tmp")
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


class SubmissionError(Exception):
    """The file cannot be run as a submission; the message says what to change."""


def load_module(source: str, *, interpreted: bool, name: str = "solution") -> types.ModuleType:
    """Execute the submission; raises SubmissionError (its own exceptions included, as text)."""
    bound_autotune(interpreted=interpreted)
    filename = f"{name}.py"
    _LOADED.add(filename)
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        code = compile(source, filename, "exec")
        exec(code, module.__dict__)  # noqa: S102 - the user's code, in the sandboxed child
    except SyntaxError as exc:
        raise SubmissionError(f"{filename}, line {exc.lineno}: {exc.msg}") from None
    except Exception as exc:  # noqa: BLE001 - whatever the file raises is the user's error to read
        raise SubmissionError(f"loading {filename} failed: {one_line(exc)}") from None
    return module


def launcher(module: types.ModuleType, parameters: list[str]) -> Callable[..., Any]:
    """The module's `solution`, which must take the problem's parameters, in order, by name."""
    fn = getattr(module, "solution", None)
    contract = f"def solution({', '.join(parameters)})"
    if not callable(fn):
        raise SubmissionError(f"no launcher found: define {contract} (a plain Python function that launches "
                              "your @triton.jit kernel)")
    if not inspect.isfunction(fn):
        raise SubmissionError(f"`solution` must be a plain Python function that launches your kernel: {contract}")
    names = [p.name for p in inspect.signature(fn).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if names != parameters:
        raise SubmissionError(f"`solution` takes ({', '.join(names)}) but the problem declares {contract}")
    return fn


def one_line(exc: BaseException) -> str:
    """An exception as one sentence, with the line of the user's file it came from when there is one
    (Triton's interpreter wraps a kernel's exception in InterpreterError: its cause is the real one)."""
    inner: BaseException = exc
    while inner.__cause__ is not None and type(inner).__name__ in ("InterpreterError", "CompilationError"):
        inner = inner.__cause__
    where = ""
    tb = inner.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in _LOADED:
            where = f" ({tb.tb_frame.f_code.co_filename}, line {tb.tb_lineno})"
        tb = tb.tb_next
    text = str(inner).strip().splitlines()
    message = text[0] if len(text) == 1 else " ".join(line.strip() for line in text[-3:])
    return f"{type(inner).__name__}: {message[:600]}{where}"


def bound_autotune(*, interpreted: bool) -> None:
    from triton.runtime import autotuner

    if getattr(autotuner.Autotuner, "_hipjudge_bounded", False):
        return
    original_init = autotuner.Autotuner.__init__

    def bounded_init(self: Any, fn: Any, arg_names: Any, configs: Any, *args: Any, **kwargs: Any) -> None:
        if len(configs) > MAX_TRITON_AUTOTUNE_CONFIGS:
            raise SubmissionError(f"@triton.autotune lists {len(configs)} configurations; at most "
                                  f"{MAX_TRITON_AUTOTUNE_CONFIGS} are tried per kernel")
        original_init(self, fn, arg_names, configs, *args, **kwargs)

    autotuner.Autotuner.__init__ = bounded_init  # type: ignore[method-assign]
    if interpreted:
        # Every configuration "takes" the same time: the first is chosen, none is run to time it.
        autotuner.Autotuner._bench = lambda self, *a, config, **k: [0.0, 0.0, 0.0]  # type: ignore[method-assign]
    autotuner.Autotuner._hipjudge_bounded = True  # type: ignore[attr-defined]
