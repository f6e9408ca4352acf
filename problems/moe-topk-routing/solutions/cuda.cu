#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <cstdint>

// One 32-lane warp per token, four per block; lane l holds experts l, l + 32, ... (E <= 512) in
// registers. The maximum and the softmax denominator are warp reductions (shuffles); then topk
// rounds each reduce (logit, expert) to the largest logit not yet taken, the lower expert on ties
// (a total order, so every lane ends with the same winner). Lane j keeps the j-th choice and writes it.
constexpr int ROWS = 4, PER_LANE = 16;

__global__ void __launch_bounds__(128) route(const float* logits, float* weights, int32_t* ids, int T, int E,
                                             int topk, int renormalize) {
    const int lane = threadIdx.x % 32, t = blockIdx.x * ROWS + threadIdx.x / 32;
    if (t >= T) return;  // the whole warp: t is the same in its 32 lanes
    const float* row = logits + (size_t)t * E;
    float x[PER_LANE], m = -INFINITY;
    for (int j = 0; j < PER_LANE; ++j) {
        x[j] = lane + 32 * j < E ? row[lane + 32 * j] : -INFINITY;
        m = fmaxf(m, x[j]);
    }
    for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
    float total = 0.0f;
    for (int j = 0; j < PER_LANE; ++j)
        if (lane + 32 * j < E) total += expf(x[j] - m);
    for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
    unsigned taken = 0;
    float chosen = 0.0f, my_weight = 0.0f;
    int my_id = 0;
    for (int r = 0; r < topk; ++r) {
        float best = -INFINITY;
        int best_id = INT_MAX;
        for (int j = 0; j < PER_LANE; ++j) {
            const int e = lane + 32 * j;
            if (e < E && !(taken >> j & 1u) && (x[j] > best || (x[j] == best && e < best_id))) best = x[j], best_id = e;
        }
        for (int offset = 16; offset > 0; offset /= 2) {
            const float other = __shfl_xor_sync(0xffffffffu, best, offset);
            const int other_id = __shfl_xor_sync(0xffffffffu, best_id, offset);
            if (other > best || (other == best && other_id < best_id)) best = other, best_id = other_id;
        }
        if (best_id % 32 == lane) taken |= 1u << (best_id / 32);
        const float w = expf(best - m);
        chosen += w;
        if (lane == r) my_weight = w, my_id = best_id;
    }
    if (lane < topk) {
        weights[(size_t)t * topk + lane] = my_weight / (renormalize ? chosen : total);
        ids[(size_t)t * topk + lane] = my_id;
    }
}

extern "C" void solution(const float* logits, float* weights, int32_t* ids, size_t T, size_t E, size_t topk,
                         int renormalize) {
    route<<<(unsigned)((T + ROWS - 1) / ROWS), 128>>>(logits, weights, ids, (int)T, (int)E, (int)topk, renormalize);
}
