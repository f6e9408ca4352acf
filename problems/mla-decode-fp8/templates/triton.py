import triton
import triton.language as tl


@triton.jit
def mla_decode(q, kv_cache, block_table, seq_lens, out, H, P, qk_scale, kv_scale, BLOCK_H: tl.constexpr):
    # TODO: for sequence b = program_id(0) and BLOCK_H of its query heads: attention of q[b, h, :576]
    # over the sequence's seq_lens[b] cached tokens, token i being row i % 64 of page
    # block_table[b, i // 64] of kv_cache (576 fp8 E4M3 FNUZ values c8, the cached values kv_scale c8:
    # keys are all 576, values the first 512). softmax(scale q.c) over the tokens, then the weighted
    # sum of values; online softmax in float32 (qk_scale = scale * kv_scale * log2(e) for tl.exp2),
    # tl.dot on bf16 tiles (fp8 converts to bf16 exactly); out[b, h, :512] bfloat16.
    pass


def solution(q, kv_cache, block_table, seq_lens, out, B, H, P, scale, kv_scale):
    # q: B x H x 576 (bfloat16), kv_cache: B*P pages x 64 x 576 (fp8), out: B x H x 512 (bfloat16);
    # block_table: B x P and seq_lens: B (int32); scale, kv_scale: float.
    BLOCK_H = max(16, min(64, triton.next_power_of_2(H)))
    qk_scale = scale * kv_scale * 1.4426950408889634
    mla_decode[(B, triton.cdiv(H, BLOCK_H))](q, kv_cache, block_table, seq_lens, out, H, P, qk_scale, kv_scale,
                                             BLOCK_H=BLOCK_H)
