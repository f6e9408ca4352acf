#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <math.h>
#include <stdint.h>

// One block of 256 threads (four 64-lane wavefronts) per 32 tokens. The logits, 32 tokens x 256 experts,
// come from MI300X's matrix cores: wavefront w computes experts 64 w .. 64 w + 63 as two 32x32 tiles of
// __builtin_amdgcn_mfma_f32_32x32x8bf16_1k (float32 accumulators), x and W (both contiguous along the
// hidden dimension) staged in LDS 32 columns at a time, zero-padded at the edges. The logits then go to
// LDS, and one thread per token routes it (sigmoid, group scores, top 4 groups, top 8 experts; every
// selection scans upwards and takes a strictly larger value, so ties go to the lower index).
// Register layout (CDNA3, 32x32x8): lane l holds x[l % 32][4 (l / 32) + e] and W[l % 32][4 (l / 32) + e],
// e = 0..3, and the logit of token 8 (r / 4) + 4 (l / 32) + r % 4, expert l % 32 in accumulator r.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int E = 256, GROUPS = 8, PER_GROUP = E / GROUPS, TOP_GROUPS = 4, TOP_K = 8;
constexpr int BT = 32, BK = 32, LD = BK + 4, LL = E + 1;  // LDS rows padded to spread the banks
constexpr float SCALE = 2.5f;

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

__global__ void __launch_bounds__(256) gate(const short* x, const short* W, const float* bias, float* weights,
                                            int32_t* ids, int T, int H) {
    __shared__ __align__(16) short xs[BT * LD], ws[E * LD];
    __shared__ float logits[BT * LL];
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64, i = lane % 32, q = lane / 32;
    const int t0 = blockIdx.x * BT;
    floatx16 acc[2];
    for (int u = 0; u < 2; ++u)
        for (int r = 0; r < 16; ++r) acc[u][r] = 0.0f;
    for (int k0 = 0; k0 < H; k0 += BK) {
        {  // x: thread t loads token t / 8, columns (t % 8) * 4 .. + 3
            const int r = tid / 8, c = (tid % 8) * 4;
            for (int e = 0; e < 4; ++e)
                xs[r * LD + c + e] = t0 + r < T && k0 + c + e < H ? x[(size_t)(t0 + r) * H + k0 + c + e] : (short)0;
        }
        for (int e = 0; e < BK; ++e)  // W: thread t loads expert t's 32 columns
            ws[tid * LD + e] = k0 + e < H ? W[(size_t)tid * H + k0 + e] : (short)0;
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 8) {
            const bf16x4 a = *(const bf16x4*)(xs + i * LD + kk + 4 * q);
            for (int u = 0; u < 2; ++u) {
                const bf16x4 b = *(const bf16x4*)(ws + (64 * wave + 32 * u + i) * LD + kk + 4 * q);
                acc[u] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, acc[u], 0, 0, 0);
            }
        }
        __syncthreads();
    }
    for (int u = 0; u < 2; ++u)
        for (int r = 0; r < 16; ++r) logits[(8 * (r / 4) + 4 * q + r % 4) * LL + 64 * wave + 32 * u + i] = acc[u][r];
    __syncthreads();
    if (tid < BT && t0 + tid < T)
        route(logits + tid * LL, bias, weights + (size_t)(t0 + tid) * TOP_K, ids + (size_t)(t0 + tid) * TOP_K);
}

extern "C" void solution(const __hip_bfloat16* x, const __hip_bfloat16* W, const float* bias, float* weights,
                         int32_t* ids, size_t T, size_t H) {
    hipLaunchKernelGGL(gate, dim3((unsigned)((T + BT - 1) / BT)), dim3(256), 0, 0, reinterpret_cast<const short*>(x),
                       reinterpret_cast<const short*>(W), bias, weights, ids, (int)T, (int)H);
}
