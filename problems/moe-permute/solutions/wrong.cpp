#include <hipjudge/lowp.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

// Wrong on purpose: a counting sort that fills each expert's rows from its end (the scatter of a
// radix sort, which is stable only when the pairs are walked backwards) while walking the pairs
// forwards: each expert's tokens come out in reverse order.
extern "C" void solution(const hj_bfloat16* x, const int32_t* topk_ids, hj_bfloat16* x_sorted, int32_t* expert_offsets,
                         int32_t* row_of, size_t T, size_t H, size_t E, size_t topk) {
    std::vector<int32_t> end(E + 1, 0);
    for (size_t p = 0; p < T * topk; ++p) ++end[topk_ids[p] + 1];
    for (size_t e = 0; e < E; ++e) end[e + 1] += end[e];
    std::memcpy(expert_offsets, end.data(), (E + 1) * sizeof(int32_t));
    for (size_t p = 0; p < T * topk; ++p) {
        const int32_t position = --end[topk_ids[p] + 1];
        row_of[p] = position;
        std::memcpy(x_sorted + (size_t)position * H, x + (p / topk) * H, H * sizeof(hj_bfloat16));
    }
}
