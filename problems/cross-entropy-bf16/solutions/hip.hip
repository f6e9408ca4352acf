#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// One block of 512 threads (eight wave64 wavefronts) per token and one pass over its logits: an
// online log-sum-exp, each thread keeping a running maximum m and a sum s of e^(x - m) (rescaled
// when m grows), eight logits per 16-byte load where the row is 16-byte aligned. The wavefront
// merges its (m, s) pairs through __shfl_xor, the eight wavefronts through LDS, and the first
// thread writes m + log(s) - x[target].
constexpr int kThreads = 512;
constexpr int kWaves = kThreads / 64;

__device__ inline void add(float& m, float& s, float v) {
    if (v > m) {
        s = s * __expf(m - v) + 1.0f;
        m = v;
    } else {
        s += __expf(v - m);
    }
}

__device__ inline void merge(float& m, float& s, float m2, float s2) {
    const float mm = fmaxf(m, m2);
    if (mm == -INFINITY) return;
    s = s * __expf(m - mm) + s2 * __expf(m2 - mm);
    m = mm;
}

__device__ inline float low(unsigned w) { return __uint_as_float(w << 16); }
__device__ inline float high(unsigned w) { return __uint_as_float(w & 0xffff0000u); }

__global__ void __launch_bounds__(kThreads) cross_entropy(const __hip_bfloat16* logits, const int* targets,
                                                          float* loss, size_t vocab) {
    __shared__ float wave_m[kWaves], wave_s[kWaves];
    const __hip_bfloat16* row = logits + blockIdx.x * vocab;
    float m = -INFINITY, s = 0.0f;
    size_t done = 0;
    if (vocab % 8 == 0) {  // then every row starts 16-byte aligned
        const uint4* row8 = reinterpret_cast<const uint4*>(row);
        for (size_t k = threadIdx.x; k < vocab / 8; k += kThreads) {
            const uint4 w = row8[k];
            add(m, s, low(w.x));
            add(m, s, high(w.x));
            add(m, s, low(w.y));
            add(m, s, high(w.y));
            add(m, s, low(w.z));
            add(m, s, high(w.z));
            add(m, s, low(w.w));
            add(m, s, high(w.w));
        }
        done = vocab;
    }
    for (size_t j = done + threadIdx.x; j < vocab; j += kThreads) add(m, s, __bfloat162float(row[j]));
    for (int mask = 32; mask > 0; mask >>= 1) merge(m, s, __shfl_xor(m, mask), __shfl_xor(s, mask));
    if (threadIdx.x % 64 == 0) {
        wave_m[threadIdx.x / 64] = m;
        wave_s[threadIdx.x / 64] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < kWaves; ++w) merge(m, s, wave_m[w], wave_s[w]);
        loss[blockIdx.x] = m + __logf(s) - __bfloat162float(row[targets[blockIdx.x]]);
    }
}

extern "C" void solution(const __hip_bfloat16* logits, const int* targets, float* loss, size_t tokens, size_t vocab) {
    hipLaunchKernelGGL(cross_entropy, dim3((unsigned)tokens), dim3(kThreads), 0, 0, logits, targets, loss, vocab);
}
