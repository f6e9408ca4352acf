#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage

#include <cstddef>
#include <cstdint>

extern "C" void solution(const hj_bfloat16* x, const int32_t* topk_ids, hj_bfloat16* x_sorted, int32_t* expert_offsets,
                         int32_t* row_of, size_t T, size_t H, size_t E, size_t topk) {
    // TODO: order the pairs p = t * topk + j by (topk_ids[p], p); x_sorted[position] = x[t]; row_of[p] = position;
    // expert_offsets[e] = number of pairs of experts below e
}
