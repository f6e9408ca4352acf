#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <stdint.h>

// Two kernels. The first finds every position's argmax, one block per row of logits (all K + 1
// positions of every sequence at once: the GPU fills up even at small batches), and writes it into
// output_tokens; the second, a thread per sequence, compares them with the draft tokens, counts the
// accepted ones and blanks the positions after the first mismatch with -1.
constexpr int kThreads = 256;
constexpr int kWaves = kThreads / 64;

__device__ inline float low(unsigned w) { return __uint_as_float(w << 16); }
__device__ inline float high(unsigned w) { return __uint_as_float(w & 0xffff0000u); }

// Keeps the larger value; of equal ones, the lower index.
__device__ inline void take(float& best, unsigned& at, float x, unsigned j) {
    if (x > best || (x == best && j < at)) {
        best = x;
        at = j;
    }
}

__global__ void __launch_bounds__(kThreads) row_argmax(const __hip_bfloat16* logits, int32_t* output_tokens,
                                                       size_t V) {
    __shared__ float wave_best[kWaves];
    __shared__ unsigned wave_at[kWaves];
    const __hip_bfloat16* row = logits + (size_t)blockIdx.x * V;
    float best = -INFINITY;
    unsigned at = 0xffffffffu;
    size_t done = 0;
    if (V % 8 == 0) {  // then every row starts 16-byte aligned: eight logits per load
        const uint4* row8 = reinterpret_cast<const uint4*>(row);
        for (size_t k = threadIdx.x; k < V / 8; k += kThreads) {
            const uint4 w = row8[k];
            const unsigned j = (unsigned)(8 * k);
            take(best, at, low(w.x), j);
            take(best, at, high(w.x), j + 1);
            take(best, at, low(w.y), j + 2);
            take(best, at, high(w.y), j + 3);
            take(best, at, low(w.z), j + 4);
            take(best, at, high(w.z), j + 5);
            take(best, at, low(w.w), j + 6);
            take(best, at, high(w.w), j + 7);
        }
        done = V;
    }
    for (size_t j = done + threadIdx.x; j < V; j += kThreads) take(best, at, __bfloat162float(row[j]), (unsigned)j);
    for (int mask = 32; mask > 0; mask >>= 1) take(best, at, __shfl_xor(best, mask), __shfl_xor(at, mask));
    if (threadIdx.x % 64 == 0) {
        wave_best[threadIdx.x / 64] = best;
        wave_at[threadIdx.x / 64] = at;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < kWaves; ++w) take(best, at, wave_best[w], wave_at[w]);
        output_tokens[blockIdx.x] = (int32_t)at;
    }
}

__global__ void accept(const int32_t* draft_tokens, int32_t* accepted, int32_t* output_tokens, size_t B, size_t K) {
    const size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    int32_t* out = output_tokens + b * (K + 1);
    size_t i = 0;
    while (i < K && out[i] == draft_tokens[b * K + i]) ++i;
    accepted[b] = (int32_t)i;
    for (size_t j = i + 1; j <= K; ++j) out[j] = -1;
}

extern "C" void solution(const __hip_bfloat16* target_logits, const int32_t* draft_tokens, int32_t* accepted,
                         int32_t* output_tokens, size_t B, size_t K, size_t V) {
    hipLaunchKernelGGL(row_argmax, dim3((unsigned)(B * (K + 1))), dim3(kThreads), 0, 0, target_logits, output_tokens, V);
    hipLaunchKernelGGL(accept, dim3((unsigned)((B + 255) / 256)), dim3(256), 0, 0, draft_tokens, accepted, output_tokens,
                       B, K);
}
