"""Comparing a kernel's outputs with the reference, and replaying the input changes of a kept run."""

from __future__ import annotations

from typing import Any

import numpy as np

from agent.problems import Tolerance


def compare(name: str, got: np.ndarray, want: np.ndarray, tol: Tolerance) -> str | None:
    """None when equal within tolerance, else a sentence about the first mismatching element."""
    if got.shape != want.shape:
        return f"{name} has shape {got.shape}, expected {want.shape}"
    if tol.exact or want.dtype.kind in "iub":
        bad = got != want
        rule = "exact comparison"
    else:
        g, w = got.astype(np.float64), want.astype(np.float64)
        bad = ~np.isclose(g, w, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
        rule = f"rtol {tol.rtol:g}, atol {tol.atol:g}"
    count = int(np.count_nonzero(bad))
    if count == 0:
        return None
    flat = int(np.flatnonzero(bad)[0])
    where = ", ".join(str(i) for i in np.unravel_index(flat, want.shape))
    g_val, w_val = got.reshape(-1)[flat], want.reshape(-1)[flat]
    hint = ""
    if (got.dtype.kind == "f" and np.isnan(g_val)) or (got.dtype.kind in "iu" and g_val.tobytes() == b"\xa5" *
                                                       got.dtype.itemsize):
        hint = " (never written: it still holds the poison value)"
    g_text, w_text = _fmt(g_val), _fmt(w_val)
    if g_text == w_text:  # they differ beyond 7 digits (an exact check): show every digit
        g_text, w_text = repr(g_val.item()), repr(w_val.item())
    return (f"{name}[{where}] = {g_text}{hint} but expected {w_text}; "
            f"{count} of {want.size} elements differ ({rule})")


def _fmt(value: np.generic) -> str:
    return f"{value.item():.7g}" if isinstance(value, np.floating) else str(value.item())


def apply_mutation(arr: np.ndarray, mutation: Any, limit: int) -> np.ndarray | None:
    """The input of a kept run: the child copied arr[sources[k]] into arr[targets[k]], in order."""
    if (not isinstance(mutation, list) or len(mutation) != 2
            or not all(isinstance(part, list) and len(part) == limit for part in mutation)
            or len(mutation[0]) != len(mutation[1])):
        return None
    targets, sources = mutation
    flat = arr.reshape(-1)
    if not all(isinstance(i, int) and 0 <= i < flat.size for i in targets + sources):
        return None
    changed = flat.copy()
    for target, source in zip(targets, sources, strict=True):
        changed[target] = flat[source]
    return changed.reshape(arr.shape)
