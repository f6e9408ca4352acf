#include <cuda_bf16.h>

// x, y [((b * L + t) * H + h) * P + p]; dt [(b * L + t) * H + h]; A, D [h]; B, C
// [((b * L + t) * G + g) * N + n], head h reads group g = h / (H / G). headdim and dstate are 32, 64
// or 128.
__global__ void ssd_scan(const __nv_bfloat16* x, const float* dt, const float* A, const __nv_bfloat16* B,
                         const __nv_bfloat16* C, const float* D, __nv_bfloat16* y, size_t seqlen, size_t nheads,
                         size_t headdim, size_t ngroups, size_t dstate) {
    // TODO
}

extern "C" void solution(const __nv_bfloat16* x, const float* dt, const float* A, const __nv_bfloat16* B,
                         const __nv_bfloat16* C, const float* D, __nv_bfloat16* y, size_t batch, size_t seqlen,
                         size_t nheads, size_t headdim, size_t ngroups, size_t dstate) {
    // Every pointer is a device pointer. Launch on the default stream.
}
