#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

__global__ void rope(const __hip_bfloat16* x, const int* positions, const float* cos, const float* sin,
                     __hip_bfloat16* out, size_t tokens, size_t heads, size_t head_dim) {
    // TODO: rotate (x[i], x[i + head_dim / 2]) by cos/sin[positions[t]][i], in float
}

extern "C" void solution(const __hip_bfloat16* x, const int* positions, const float* cos, const float* sin,
                         __hip_bfloat16* out, size_t tokens, size_t heads, size_t head_dim, size_t max_pos) {
    // All pointers are device pointers. Launch on the default stream.
}
