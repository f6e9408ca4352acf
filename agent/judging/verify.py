"""Comparing a kernel's outputs with the reference, and the input changes of a timed run."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from agent.devices.base import DeviceAccess
from agent.problems.bundle import Case, Problem, Tolerance
from agent.problems.dtypes import is_float_dtype, is_low_precision

# Elements compared per pass: the float64 copies and masks of one pass (a few MiB) stay in the
# cache; whole arrays would make float64 temporaries as large as the case itself, each faulted in
# as fresh pages.
CHUNK = 1 << 18
SECRET_WRONG = "the result is wrong (where and by how much is withheld: the inputs are secret)"
# The fewest elements a `bias` rule judges: with each element's error clipped to +-u ulps and honest
# errors of mean zero, the chance that the mean of n passes b is at most 2 exp(-n b^2 / (2 u^2))
# (Hoeffding): below 1e-13 for n = 4096, b = 1/4, u = 2; rounding toward zero averages about -1/2.
BIAS_MIN_ELEMENTS = 4096


def compare(name: str, got: np.ndarray, want: np.ndarray, tol: Tolerance, *, reveal: bool = True) -> str | None:
    """None when equal within tolerance, else a sentence about the first mismatching element; with
    `reveal` False only that the output is wrong: which element and how many differ are the
    kernel's to choose, and could spell the secret inputs."""
    if got.shape != want.shape:
        return f"{name} has shape {got.shape}, expected {want.shape}"
    exact = tol.exact or not is_float_dtype(want.dtype)
    rule = "exact comparison" if exact else _rule(tol, want.dtype)
    count, flat = _mismatches(got.reshape(-1), want.reshape(-1), None if exact else tol)
    if count == 0:
        return None if exact or not tol.bias else _biased(name, got.reshape(-1), want.reshape(-1), tol, reveal)
    where = ", ".join(str(i) for i in np.unravel_index(flat, want.shape))
    if not reveal:
        return SECRET_WRONG
    g_val, w_val = got.reshape(-1)[flat], want.reshape(-1)[flat]
    hint = ""
    if (is_float_dtype(got.dtype) and np.isnan(np.float64(g_val))) or (got.dtype.kind in "iu" and g_val.tobytes() ==
                                                                        b"\xa5" * got.dtype.itemsize):
        hint = " (never written: it still holds the poison value)"
    g_text, w_text = _fmt(g_val), _fmt(w_val)
    if g_text == w_text:  # they differ beyond 7 digits (an exact check): show every digit
        g_text, w_text = repr(float(g_val) if is_float_dtype(got.dtype) else g_val.item()), repr(
            float(w_val) if is_float_dtype(want.dtype) else w_val.item())
    broken = None if exact else _broken_bound(float(g_val), float(w_val), tol, want.dtype)
    said = f"{broken}; {count} of {want.size} elements differ" if broken else \
        f"; {count} of {want.size} elements differ ({rule})"
    return f"{name}[{where}] = {g_text}{hint} but expected {w_text}{said}"


def _biased(name: str, got: np.ndarray, want: np.ndarray, tol: Tolerance, reveal: bool) -> str | None:
    """A sentence when the outputs, each within its bound, err on average by more than `tol.bias`
    ulps of their type toward (negative) or away from (positive) zero; None when they do not, or
    when fewer than BIAS_MIN_ELEMENTS elements are nonzero and finite (too few to tell)."""
    total, count = 0.0, 0
    for start in range(0, want.size, CHUNK):
        w, g = want[start:start + CHUNK].astype(np.float64), got[start:start + CHUNK].astype(np.float64)
        keep = np.isfinite(w) & np.isfinite(g) & (w != 0)
        w, g = w[keep], g[keep]
        error = (g - w) * np.sign(w) / spacing(np.abs(w), want.dtype)
        total += float(np.clip(error, -tol.ulps, tol.ulps).sum())
        count += w.size
    if count < BIAS_MIN_ELEMENTS or abs(total / count) <= tol.bias:
        return None
    if not reveal:
        return SECRET_WRONG
    return (f"{name}: every element is within its bound, but on average they err by {total / count:+.3f} ulps of "
            f"{want.dtype.name} (negative: toward zero) over {count} elements, beyond the ±{tol.bias:g} allowed: "
            "a systematic rounding, e.g. toward zero instead of to nearest even")


