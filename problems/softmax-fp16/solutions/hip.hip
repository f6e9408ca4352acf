#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

// One block of 256 threads (four wave64 wavefronts) per row, and an online softmax: one pass keeps
// a running maximum m and a sum s of e^(x - m) per thread (rescaling s when m grows), the
// wavefront merges its 64 (m, s) pairs through __shfl_xor, the four wavefronts through LDS. A
// second pass writes e^(x - m) / s. Pairs of halves are loaded as __half2 when cols is even.
constexpr int kThreads = 256;
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
    if (mm == -INFINITY) return;  // both empty
    s = s * __expf(m - mm) + s2 * __expf(m2 - mm);
    m = mm;
}

__global__ void __launch_bounds__(kThreads) softmax(const __half* x, __half* out, size_t cols) {
    __shared__ float wave_m[kWaves], wave_s[kWaves];
    const __half* row = x + blockIdx.x * cols;
    __half* o = out + blockIdx.x * cols;
    const bool paired = cols % 2 == 0;
    float m = -INFINITY, s = 0.0f;
    if (paired) {
        const __half2* row2 = reinterpret_cast<const __half2*>(row);
        for (size_t c = threadIdx.x; c < cols / 2; c += kThreads) {
            const float2 v = __half22float2(row2[c]);
            add(m, s, v.x);
            add(m, s, v.y);
        }
    } else {
        for (size_t c = threadIdx.x; c < cols; c += kThreads) add(m, s, __half2float(row[c]));
    }
    for (int mask = 32; mask > 0; mask >>= 1) merge(m, s, __shfl_xor(m, mask), __shfl_xor(s, mask));
    if (threadIdx.x % 64 == 0) {
        wave_m[threadIdx.x / 64] = m;
        wave_s[threadIdx.x / 64] = s;
    }
    __syncthreads();
    m = wave_m[0];
    s = wave_s[0];
    for (int w = 1; w < kWaves; ++w) merge(m, s, wave_m[w], wave_s[w]);
    const float inv = 1.0f / s;
    if (paired) {
        const __half2* row2 = reinterpret_cast<const __half2*>(row);
        __half2* o2 = reinterpret_cast<__half2*>(o);
        for (size_t c = threadIdx.x; c < cols / 2; c += kThreads) {
            const float2 v = __half22float2(row2[c]);
            o2[c] = __floats2half2_rn(__expf(v.x - m) * inv, __expf(v.y - m) * inv);
        }
    } else {
        for (size_t c = threadIdx.x; c < cols; c += kThreads) o[c] = __float2half(__expf(__half2float(row[c]) - m) * inv);
    }
}

extern "C" void solution(const __half* x, __half* out, size_t rows, size_t cols) {
    hipLaunchKernelGGL(softmax, dim3((unsigned)rows), dim3(kThreads), 0, 0, x, out, cols);
}
