#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

// One 256-thread workgroup per row (token). Pass 1: h = bf16(x + residual), stored as the new
// residual; each thread sums h^2 and keeps the largest |h w| over its strided elements; the four
// wavefronts reduce both with __shfl_xor, then through shared memory. max|h w| rstd is the row's
// largest |y| (rounding is monotonic), so one pass finds it. Pass 2 rereads h (just written, in
// cache) and stores q = fp8(h w rstd / scale).
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) add_rmsnorm_quant(const __hip_bfloat16* x, const __hip_bfloat16* residual,
                                                              const __hip_bfloat16* weight, __hip_bfloat16* residual_out,
                                                              __hip_fp8_e4m3_fnuz* q, float* scale, size_t cols) {
    __shared__ float partial_sq[kThreads / 64], partial_max[kThreads / 64];
    __shared__ float row_rstd, row_scale;
    const size_t first = (size_t)blockIdx.x * cols;
    float squares = 0.0f, amax = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += kThreads) {
        const __hip_bfloat16 h = __float2bfloat16(__bfloat162float(x[first + j]) + __bfloat162float(residual[first + j]));
        residual_out[first + j] = h;
        const float v = __bfloat162float(h);
        squares += v * v;
        amax = fmaxf(amax, fabsf(v * __bfloat162float(weight[j])));
    }
    for (int mask = 32; mask > 0; mask >>= 1) {
        squares += __shfl_xor(squares, mask);
        amax = fmaxf(amax, __shfl_xor(amax, mask));
    }
    if (threadIdx.x % 64 == 0) {
        partial_sq[threadIdx.x / 64] = squares;
        partial_max[threadIdx.x / 64] = amax;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f, largest = 0.0f;
        for (int w = 0; w < kThreads / 64; ++w) {
            total += partial_sq[w];
            largest = fmaxf(largest, partial_max[w]);
        }
        row_rstd = rsqrtf(total / (float)cols + 1e-5f);
        row_scale = largest * row_rstd / 240.0f;
        scale[blockIdx.x] = row_scale;
    }
    __syncthreads();
    const float rstd = row_rstd, s = row_scale;
    for (size_t j = threadIdx.x; j < cols; j += kThreads) {
        const float y = __bfloat162float(residual_out[first + j]) * __bfloat162float(weight[j]) * rstd;
        q[first + j] = __hip_fp8_e4m3_fnuz(y / s);
    }
}

extern "C" void solution(const __hip_bfloat16* x, const __hip_bfloat16* residual, const __hip_bfloat16* weight,
                         __hip_bfloat16* residual_out, __hip_fp8_e4m3_fnuz* q, float* scale, size_t rows,
                         size_t cols) {
    if (rows == 0) return;
    hipLaunchKernelGGL(add_rmsnorm_quant, dim3((unsigned)rows), dim3(kThreads), 0, 0, x, residual, weight,
                       residual_out, q, scale, cols);
}
