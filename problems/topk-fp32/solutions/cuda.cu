#include <cuda_runtime.h>

// One block of 256 threads (eight 32-lane warps) per row, a radix select on order-preserving
// 32-bit keys: four passes over the row build a 256-bin histogram of one 8-bit digit (LDS
// atomics) among the keys that match the digits chosen so far, and fix the next digit of T, the
// k-th largest key. Then the keys above T are gathered (an LDS counter), the first `remaining`
// keys equal to T in index order are gathered chunk by chunk (a warp ballot and popcount rank
// each tie among those before it), and the k candidates are ranked against each other
// (value descending, index ascending) and written in order.
constexpr int kThreads = 256;
constexpr int kWaves = kThreads / 32;
constexpr int kMaxK = 256;

// Ascending keys for ascending floats: flip every bit of a negative number, the sign of a positive.
__device__ inline unsigned ordered(float v) {
    const unsigned u = __float_as_uint(v);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__global__ void topk(const float* x, float* values, int* indices, size_t cols,
                                                 unsigned k) {
    __shared__ unsigned hist[256];
    __shared__ unsigned sel_key[kMaxK];
    __shared__ int sel_idx[kMaxK];
    __shared__ unsigned s_prefix, s_remaining, s_count;
    __shared__ unsigned wave_ties[kWaves];
    const float* row = x + blockIdx.x * cols;
    const int tid = threadIdx.x, lane = tid % 32, wave = tid / 32;

    // T digit by digit, most significant first; `remaining`: how many keys equal to the prefix so
    // far still belong to the top k.
    unsigned prefix = 0, mask = 0, remaining = k;
    for (int shift = 24; shift >= 0; shift -= 8) {
        hist[tid] = 0;
        __syncthreads();
        for (size_t j = tid; j < cols; j += kThreads) {
            const unsigned key = ordered(row[j]);
            if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & 255u], 1u);
        }
        __syncthreads();
        if (tid == 0) {
            unsigned above = 0;
            int digit = 255;
            for (; digit > 0 && above + hist[digit] < remaining; --digit) above += hist[digit];
            s_prefix = prefix | (unsigned)digit << shift;
            s_remaining = remaining - above;
        }
        __syncthreads();
        prefix = s_prefix;
        remaining = s_remaining;
        mask |= 255u << shift;
    }
    const unsigned threshold = prefix, above = k - remaining;

    // Every key above the threshold (fewer than k of them), in any order.
    if (tid == 0) s_count = 0;
    __syncthreads();
    for (size_t j = tid; j < cols; j += kThreads) {
        const unsigned key = ordered(row[j]);
        if (key > threshold) {
            const unsigned slot = atomicAdd(&s_count, 1u);
            sel_key[slot] = key;
            sel_idx[slot] = (int)j;
        }
    }
    // The first `remaining` keys equal to the threshold, in index order: 256 columns per step,
    // each tie ranked by the ties before it in its warp (ballot) and in earlier warps.
    unsigned taken = 0;  // the same in every thread: the loop ends for all at once
    for (size_t base = 0; base < cols && taken < remaining; base += kThreads) {
        const size_t j = base + tid;
        const bool tie = j < cols && ordered(row[j]) == threshold;
        const unsigned ballot = __ballot_sync(0xffffffffu, tie);
        const unsigned before = (unsigned)__popc(ballot & ((1u << lane) - 1u));
        if (lane == 0) wave_ties[wave] = (unsigned)__popc(ballot);
        __syncthreads();
        unsigned offset = taken, step = 0;
        for (int w = 0; w < kWaves; ++w) {
            if (w < wave) offset += wave_ties[w];
            step += wave_ties[w];
        }
        if (tie && offset + before < remaining) {
            sel_key[above + offset + before] = threshold;
            sel_idx[above + offset + before] = (int)j;
        }
        taken += step;
        __syncthreads();  // wave_ties is rewritten in the next step
    }
    __syncthreads();

    // Rank each candidate among the k: larger keys first, equal keys by index.
    if ((unsigned)tid < k) {
        const unsigned key = sel_key[tid];
        const int idx = sel_idx[tid];
        unsigned rank = 0;
        for (unsigned j = 0; j < k; ++j) rank += sel_key[j] > key || (sel_key[j] == key && sel_idx[j] < idx);
        values[blockIdx.x * k + rank] = row[idx];
        indices[blockIdx.x * k + rank] = idx;
    }
}

extern "C" void solution(const float* x, float* values, int* indices, size_t rows, size_t cols, size_t k) {
    topk<<<(unsigned)rows, kThreads>>>(x, values, indices, cols, (unsigned)k);
}