def _broken_bound(got: float, want: float, tol: Tolerance, dtype: np.dtype) -> str | None:
    """': |got - expected| = E > B = atol + ...': the error of one element and the bound of the check
    rule it broke, each part of the bound with its value; None where the error is not a number (a
    NaN or an infinity on either side: the values say it all)."""
    error = abs(got - want)
    if not np.isfinite(error):
        return None
    magnitude = abs(want)
    parts = [f"atol {tol.atol:g}"] if tol.atol or not (tol.rtol or tol.ulps) else []
    bound = tol.atol
    if tol.rtol:
        bound += tol.rtol * magnitude
        parts.append(f"rtol {tol.rtol:g} × {magnitude:.6g} ({tol.rtol * magnitude:.6g})")
    if tol.ulps:
        ulp = float(spacing(np.array([magnitude]), dtype)[0])
        bound += tol.ulps * ulp
        many = f"{tol.ulps:g} × {ulp:.6g}" if tol.ulps != 1 else f"{ulp:.6g}"
        parts.append(f"{tol.ulps:g} ulp{'s' if tol.ulps != 1 else ''} of {dtype.name} at {magnitude:.6g} ({many})")
    return f": |got - expected| = {error:.6g} > bound {bound:.6g} = {' + '.join(parts)}"


def _rule(tol: Tolerance, dtype: np.dtype) -> str:
    parts = [f"rtol {tol.rtol:g}"] if tol.rtol or not tol.ulps else []
    if tol.ulps:
        parts.append(f"{tol.ulps:g} ulp of {dtype.name}")
    parts.append(f"atol {tol.atol:g}")
    return ", ".join(parts)


def _mismatches(got: np.ndarray, want: np.ndarray, tol: Tolerance | None) -> tuple[int, int]:
    """(how many elements differ, the flat index of the first), comparing exactly when `tol` is None.
    Low-precision floats compare by value (NaN equal to NaN, -0 to 0), never by their bytes."""
    count, first = 0, -1
    low = is_low_precision(want.dtype)
    for start in range(0, want.size, CHUNK):
        g, w = got[start:start + CHUNK], want[start:start + CHUNK]
        if tol is None and low:
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
            bad = ~((g64 == w64) | (np.isnan(g64) & np.isnan(w64)))
        elif tol is None:
            bad = g != w
        else:
            bad = ~_close(g.astype(np.float64), w.astype(np.float64), tol, want.dtype)
        found = int(np.count_nonzero(bad))
        if found and first < 0:
            first = start + int(np.flatnonzero(bad)[0])
        count += found
    return count, first


def _close(g: np.ndarray, w: np.ndarray, tol: Tolerance, dtype: np.dtype) -> np.ndarray:
    """np.isclose(g, w, rtol, atol, equal_nan=True), element for element, with fewer passes and
    temporaries: |g - w| <= atol + rtol |w| (+ ulps spacings of `dtype` at |w|), where the difference
    is finite; elsewhere (an inf or a NaN on either side) close only when both are the same infinity
    or both NaN."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, and huge doubles: the specials below
        diff = np.subtract(g, w)
    np.abs(diff, out=diff)
    bound = np.abs(w)
    if tol.ulps:
        bound = tol.ulps * spacing(bound, dtype) + tol.rtol * bound
    else:
        bound *= tol.rtol
    bound += tol.atol
    close = diff <= bound
    special = ~np.isfinite(diff)
    if special.any():
        gs, ws = g[special], w[special]
        close[special] = (gs == ws) | (np.isnan(gs) & np.isnan(ws))
    return close


def spacing(magnitude: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The distance from each |value| (float64) to the next number of `dtype` above it: one unit in
    the last place, 2^(exponent - mantissa bits), constant below the smallest normal number."""
    info = ml_dtypes.finfo(dtype) if is_low_precision(dtype) else np.finfo(dtype)
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log2(magnitude, where=magnitude > 0, out=np.full(magnitude.shape, -np.inf)))
    exponent = np.maximum(exponent, info.minexp)
    return np.ldexp(1.0, (exponent - info.nmant).astype(np.int64))


