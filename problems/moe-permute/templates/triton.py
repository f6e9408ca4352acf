import triton
import triton.language as tl


@triton.jit
def permute(x, topk_ids, x_sorted, expert_offsets, row_of, T, H, E, topk, BLOCK: tl.constexpr):
    # TODO: the T * topk pairs (t, j) sorted by expert topk_ids[t, j], equal experts in pair order
    # t * topk + j (stable): expert_offsets[e] = the first row of expert e (E + 1 values, the last
    # T * topk), row_of[t, j] = the pair's row, x_sorted[row_of[t, j]] = x[t]. Counting per expert
    # (tl.histogram), a scan, then each pair's rank among its expert's pairs; one or more kernels.
    pass


def solution(x, topk_ids, x_sorted, expert_offsets, row_of, T, H, E, topk):
    # x: T x H bfloat16; topk_ids, row_of: T x topk int32; x_sorted: T*topk x H bfloat16;
    # expert_offsets: E + 1 int32.
    permute[(1,)](x, topk_ids, x_sorted, expert_offsets, row_of, T, H, E, topk, BLOCK=256)
