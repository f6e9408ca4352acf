#include <cuda_runtime.h>
#include <cuda_bf16.h>

// One thread per pair (token, head, i): the cos/sin values come straight from the cache (L1/L2
// serve the heads of one token).
__global__ void rope(const __nv_bfloat16* x, const int* positions, const float* cos, const float* sin,
                     __nv_bfloat16* out, size_t tokens, size_t heads, size_t head_dim) {
    const size_t half = head_dim / 2;
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= tokens * heads * half) return;
    const size_t i = k % half, th = k / half, t = th / heads;
    const size_t base = th * head_dim, table = (size_t)positions[t] * half + i;
    const float x1 = __bfloat162float(x[base + i]), x2 = __bfloat162float(x[base + i + half]);
    const float c = cos[table], s = sin[table];
    out[base + i] = __float2bfloat16(x1 * c - x2 * s);
    out[base + i + half] = __float2bfloat16(x2 * c + x1 * s);
}

extern "C" void solution(const __nv_bfloat16* x, const int* positions, const float* cos, const float* sin,
                         __nv_bfloat16* out, size_t tokens, size_t heads, size_t head_dim, size_t max_pos) {
    const size_t pairs = tokens * heads * (head_dim / 2);
    rope<<<(unsigned)((pairs + 255) / 256), 256>>>(x, positions, cos, sin, out, tokens, heads, head_dim);
}
