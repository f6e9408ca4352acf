#include <cuda_bf16.h>

// The sequential recurrence in float32: a warp per column p of one (batch, head), its lanes holding
// the state row S[p][n] for n = lane, lane + 32, ... (dstate / 32 of them), four warps a block.
// Each position: S = exp(dt A) S + dt x B^T, then y = S . C + D x, the dot product summed across the
// warp by shuffles.
constexpr int WARPS = 4, MAXR = 4;  // dstate <= 128

__global__ void ssd_scan(const __nv_bfloat16* x, const float* dt, const float* A, const __nv_bfloat16* B,
                         const __nv_bfloat16* C, const float* D, __nv_bfloat16* y, int L, int H, int P, int G, int N) {
    const int lane = threadIdx.x % 32, p = blockIdx.x * WARPS + threadIdx.x / 32;
    const int h = blockIdx.y, b = blockIdx.z, g = h / (H / G), R = N / 32;
    const float a_h = A[h], d_h = D[h];
    float s[MAXR];
    for (int r = 0; r < MAXR; ++r) s[r] = 0.0f;
    for (int t = 0; t < L; ++t) {
        const size_t bt = (size_t)b * L + t;
        const float step = dt[bt * H + h];
        const float decay = expf(step * a_h);
        const float xp = __bfloat162float(x[(bt * H + h) * P + p]);
        const float u = step * xp;
        const __nv_bfloat16* brow = B + (bt * G + g) * N;
        const __nv_bfloat16* crow = C + (bt * G + g) * N;
        float acc = 0.0f;
        for (int r = 0; r < MAXR; ++r)
            if (r < R) {
                s[r] = decay * s[r] + u * __bfloat162float(brow[32 * r + lane]);
                acc += s[r] * __bfloat162float(crow[32 * r + lane]);
            }
        for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
        if (lane == 0) y[(bt * H + h) * P + p] = __float2bfloat16(acc + d_h * xp);
    }
}

extern "C" void solution(const __nv_bfloat16* x, const float* dt, const float* A, const __nv_bfloat16* B,
                         const __nv_bfloat16* C, const float* D, __nv_bfloat16* y, size_t batch, size_t seqlen,
                         size_t nheads, size_t headdim, size_t ngroups, size_t dstate) {
    const dim3 grid((unsigned)(headdim / WARPS), (unsigned)nheads, (unsigned)batch);
    ssd_scan<<<grid, 32 * WARPS>>>(x, dt, A, B, C, D, y, (int)seqlen, (int)nheads, (int)headdim, (int)ngroups,
                                   (int)dstate);
}
