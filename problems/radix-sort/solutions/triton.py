import triton
import triton.language as tl


@triton.jit
def radix_sort(keys, perm_a, perm_b, n, BLOCK: tl.constexpr, RADIX_BITS: tl.constexpr, PASSES: tl.constexpr):
    # A least-significant-digit radix sort of the input positions by key, RADIX_BITS a pass, in one
    # program (its running counts are its own; a barrier orders the passes). First one sweep counts
    # every pass's digits (bin = pass * RADIX + digit: their order does not matter), and a scan of
    # each pass's counts gives its digits' first slots. Then pass after pass, the positions in the
    # previous pass's order (perm_a and perm_b in turn; the identity first) go each to the slot of
    # its digit after the ones before it: those of earlier blocks (a running count per digit) and
    # of its own block (a scan of the one-hot block), so the pass is stable.
    RADIX: tl.constexpr = 1 << RADIX_BITS
    lanes = tl.arange(0, PASSES)
    digits = tl.arange(0, RADIX)
    counts = tl.zeros((PASSES * RADIX,), dtype=tl.int32)
    for start in range(0, n, BLOCK):
        i = start + tl.arange(0, BLOCK)
        key = tl.load(keys + i, mask=i < n, other=0)
        bins = ((key[:, None] >> (lanes[None, :] * RADIX_BITS)) & (RADIX - 1)).to(tl.int32) + lanes[None, :] * RADIX
        live = (i[:, None] < n) & (lanes[None, :] >= 0)
        counts += tl.histogram(tl.reshape(bins, (BLOCK * PASSES,)), PASSES * RADIX,
                               mask=tl.reshape(live, (BLOCK * PASSES,)))
    per_pass = tl.reshape(counts, (PASSES, RADIX))
    firsts = tl.cumsum(per_pass, axis=1) - per_pass
    for step in tl.static_range(PASSES):
        src = perm_b if step % 2 == 0 else perm_a  # the pass before wrote it (unused by the first)
        dst = perm_a if step % 2 == 0 else perm_b
        seen = tl.sum(tl.where(lanes[:, None] == step, firsts, 0), axis=0)
        for start in range(0, n, BLOCK):
            i = start + tl.arange(0, BLOCK)
            live = i < n
            if step == 0:
                p = i.to(tl.uint32)
            else:
                p = tl.load(src + i, mask=live, other=0)
            d = ((tl.load(keys + p, mask=live, other=0) >> (step * RADIX_BITS)) & (RADIX - 1)).to(tl.int32)
            one_hot = ((d[:, None] == digits[None, :]) & live[:, None]).to(tl.int32)  # BLOCK x RADIX
            before = tl.cumsum(one_hot, axis=0) - one_hot
            tl.store(dst + tl.sum(one_hot * (before + seen[None, :]), axis=1), p, mask=live)
            seen += tl.sum(one_hot, axis=0)
        tl.debug_barrier()  # this pass's slots are written before the next pass reads them


@triton.jit
def gather(keys, values, out_keys, out_values, n, BLOCK: tl.constexpr):
    # out_values holds the sorted order of the input positions; each element reads its own slot,
    # then overwrites it with the value it names.
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = i < n
    p = tl.load(out_values + i, mask=live, other=0)
    tl.store(out_keys + i, tl.load(keys + p, mask=live), mask=live)
    tl.store(out_values + i, tl.load(values + p, mask=live), mask=live)


def solution(keys, values, out_keys, out_values, n):
    # 8 passes of 4 bits: perm_b = out_values is written by the odd passes, so the last (the 8th)
    # leaves the order there.
    radix_sort[(1,)](keys, out_keys, out_values, n, BLOCK=4096, RADIX_BITS=4, PASSES=8, num_warps=8)
    BLOCK = 4096
    gather[(triton.cdiv(n, BLOCK),)](keys, values, out_keys, out_values, n, BLOCK=BLOCK)
