#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// Two kernels. dx: one 256-thread workgroup per row; S = sum of w dy x rstd by __shfl_xor within each
// wavefront, then shared memory across the four; each thread then writes its strided elements.
// dweight: one thread per column looping over the rows (neighbouring threads read neighbouring
// columns: coalesced), a float32 sum in row order.
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) rmsnorm_bwd_dx(const __hip_bfloat16* dy, const __hip_bfloat16* x,
                                                           const __hip_bfloat16* weight, const float* rstd,
                                                           __hip_bfloat16* dx, size_t cols) {
    __shared__ float partial[kThreads / 64];
    __shared__ float row_mean;
    const size_t first = (size_t)blockIdx.x * cols;
    const float s = rstd[blockIdx.x];
    float dot = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += kThreads)
        dot += __bfloat162float(weight[j]) * __bfloat162float(dy[first + j]) * (__bfloat162float(x[first + j]) * s);
    for (int mask = 32; mask > 0; mask >>= 1) dot += __shfl_xor(dot, mask);
    if (threadIdx.x % 64 == 0) partial[threadIdx.x / 64] = dot;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < kThreads / 64; ++w) total += partial[w];
        row_mean = total / (float)cols;
    }
    __syncthreads();
    const float mean = row_mean;
    for (size_t j = threadIdx.x; j < cols; j += kThreads) {
        const float xhat = __bfloat162float(x[first + j]) * s;
        dx[first + j] = __float2bfloat16(s * (__bfloat162float(weight[j]) * __bfloat162float(dy[first + j]) - xhat * mean));
    }
}

__global__ void rmsnorm_bwd_dweight(const __hip_bfloat16* dy, const __hip_bfloat16* x, const float* rstd,
                                    float* dweight, size_t rows, size_t cols) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    float sum = 0.0f;
    for (size_t r = 0; r < rows; ++r) sum += __bfloat162float(dy[r * cols + j]) * (__bfloat162float(x[r * cols + j]) * rstd[r]);
    dweight[j] = sum;
}

extern "C" void solution(const __hip_bfloat16* dy, const __hip_bfloat16* x, const __hip_bfloat16* weight,
                         const float* rstd, __hip_bfloat16* dx, float* dweight, size_t rows, size_t cols) {
    if (rows > 0) hipLaunchKernelGGL(rmsnorm_bwd_dx, dim3((unsigned)rows), dim3(kThreads), 0, 0, dy, x, weight, rstd, dx, cols);
    hipLaunchKernelGGL(rmsnorm_bwd_dweight, dim3((unsigned)((cols + 255) / 256)), dim3(256), 0, 0, dy, x, rstd, dweight,
                       rows, cols);
}
