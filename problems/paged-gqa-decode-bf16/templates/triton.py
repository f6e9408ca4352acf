import triton
import triton.language as tl


@triton.jit
def decode(q, k_cache, v_cache, block_table, seq_lens, out, Hq, Hkv, P, scale, G_PAD: tl.constexpr):
    # TODO: program (b, KV head) = program_id(0), program_id(1): its G = Hq / Hkv query heads
    # against the keys of tokens j < seq_lens[b] (token j: page block_table[b][j / 16], row j % 16),
    # a page at a time (tl.dot with G_PAD >= 16 rows), an online softmax, then the weighted values
    pass


def solution(q, k_cache, v_cache, block_table, seq_lens, out, B, Hq, Hkv, P, scale):
    # q, out: bfloat16 B x Hq x 128; k_cache, v_cache: bfloat16 (B * P) x 16 x Hkv x 128;
    # block_table: int32 B x P; seq_lens: int32 of B.
    decode[(B, Hkv)](q, k_cache, v_cache, block_table, seq_lens, out, Hq, Hkv, P, scale,
                     G_PAD=max(16, triton.next_power_of_2(Hq // Hkv)))
