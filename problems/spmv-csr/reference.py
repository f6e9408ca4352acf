import numpy as np

MAX_ROW = 4095  # the check is exact because no row is longer (see problem.yaml)


def _row_lengths(rows, cols, nnz, rng):
    """nnz split over rows by heavy-tailed weights (a few long rows, many short or empty ones),
    no row longer than min(cols, MAX_ROW)."""
    cap = min(cols, MAX_ROW)
    weights = rng.pareto(1.2, rows) + 1e-3
    lengths = rng.multinomial(nnz, weights / weights.sum())
    while (lengths > cap).any():  # pour what is over the cap into the rows below it
        excess = int((lengths - cap).clip(0).sum())
        lengths = lengths.clip(max=cap)
        room = cap - lengths
        lengths += rng.multinomial(excess, room / room.sum())
    return lengths


def generate(params, rng):
    rows, cols, nnz = params["rows"], params["cols"], params["nnz"]
    lengths = _row_lengths(rows, cols, nnz, rng)
    row_ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=row_ptr[1:])
    row_of = np.repeat(np.arange(rows), lengths)
    # Strictly increasing columns within a row: sorted positions p_0 <= p_1 <= ... in [0, cols - L]
    # (normalized running sums of exponential gaps), plus the entry's rank k in the row.
    gaps = rng.exponential(size=nnz + rows)  # one extra gap per row closes its interval
    run = np.cumsum(gaps)
    first = row_ptr[:-1] + np.arange(rows)   # index of each row's first gap in `run`
    base = np.where(first > 0, run[first - 1], 0.0)
    total = run[first + lengths] - base
    gap_index = np.arange(nnz) + row_of      # entry j's closing gap
    rank = np.arange(nnz) - row_ptr[row_of]
    frac = (run[gap_index] - base[row_of]) / total[row_of]
    col_idx = np.minimum((frac * (cols - lengths[row_of] + 1)).astype(np.int64), cols - lengths[row_of]) + rank
    # Values and x are multiples of 1/64 in [-1, 1]: products are multiples of 2^-12 and every partial
    # sum of a row (at most 4095 terms) is below 2^12, so exact in float32 in any order.
    return {
        "row_ptr": row_ptr.astype(np.int32),
        "col_idx": col_idx.astype(np.int32),
        "values": (rng.integers(-64, 65, nnz) / 64.0).astype(np.float32),
        "x": (rng.integers(-64, 65, cols) / 64.0).astype(np.float32),
    }


def reference(inputs, params):
    row_ptr = inputs["row_ptr"].astype(np.int64)
    products = inputs["values"].astype(np.float64) * inputs["x"].astype(np.float64)[inputs["col_idx"]]
    row_of = np.repeat(np.arange(params["rows"]), np.diff(row_ptr))
    return {"y": np.bincount(row_of, weights=products, minlength=params["rows"])}
