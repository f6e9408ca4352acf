#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// One block of 256 threads (four wave64 wavefronts) per token: the position's cos/sin row is read
// once into LDS and shared by every head; then each thread rotates pairs (i, i + head_dim / 2),
// consecutive threads on consecutive i, so a wavefront reads 64 consecutive values of each half.
constexpr int kThreads = 256;
constexpr int kMaxHalf = 1024;  // head_dim up to 2048

__global__ void __launch_bounds__(kThreads) rope(const __hip_bfloat16* x, const int* positions, const float* cos,
                                                 const float* sin, __hip_bfloat16* out, size_t heads,
                                                 size_t head_dim) {
    __shared__ float c[kMaxHalf], s[kMaxHalf];
    const size_t t = blockIdx.x, half = head_dim / 2;
    const size_t pos = (size_t)positions[t];
    for (size_t i = threadIdx.x; i < half; i += kThreads) {
        c[i] = cos[pos * half + i];
        s[i] = sin[pos * half + i];
    }
    __syncthreads();
    const __hip_bfloat16* v = x + t * heads * head_dim;
    __hip_bfloat16* o = out + t * heads * head_dim;
    for (size_t k = threadIdx.x; k < heads * half; k += kThreads) {
        const size_t h = k / half, i = k % half;
        const float x1 = __bfloat162float(v[h * head_dim + i]), x2 = __bfloat162float(v[h * head_dim + i + half]);
        o[h * head_dim + i] = __float2bfloat16(x1 * c[i] - x2 * s[i]);
        o[h * head_dim + i + half] = __float2bfloat16(x2 * c[i] + x1 * s[i]);
    }
}

extern "C" void solution(const __hip_bfloat16* x, const int* positions, const float* cos, const float* sin,
                         __hip_bfloat16* out, size_t tokens, size_t heads, size_t head_dim, size_t max_pos) {
    hipLaunchKernelGGL(rope, dim3((unsigned)tokens), dim3(kThreads), 0, 0, x, positions, cos, sin, out, heads,
                       head_dim);
}
