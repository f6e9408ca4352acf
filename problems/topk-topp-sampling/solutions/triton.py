import triton
import triton.language as tl


@triton.jit
def weight_from(row, V, lowest, floor_bits, extra, floor_value, BY_COUNT: tl.constexpr, BLOCK: tl.constexpr):
    # The count (BY_COUNT) or the sum of the set's values whose bits are >= lowest; the set: the
    # row's values whose bits exceed floor_bits (-1: all) plus `extra` copies of floor_value. Sums
    # are exact in any order (the statement), so tl.sum's tree gives the serial sum's bits.
    total = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, V, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        x = tl.load(row + offsets, mask=offsets < V, other=-1.0)  # -1.0: negative bits, never counted
        bits = x.to(tl.int32, bitcast=True)
        counted = (bits >= lowest) & (bits > floor_bits)
        if BY_COUNT:
            total += counted.to(tl.float32)
        else:
            total += tl.where(counted, x, 0.0)
    more = tl.where(floor_bits >= lowest, extra, 0).to(tl.float32)
    if BY_COUNT:
        return tl.sum(total, axis=0) + more
    else:
        return tl.sum(total, axis=0) + more * floor_value


@triton.jit
def descend(row, V, floor_bits, extra, floor_value, target, BY_COUNT: tl.constexpr, INCLUSIVE: tl.constexpr,
            BLOCK: tl.constexpr):
    # Non-negative floats order as their bits: the largest bit pattern w whose weight from w (count
    # or sum of the set's values >= w) reaches the target (INCLUSIVE: >=, else >), one bit at a time
    # from the top. That is the value at the first position, largest first, where the running count
    # or sum reaches it. Returns w and the weight of the set's values above w.
    w = tl.full((), 0, tl.int32)
    for i in range(31):
        candidate = w | (1 << (30 - i))
        weight = weight_from(row, V, candidate, floor_bits, extra, floor_value, BY_COUNT, BLOCK)
        if INCLUSIVE:
            w = tl.where(weight >= target, candidate, w)
        else:
            w = tl.where(weight > target, candidate, w)
    return w, weight_from(row, V, w + 1, floor_bits, extra, floor_value, BY_COUNT, BLOCK)


@triton.jit
def reaches(above, q, w, target, INCLUSIVE: tl.constexpr):
    total = above + q.to(tl.float32) * w  # exact: a sum of the grid's values
    if INCLUSIVE:
        return total >= target
    else:
        return total > target


@triton.jit
def ties_needed(above, w, target, INCLUSIVE: tl.constexpr):
    # The fewest copies q >= 1 of w that take `above` to the target: the float estimate is off by at
    # most one either way, so the smallest of q0 - 1, q0, q0 + 1 that reaches it.
    ratio = (target - above) / tl.where(w > 0, w, 1.0)  # w is 0 only in a descent whose answer is unused
    q0 = tl.minimum(tl.maximum(tl.math.ceil(ratio), 1.0), 1 << 30).to(tl.int32)
    q = q0 + 1
    q = tl.where(reaches(above, q0, w, target, INCLUSIVE), q0, q)
    q = tl.where((q0 > 1) & reaches(above, q0 - 1, w, target, INCLUSIVE), q0 - 1, q)
    return q


@triton.jit
def sample(probs, top_k, top_p, uniforms, token, V, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    row = probs + b * V
    k = tl.load(top_k + b)
    no_floor = tl.full((), -1, tl.int32)
    none = tl.full((), 0, tl.int32)
    kth, kth_count = descend(row, V, no_floor, none, 0.0, k.to(tl.float32), True, True, BLOCK)
    kth_value = kth.to(tl.float32, bitcast=True)
    kth_above = weight_from(row, V, kth + 1, no_floor, none, 0.0, False, BLOCK)
    ties = k - kth_count.to(tl.int32)  # copies of the k-th value that top-k keeps
    kept = kth_above + ties.to(tl.float32) * kth_value
    threshold = tl.load(top_p + b) * kept
    edge, edge_above = descend(row, V, kth, ties, kth_value, threshold, False, True, BLOCK)
    w = edge.to(tl.float32, bitcast=True)
    q = ties_needed(edge_above, w, threshold, True)
    nucleus = edge_above + q.to(tl.float32) * w
    draw = tl.load(uniforms + b) * nucleus
    found, found_above = descend(row, V, kth, ties, kth_value, draw, False, False, BLOCK)
    found_q = ties_needed(found_above, found.to(tl.float32, bitcast=True), draw, False)
    # A draw that rounds up to the nucleus's sum takes the nucleus's last token.
    bits = tl.where(draw < nucleus, found, edge)
    nth = tl.where(draw < nucleus, found_q, q)
    # The nth token (from 1) of value `bits`, in index order.
    seen = tl.full((), 0, tl.int32)
    result = tl.full((), 0, tl.int64) + V
    for start in range(0, V, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        x = tl.load(row + offsets, mask=offsets < V, other=-1.0)
        match = (x.to(tl.int32, bitcast=True) == bits) & (offsets < V)
        running = seen + tl.cumsum(match.to(tl.int32), axis=0)
        result = tl.minimum(result, tl.min(tl.where(match & (running == nth), offsets, V), axis=0))
        seen += tl.sum(match.to(tl.int32), axis=0)
    tl.store(token + b, result.to(tl.int32))


def solution(probs, top_k, top_p, uniforms, token, B, V):
    # A block no wider than the row: a vocabulary is wider than 16384, a short row is read in one
    # block of its own size (no lanes masked off by the thousand in each of the ~100 passes).
    BLOCK = min(16384, max(16, triton.next_power_of_2(V)))
    sample[(B,)](probs, top_k, top_p, uniforms, token, V, BLOCK=BLOCK, num_warps=16)
