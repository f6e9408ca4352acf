#include <cuda_runtime.h>
#include <cuda_bf16.h>

// Two kernels. dx: one 256-thread block per row; c1 = sum of w dy x_hat and c2 = sum of w dy by
// __shfl_xor_sync within each warp, then shared memory across the eight; each thread then writes its
// strided elements. dweight and dbias: one thread per column looping over the rows (neighbouring
// threads read neighbouring columns: coalesced), float32 sums in row order.
constexpr int kThreads = 256;

__global__ void layernorm_bwd_dx(const __nv_bfloat16* dy, const __nv_bfloat16* x,
                                                             const __nv_bfloat16* weight, const float* mean,
                                                             const float* rstd, __nv_bfloat16* dx, size_t cols) {
    __shared__ float partial[2][kThreads / 32];
    __shared__ float row_c[2];
    const size_t first = (size_t)blockIdx.x * cols;
    const float mu = mean[blockIdx.x], s = rstd[blockIdx.x];
    float a = 0.0f, b = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += kThreads) {
        const float wdy = __bfloat162float(weight[j]) * __bfloat162float(dy[first + j]);
        a += wdy * ((__bfloat162float(x[first + j]) - mu) * s);
        b += wdy;
    }
    for (int mask = 16; mask > 0; mask >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, mask);
        b += __shfl_xor_sync(0xffffffffu, b, mask);
    }
    if (threadIdx.x % 32 == 0) {
        partial[0][threadIdx.x / 32] = a;
        partial[1][threadIdx.x / 32] = b;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float ta = 0.0f, tb = 0.0f;
        for (int w = 0; w < kThreads / 32; ++w) {
            ta += partial[0][w];
            tb += partial[1][w];
        }
        row_c[0] = ta / (float)cols;
        row_c[1] = tb / (float)cols;
    }
    __syncthreads();
    const float c1 = row_c[0], c2 = row_c[1];
    for (size_t j = threadIdx.x; j < cols; j += kThreads) {
        const float xhat = (__bfloat162float(x[first + j]) - mu) * s;
        const float wdy = __bfloat162float(weight[j]) * __bfloat162float(dy[first + j]);
        dx[first + j] = __float2bfloat16(s * (wdy - xhat * c1 - c2));
    }
}

__global__ void layernorm_bwd_dweight(const __nv_bfloat16* dy, const __nv_bfloat16* x, const float* mean,
                                      const float* rstd, float* dweight, float* dbias, size_t rows, size_t cols) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    float dw = 0.0f, db = 0.0f;
    for (size_t r = 0; r < rows; ++r) {
        const float g = __bfloat162float(dy[r * cols + j]);
        dw += g * ((__bfloat162float(x[r * cols + j]) - mean[r]) * rstd[r]);
        db += g;
    }
    dweight[j] = dw;
    dbias[j] = db;
}

extern "C" void solution(const __nv_bfloat16* dy, const __nv_bfloat16* x, const __nv_bfloat16* weight,
                         const float* mean, const float* rstd, __nv_bfloat16* dx, float* dweight, float* dbias,
                         size_t rows, size_t cols) {
    if (rows > 0) layernorm_bwd_dx<<<(unsigned)rows, kThreads>>>(dy, x, weight, mean, rstd, dx, cols);
    layernorm_bwd_dweight<<<(unsigned)((cols + 255) / 256), 256>>>(dy, x, mean, rstd, dweight, dbias, rows, cols);
}
