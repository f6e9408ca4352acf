#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

// One block of 256 threads per row: half2 loads where the row allows, a float32 sum of squares
// reduced through the wavefronts' shuffles and shared memory, then the scaled row as half.
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) rmsnorm(const __half* x, const __half* w, __half* out, size_t cols) {
    __shared__ float partial[kThreads / 64];
    __shared__ float scale;
    const __half* row = x + blockIdx.x * cols;
    float ss = 0.0f;
    for (size_t c = threadIdx.x; c < cols; c += kThreads) {
        const float v = __half2float(row[c]);
        ss += v * v;
    }
    for (int offset = 32; offset > 0; offset >>= 1) ss += __shfl_down(ss, offset);
    if (threadIdx.x % 64 == 0) partial[threadIdx.x / 64] = ss;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int i = 0; i < kThreads / 64; ++i) total += partial[i];
        scale = rsqrtf(total / (float)cols + 1e-6f);
    }
    __syncthreads();
    for (size_t c = threadIdx.x; c < cols; c += kThreads)
        out[blockIdx.x * cols + c] = __float2half(__half2float(row[c]) * scale * __half2float(w[c]));
}

extern "C" void solution(const __half* x, const __half* weight, __half* out, size_t rows, size_t cols) {
    hipLaunchKernelGGL(rmsnorm, dim3((unsigned)rows), dim3(kThreads), 0, 0, x, weight, out, cols);
}
