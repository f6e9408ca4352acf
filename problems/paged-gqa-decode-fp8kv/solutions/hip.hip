#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>
#include <stdint.h>

// One block per (sequence, KV head): the KV head's keys and values are read once for all the query
// heads that share them (up to kMaxG). Each wavefront takes every kWaves-th token; a lane holds
// kPer of the 128 dimensions, a score is a wavefront sum (__shfl_xor), and every head keeps an
// online softmax (running maximum m, sum l, output o rescaled when m grows). The wavefronts' states
// merge through LDS at the end.
constexpr int kPage = 16, kD = 128;
constexpr int kLanes = 64;
constexpr int kPer = kD / kLanes;
constexpr int kWaves = 8;
constexpr int kThreads = kLanes * kWaves;
constexpr int kMaxG = 8;  // query heads per KV head: 4 in Llama 3 8B, 8 in 70B

// The cache's bytes decoded by hand (sign, 4 exponent bits with bias 8, 3 mantissa bits; 0x80 is
// NaN), the same on both vendors (NVIDIA has no FNUZ type); the scales apply after the sums: q . k8
// is exact (statement), so only the score's two multiplications round.
__device__ inline float fnuz_e4m3(unsigned char b) {
    if (b == 0x80) return __int_as_float(0x7fc00000);
    const int exponent = (b >> 3) & 0xF, mantissa = b & 7;
    const float magnitude = exponent == 0 ? ldexpf((float)mantissa, -10) : ldexpf((float)(8 + mantissa), exponent - 11);
    return (b & 0x80) ? -magnitude : magnitude;
}

__device__ inline float lanes_sum(float x) {
    for (int mask = kLanes / 2; mask > 0; mask >>= 1) x += __shfl_xor(x, mask);
    return x;
}

__global__ void __launch_bounds__(kThreads) decode(const __hip_bfloat16* q, const __hip_fp8_e4m3_fnuz* k_cache,
                                                   const __hip_fp8_e4m3_fnuz* v_cache, const int32_t* block_table,
                                                   const int32_t* seq_lens, __hip_bfloat16* out, int Hq, int Hkv,
                                                   int P, float scale, float k_scale, float v_scale) {
    __shared__ float part_m[kWaves][kMaxG], part_l[kWaves][kMaxG];
    __shared__ float part_o[kWaves][kMaxG][kD];
    const int b = blockIdx.x / Hkv, kvh = blockIdx.x % Hkv, G = Hq / Hkv;
    const int wave = threadIdx.x / kLanes, lane = threadIdx.x % kLanes;
    const int n = seq_lens[b];
    const float qk_scale = scale * k_scale;  // applied to the exact q . k8
    float qf[kMaxG][kPer], m[kMaxG], l[kMaxG], o[kMaxG][kPer];
#pragma unroll
    for (int g = 0; g < kMaxG; ++g) {
        m[g] = -INFINITY;
        l[g] = 0.0f;
#pragma unroll
        for (int e = 0; e < kPer; ++e) {
            qf[g][e] = g < G ? __bfloat162float(q[((size_t)b * Hq + kvh * G + g) * kD + lane * kPer + e]) : 0.0f;
            o[g][e] = 0.0f;
        }
    }
    for (int j = wave; j < n; j += kWaves) {
        const size_t slot =
            (((size_t)block_table[(size_t)b * P + j / kPage] * kPage + j % kPage) * Hkv + kvh) * kD + lane * kPer;
        float kf[kPer], vf[kPer];
#pragma unroll
        for (int e = 0; e < kPer; ++e) {
            kf[e] = fnuz_e4m3(reinterpret_cast<const unsigned char*>(k_cache)[slot + e]);
            vf[e] = fnuz_e4m3(reinterpret_cast<const unsigned char*>(v_cache)[slot + e]);
        }
#pragma unroll
        for (int g = 0; g < kMaxG; ++g) {
            if (g < G) {  // the same for the whole block: no divergence around the shuffles
                float dot = 0.0f;
#pragma unroll
                for (int e = 0; e < kPer; ++e) dot += qf[g][e] * kf[e];
                const float s = lanes_sum(dot) * qk_scale;
                const float m_new = fmaxf(m[g], s);
                const float alpha = __expf(m[g] - m_new);  // 0 on the first token (m = -inf)
                const float p = __expf(s - m_new);
                l[g] = l[g] * alpha + p;
#pragma unroll
                for (int e = 0; e < kPer; ++e) o[g][e] = o[g][e] * alpha + p * vf[e];
                m[g] = m_new;
            }
        }
    }
#pragma unroll
    for (int g = 0; g < kMaxG; ++g) {
        if (lane == 0) {
            part_m[wave][g] = m[g];
            part_l[wave][g] = l[g];
        }
#pragma unroll
        for (int e = 0; e < kPer; ++e) part_o[wave][g][lane * kPer + e] = o[g][e];
    }
    __syncthreads();
    for (int i = threadIdx.x; i < G * kD; i += kThreads) {
        const int g = i / kD, d = i % kD;
        float top = -INFINITY;
        for (int w = 0; w < kWaves; ++w) top = fmaxf(top, part_m[w][g]);
        float sum = 0.0f, acc = 0.0f;
        for (int w = 0; w < kWaves; ++w) {
            const float f = __expf(part_m[w][g] - top);  // 0 for a wavefront that saw no token
            sum += part_l[w][g] * f;
            acc += part_o[w][g][d] * f;
        }
        out[((size_t)b * Hq + kvh * G + g) * kD + d] = __float2bfloat16(acc * v_scale / sum);
    }
}

extern "C" void solution(const __hip_bfloat16* q, const __hip_fp8_e4m3_fnuz* k_cache, const __hip_fp8_e4m3_fnuz* v_cache,
                         const int32_t* block_table, const int32_t* seq_lens, __hip_bfloat16* out, size_t B, size_t Hq,
                         size_t Hkv, size_t P, float scale, float k_scale, float v_scale) {
    hipLaunchKernelGGL(decode, dim3((unsigned)(B * Hkv)), dim3(kThreads), 0, 0, q, k_cache, v_cache, block_table,
                       seq_lens, out, (int)Hq, (int)Hkv, (int)P, scale, k_scale, v_scale);
}
