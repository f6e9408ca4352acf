import triton
import triton.language as tl

RADIX_BITS = 4


@triton.jit
def radix_pass(keys, src, dst, n, shift, FIRST: tl.constexpr, BLOCK: tl.constexpr, RADIX: tl.constexpr):
    # One stable counting-sort pass on the digit (key >> shift) & (RADIX - 1), over a permutation of
    # the input positions (src: the order after the previous pass; the identity on the first): a
    # count of each digit, their exclusive scan, then the positions in src's order, each to the slot
    # of its digit after the ones before it: those of earlier blocks (a running count per digit) and
    # of its own block (a scan of the one-hot block). One program: the running counts are its own.
    digits = tl.arange(0, RADIX)
    counts = tl.zeros((RADIX,), dtype=tl.int32)
    for start in range(0, n, BLOCK):
        i = start + tl.arange(0, BLOCK)
        d = ((tl.load(keys + i, mask=i < n, other=0) >> shift) & (RADIX - 1)).to(tl.int32)
        counts += tl.histogram(d, RADIX, mask=i < n)
    seen = tl.cumsum(counts, axis=0) - counts
    for start in range(0, n, BLOCK):
        i = start + tl.arange(0, BLOCK)
        live = i < n
        if FIRST:
            p = i.to(tl.uint32)
        else:
            p = tl.load(src + i, mask=live, other=0)
        d = ((tl.load(keys + p, mask=live, other=0) >> shift) & (RADIX - 1)).to(tl.int32)
        one_hot = ((d[:, None] == digits[None, :]) & live[:, None]).to(tl.int32)  # BLOCK x RADIX
        before = tl.cumsum(one_hot, axis=0) - one_hot
        slot = tl.sum(one_hot * (before + seen[None, :]), axis=1)
        tl.store(dst + slot, p, mask=live)
        seen += tl.sum(one_hot, axis=0)


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
    # LSD radix sort of the positions, 4 bits a pass: 8 passes, out_keys and out_values holding the
    # permutation in turn (the 8th lands in out_values); then the keys and values are gathered.
    buffers = (out_keys, out_values)
    for step in range(32 // RADIX_BITS):
        radix_pass[(1,)](keys, buffers[(step + 1) % 2], buffers[step % 2], n, step * RADIX_BITS, FIRST=step == 0,
                         BLOCK=4096, RADIX=1 << RADIX_BITS, num_warps=8)
    BLOCK = 4096
    gather[(triton.cdiv(n, BLOCK),)](keys, values, out_keys, out_values, n, BLOCK=BLOCK)
