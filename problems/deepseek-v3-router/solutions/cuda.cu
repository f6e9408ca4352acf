#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

#include <math.h>
#include <stdint.h>

// One block of 256 threads (8 warps) per 32 tokens. The logits, 32 tokens x 256 experts, come from the
// tensor cores through nvcuda::wmma: warp w computes experts 32 w .. 32 w + 31 as 2x2 m16n16k16 fragments
// (bfloat16 in, float accumulators); W (256 x H, row-major) is the H x 256 operand in column-major order.
// x and W are staged in shared memory 32 columns at a time, zero-padded at the edges. The logits then go
// to shared memory (over W's tile, which is done with), and one thread per token routes it (sigmoid,
// group scores, top 4 groups, top 8 experts; every selection scans upwards and takes a strictly larger
// value, so ties go to the lower index).
using namespace nvcuda;

constexpr int E = 256, GROUPS = 8, PER_GROUP = E / GROUPS, TOP_GROUPS = 4, TOP_K = 8;
constexpr int BT = 32, BK = 32, LD = BK + 8, LL = E + 4;  // rows padded to spread the banks
constexpr float SCALE = 2.5f;
constexpr int W_BYTES = E * LD * 2, LOGIT_BYTES = BT * LL * 4;

__device__ void route(float* s, const float* bias, float* weights, int32_t* ids) {
    for (int e = 0; e < E; ++e) s[e] = 1.0f / (1.0f + expf(-s[e]));  // the logits become the scores
    float group[GROUPS];
    for (int g = 0; g < GROUPS; ++g) {  // the sum of the group's two largest choices (score + bias)
        const int base = g * PER_GROUP;
        int first = base;
        for (int e = base + 1; e < base + PER_GROUP; ++e)
            if (s[e] + bias[e] > s[first] + bias[first]) first = e;
        float second = -INFINITY;
        for (int e = base; e < base + PER_GROUP; ++e)
            if (e != first && s[e] + bias[e] > second) second = s[e] + bias[e];
        group[g] = (s[first] + bias[first]) + second;
    }
    unsigned allowed = 0, chosen[GROUPS] = {};  // bit masks: of groups, and of each group's experts
    for (int n = 0; n < TOP_GROUPS; ++n) {
        int best = -1;
        for (int g = 0; g < GROUPS; ++g)
            if (!(allowed >> g & 1) && (best < 0 || group[g] > group[best])) best = g;
        allowed |= 1u << best;
    }
    for (int n = 0; n < TOP_K; ++n) {
        int best = -1;
        for (int e = 0; e < E; ++e) {
            const int g = e / PER_GROUP, i = e % PER_GROUP;
            if ((allowed >> g & 1) && !(chosen[g] >> i & 1) && (best < 0 || s[e] + bias[e] > s[best] + bias[best]))
                best = e;
        }
        chosen[best / PER_GROUP] |= 1u << (best % PER_GROUP);
    }
    float sum = 0.0f;
    for (int e = 0; e < E; ++e)
        if (chosen[e / PER_GROUP] >> (e % PER_GROUP) & 1) sum += s[e];
    int slot = 0;
    for (int e = 0; e < E; ++e)
        if (chosen[e / PER_GROUP] >> (e % PER_GROUP) & 1) {
            ids[slot] = e;
            weights[slot] = s[e] / sum * SCALE;
            ++slot;
        }
}

__global__ void __launch_bounds__(256) gate(const __nv_bfloat16* x, const __nv_bfloat16* W, const float* bias,
                                            float* weights, int32_t* ids, int T, int H) {
    __shared__ __align__(32) __nv_bfloat16 xs[BT * LD];
    __shared__ __align__(32) unsigned char shared[W_BYTES > LOGIT_BYTES ? W_BYTES : LOGIT_BYTES];
    __nv_bfloat16* ws = reinterpret_cast<__nv_bfloat16*>(shared);
    float* logits = reinterpret_cast<float*>(shared);
    const int tid = threadIdx.x, warp = tid / 32, t0 = blockIdx.x * BT;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int m = 0; m < 2; ++m)
        for (int n = 0; n < 2; ++n) wmma::fill_fragment(acc[m][n], 0.0f);
    for (int k0 = 0; k0 < H; k0 += BK) {
        for (int idx = tid; idx < BT * BK; idx += 256) {  // x tile: 32 tokens x 32 columns
            const int r = idx / BK, c = idx % BK;
            xs[r * LD + c] = t0 + r < T && k0 + c < H ? x[(size_t)(t0 + r) * H + k0 + c] : zero;
        }
        for (int idx = tid; idx < E * BK; idx += 256) {  // W tile: 256 experts x 32 columns
            const int r = idx / BK, c = idx % BK;
            ws[r * LD + c] = k0 + c < H ? W[(size_t)r * H + k0 + c] : zero;
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b[2];
            for (int m = 0; m < 2; ++m) wmma::load_matrix_sync(a[m], xs + 16 * m * LD + kk, LD);
            for (int n = 0; n < 2; ++n) wmma::load_matrix_sync(b[n], ws + (32 * warp + 16 * n) * LD + kk, LD);
            for (int m = 0; m < 2; ++m)
                for (int n = 0; n < 2; ++n) wmma::mma_sync(acc[m][n], a[m], b[n], acc[m][n]);
        }
        __syncthreads();
    }
    for (int m = 0; m < 2; ++m)
        for (int n = 0; n < 2; ++n)
            wmma::store_matrix_sync(logits + 16 * m * LL + 32 * warp + 16 * n, acc[m][n], LL, wmma::mem_row_major);
    __syncthreads();
    if (tid < BT && t0 + tid < T)
        route(logits + tid * LL, bias, weights + (size_t)(t0 + tid) * TOP_K, ids + (size_t)(t0 + tid) * TOP_K);
}

extern "C" void solution(const __nv_bfloat16* x, const __nv_bfloat16* W, const float* bias, float* weights,
                         int32_t* ids, size_t T, size_t H) {
    gate<<<(unsigned)((T + BT - 1) / BT), 256>>>(x, W, bias, weights, ids, (int)T, (int)H);
}