def _fmt(value: np.generic) -> str:
    if isinstance(value, np.floating) or is_low_precision(value.dtype):
        return f"{float(value):.7g}"
    return str(value.item())


@dataclass(frozen=True)
class Mutation:
    """Input elements the parent changes before one timed run: each target takes the value of
    another element of the same buffer (so it stays in the problem's input domain: histogram bins,
    small integers). A kernel that caches results or skips work after the first call cannot know
    which elements changed, nor which runs the parent verifies (drawn after the call)."""

    changes: dict[str, tuple[np.ndarray, np.ndarray]]  # buffer -> (distinct targets, their new values)

    @classmethod
    def draw(cls, inputs: dict[str, np.ndarray], count: int, rng: np.random.Generator,
             keep: Collection[str] = ()) -> Mutation:
        """Changes to every input but those in `keep` (the problem's `mutate: false` buffers)."""
        changes = {}
        for name, arr in inputs.items():
            if name in keep:
                continue
            flat = arr.reshape(-1)
            targets, first = np.unique(rng.integers(0, flat.size, count), return_index=True)
            sources = rng.integers(0, flat.size, count)[first]
            changes[name] = (targets, flat[sources].copy())
        return cls(changes)

    def applied_to(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The inputs the run saw."""
        changed = {}
        for name, arr in inputs.items():
            if name not in self.changes:
                changed[name] = arr
                continue
            flat = arr.reshape(-1).copy()
            targets, values = self.changes[name]
            flat[targets] = values
            changed[name] = flat.reshape(arr.shape)
        return changed

    def apply(self, access: DeviceAccess) -> None:
        for name, (targets, values) in self.changes.items():
            access.write_elements(name, targets, values)

    def undo(self, access: DeviceAccess, inputs: dict[str, np.ndarray]) -> None:
        for name, (targets, _) in self.changes.items():
            access.write_elements(name, targets, inputs[name].reshape(-1)[targets])


def check_outputs(problem: Problem, case: Case, inputs: dict[str, np.ndarray],
                  outputs: dict[str, np.ndarray], *, reveal: bool = True,
                  expected: Mapping[str, np.ndarray] | None = None) -> str | None:
    """The first mismatch of the kernel's outputs (copies the parent made) against the reference
    computed from the inputs the parent wrote (or `expected`, the reference already computed on
    them: agent.judging.expected), or None."""
    if expected is None:
        expected = problem.expected(case, inputs)
    for name, want in expected.items():
        message = compare(name, outputs[name], want, problem.tolerance, reveal=reveal)
        if message:
            return message
    return None


def modified_inputs(access: DeviceAccess, inputs: dict[str, np.ndarray], *, name: bool = True) -> str | None:
    """A sentence naming the input buffers that no longer hold what the parent wrote (with `name`
    False, not which: on secret inputs the kernel could choose), or None."""
    changed = [key for key, arr in inputs.items() if not _same_bytes(access.read(key), arr)]
    if not changed:
        return None
    return f"solution modified its input {', '.join(changed)} (inputs are read-only)" if name else \
        "solution modified its inputs (inputs are read-only)"


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Byte for byte (a NaN the kernel wrote back is a change), a chunk at a time: comparing whole
    arrays made a mask of one byte per input byte."""
    x, y = a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)
    step = CHUNK * 8
    return x.size == y.size and all(np.array_equal(x[i:i + step], y[i:i + step]) for i in range(0, x.size, step))
