#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cstdint>

// Two launches. `place`: one block per expert walks every pair twice (the ids are small and stay in
// cache): first counting the pairs of lower experts (the expert's first row, expert_offsets[e]),
// then a stable compaction of its own pairs, 256 at a time (a wavefront ballot and popcounts give
// each pair its rank, LDS the wavefronts' counts), writing row_of. `copy`: the rows, 8 pairs per
// block, 16 bytes per thread and step, from x[t] to x_sorted[row_of[p]].
constexpr int THREADS = 256, WAVES = THREADS / 64, PAIRS_PER_BLOCK = 8;

__global__ void __launch_bounds__(THREADS) place(const int32_t* ids, int32_t* offsets, int32_t* row_of, int pairs,
                                                 int E) {
    __shared__ __align__(32) int counts[WAVES];
    const int e = blockIdx.x, tid = threadIdx.x, lane = tid % 64, wave = tid / 64;
    int below = 0;
    for (int p = tid; p < pairs; p += THREADS) below += ids[p] < e;
    for (int offset = 32; offset > 0; offset /= 2) below += __shfl_xor(below, offset);
    if (lane == 0) counts[wave] = below;
    __syncthreads();
    int base = 0;
    for (int w = 0; w < WAVES; ++w) base += counts[w];
    if (tid == 0) {
        offsets[e] = base;
        if (e == E - 1) offsets[E] = pairs;
    }
    __syncthreads();
    for (int p0 = 0; p0 < pairs; p0 += THREADS) {
        const int p = p0 + tid;
        const bool mine = p < pairs && ids[p] == e;
        const unsigned long long mask = __ballot(mine);
        if (lane == 0) counts[wave] = __popcll(mask);
        __syncthreads();
        int position = base + __popcll(mask & ((1ull << lane) - 1));
        for (int w = 0; w < wave; ++w) position += counts[w];
        if (mine) row_of[p] = position;
        for (int w = 0; w < WAVES; ++w) base += counts[w];
        __syncthreads();
    }
}

__global__ void __launch_bounds__(THREADS) copy(const uint16_t* x, const int32_t* row_of, uint16_t* x_sorted,
                                                int pairs, int H, int topk) {
    for (int r = 0; r < PAIRS_PER_BLOCK; ++r) {
        const int p = blockIdx.x * PAIRS_PER_BLOCK + r;
        if (p >= pairs) break;
        const uint16_t* src = x + (size_t)(p / topk) * H;
        uint16_t* dst = x_sorted + (size_t)row_of[p] * H;
        if (H % 8 == 0) {
            for (int i = threadIdx.x; i < H / 8; i += THREADS) ((uint4*)dst)[i] = ((const uint4*)src)[i];
        } else {
            for (int i = threadIdx.x; i < H; i += THREADS) dst[i] = src[i];
        }
    }
}

extern "C" void solution(const __hip_bfloat16* x, const int32_t* topk_ids, __hip_bfloat16* x_sorted,
                         int32_t* expert_offsets, int32_t* row_of, size_t T, size_t H, size_t E, size_t topk) {
    const int pairs = (int)(T * topk);
    hipLaunchKernelGGL(place, dim3((unsigned)E), dim3(THREADS), 0, 0, topk_ids, expert_offsets, row_of, pairs, (int)E);
    hipLaunchKernelGGL(copy, dim3((unsigned)((pairs + PAIRS_PER_BLOCK - 1) / PAIRS_PER_BLOCK)), dim3(THREADS), 0, 0,
                       reinterpret_cast<const uint16_t*>(x), row_of, reinterpret_cast<uint16_t*>(x_sorted), pairs,
                       (int)H, (int)topk);
}
