#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cmath>

// Causal attention backward on MI300X's matrix cores (__builtin_amdgcn_mfma_f32_32x32x8bf16_1k), in
// two kernels of one 64-lane wavefront per block, FlashAttention-2's split without atomics:
// - dkdv: a block of 32 keys keeps K and V as B operands in registers and walks the blocks of 32
//   queries at or after it (staged in LDS): S = Q K^T and dP = dO V^T, P = exp2(S log2(e) / sqrt(D)
//   - LSE log2(e)), dS = P (dP - D_i), then dV^T += dO^T P and dK^T += Q^T dS.
// - dq: a block of 32 queries keeps Q and dO in registers and walks the blocks of 32 keys up to
//   its last query (staged in LDS): S^T = K Q^T, dP^T = V dO^T, dS^T, then dQ^T += K^T dS^T.
// A 32x32 accumulator holds C[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] in lane l's register r: its
// registers 4c..4c+3, rounded to bfloat16, are exactly the B operand of a product that sums over C's
// rows 8c..8c+7 (b[e] = B[8c + 4 (l / 32) + e][l % 32]). So the product that sums over queries (dV,
// dK) wants P with queries as rows (S = Q K^T), and the one that sums over keys (dQ) wants keys as
// rows (S^T = K Q^T): P and dS never leave the registers. D_i = dO_i . O_i is computed in float32
// where it is needed (exact on the problem's inputs, and cheap next to the products).
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int T = 32;
constexpr float LOG2E = 1.4426950408889634f;

__device__ inline float bf2f(short x) { return __uint_as_float((unsigned)(unsigned short)x << 16); }
__device__ inline short f2bf(float x) { return (short)__bfloat16_as_ushort(__float2bfloat16(x)); }

// 32 rows of D from row r0 of one head into LDS rows of LD shorts, zeros past S.
template <int D, int LD>
__device__ inline void stage(short* dst, const short* src, size_t row0, int r0, int S, size_t stride) {
    for (int idx = threadIdx.x; idx < T * D / 4; idx += 64) {
        const int r = idx / (D / 4), d = idx % (D / 4) * 4;
        bf16x4 x = {};
        if (r0 + r < S) x = *(const bf16x4*)(src + (row0 + r) * stride + d);
        *(bf16x4*)(dst + r * LD + d) = x;
    }
}

template <int D>
__device__ inline float row_delta(const short* dO, const short* O, size_t at) {
    float sum = 0.0f;
    for (int d = 0; d < D; ++d) sum += bf2f(dO[at + d]) * bf2f(O[at + d]);
    return sum;
}

template <int D>
__global__ void __launch_bounds__(64) dkdv(const short* Q, const short* K, const short* V, const short* O,
                                           const short* dO, const float* LSE, __hip_bfloat16* dK, __hip_bfloat16* dV,
                                           int S, int H, float scale) {
    constexpr int LD = D + 4;  // LDS rows padded to spread the banks
    __shared__ __align__(16) short Qs[T * LD], dOs[T * LD];
    __shared__ float lse2[T], delta[T];
    const int lane = threadIdx.x, col = lane % 32, half = lane / 32;
    const int b = blockIdx.z, h = blockIdx.y, j0 = blockIdx.x * T, key = j0 + col;
    const size_t stride = (size_t)H * D, row0 = (size_t)b * S;  // element (b, i, h, d): (row0 + i) * stride + h D + d
    Q += h * D, K += h * D, V += h * D, O += h * D, dO += h * D;
    const float scale_log2 = scale * LOG2E;
    bf16x4 kb[D / 8], vb[D / 8];  // B operands of Q K^T and dO V^T: K[key][8 s + 4 half + e]
    for (int s = 0; s < D / 8; ++s) {
        kb[s] = bf16x4{};
        vb[s] = bf16x4{};
        if (key < S) {
            kb[s] = *(const bf16x4*)(K + (row0 + key) * stride + 8 * s + 4 * half);
            vb[s] = *(const bf16x4*)(V + (row0 + key) * stride + 8 * s + 4 * half);
        }
    }
    floatx16 dk[D / 32], dv[D / 32];
    for (int t = 0; t < D / 32; ++t)
        for (int r = 0; r < 16; ++r) dk[t][r] = dv[t][r] = 0.0f;
    for (int i0 = j0; i0 < S; i0 += T) {  // causal: only queries i >= j0 see these keys
        stage<D, LD>(Qs, Q, row0 + i0, i0, S, stride);
        stage<D, LD>(dOs, dO, row0 + i0, i0, S, stride);
        if (lane < T) {
            const int i = i0 + lane;
            lse2[lane] = i < S ? LSE[((size_t)b * H + h) * S + i] * LOG2E : 0.0f;
            delta[lane] = i < S ? row_delta<D>(dO, O, (row0 + i) * stride) : 0.0f;
        }
        __syncthreads();
        floatx16 st, dpt;  // [query 8 (r / 4) + 4 half + r % 4][key col]
        for (int r = 0; r < 16; ++r) st[r] = dpt[r] = 0.0f;
        for (int s = 0; s < D / 8; ++s) {
            const bf16x4 qa = *(const bf16x4*)(Qs + col * LD + 8 * s + 4 * half);
            const bf16x4 da = *(const bf16x4*)(dOs + col * LD + 8 * s + 4 * half);
            st = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(qa, kb[s], st, 0, 0, 0);
            dpt = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(da, vb[s], dpt, 0, 0, 0);
        }
        bf16x4 pb[4], dsb[4];
        for (int r = 0; r < 16; ++r) {
            const int row = 8 * (r / 4) + 4 * half + r % 4, i = i0 + row;
            const float p = i < S && key <= i ? exp2f(st[r] * scale_log2 - lse2[row]) : 0.0f;
            pb[r / 4][r % 4] = f2bf(p);
            dsb[r / 4][r % 4] = f2bf(p * (dpt[r] - delta[row]));
        }
        for (int t = 0; t < D / 32; ++t)
            for (int c = 0; c < 4; ++c) {
                bf16x4 doa, qa;  // A operands dO^T and Q^T: [d 32 t + col][query 8 c + 4 half + e]
                for (int e = 0; e < 4; ++e) {
                    doa[e] = dOs[(8 * c + 4 * half + e) * LD + 32 * t + col];
                    qa[e] = Qs[(8 * c + 4 * half + e) * LD + 32 * t + col];
                }
                dv[t] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(doa, pb[c], dv[t], 0, 0, 0);
                dk[t] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(qa, dsb[c], dk[t], 0, 0, 0);
            }
        __syncthreads();
    }
    if (key < S) {
        const size_t at = (row0 + key) * stride + (size_t)h * D;
        for (int t = 0; t < D / 32; ++t)
            for (int r = 0; r < 16; ++r) {
                const int d = 32 * t + 8 * (r / 4) + 4 * half + r % 4;
                dV[at + d] = __float2bfloat16(dv[t][r]);
                dK[at + d] = __float2bfloat16(dk[t][r] * scale);
            }
    }
}

template <int D>
__global__ void __launch_bounds__(64) dq(const short* Q, const short* K, const short* V, const short* O,
                                         const short* dO, const float* LSE, __hip_bfloat16* dQ, int S, int H,
                                         float scale) {
    constexpr int LD = D + 4;
    __shared__ __align__(16) short Ks[T * LD], Vs[T * LD];
    const int lane = threadIdx.x, col = lane % 32, half = lane / 32;
    const int b = blockIdx.z, h = blockIdx.y, i0 = blockIdx.x * T, query = i0 + col;
    const size_t stride = (size_t)H * D, row0 = (size_t)b * S;
    Q += h * D, K += h * D, V += h * D, O += h * D, dO += h * D;
    const float scale_log2 = scale * LOG2E;
    bf16x4 qb[D / 8], dob[D / 8];  // B operands of K Q^T and V dO^T: Q[query][8 s + 4 half + e]
    for (int s = 0; s < D / 8; ++s) {
        qb[s] = bf16x4{};
        dob[s] = bf16x4{};
        if (query < S) {
            qb[s] = *(const bf16x4*)(Q + (row0 + query) * stride + 8 * s + 4 * half);
            dob[s] = *(const bf16x4*)(dO + (row0 + query) * stride + 8 * s + 4 * half);
        }
    }
    const float lse2 = query < S ? LSE[((size_t)b * H + h) * S + query] * LOG2E : 0.0f;
    const float delta = query < S ? row_delta<D>(dO, O, (row0 + query) * stride) : 0.0f;
    floatx16 acc[D / 32];
    for (int t = 0; t < D / 32; ++t)
        for (int r = 0; r < 16; ++r) acc[t][r] = 0.0f;
    const int last = i0 + T < S ? i0 + T : S;  // causal: keys up to the block's last query
    for (int j0 = 0; j0 < last; j0 += T) {
        stage<D, LD>(Ks, K, row0 + j0, j0, S, stride);
        stage<D, LD>(Vs, V, row0 + j0, j0, S, stride);
        __syncthreads();
        floatx16 st, dpt;  // [key 8 (r / 4) + 4 half + r % 4][query col]
        for (int r = 0; r < 16; ++r) st[r] = dpt[r] = 0.0f;
        for (int s = 0; s < D / 8; ++s) {
            const bf16x4 ka = *(const bf16x4*)(Ks + col * LD + 8 * s + 4 * half);
            const bf16x4 va = *(const bf16x4*)(Vs + col * LD + 8 * s + 4 * half);
            st = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(ka, qb[s], st, 0, 0, 0);
            dpt = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(va, dob[s], dpt, 0, 0, 0);
        }
        bf16x4 dsb[4];
        for (int r = 0; r < 16; ++r) {
            const int key = j0 + 8 * (r / 4) + 4 * half + r % 4;
            const float p = query < S && key <= query ? exp2f(st[r] * scale_log2 - lse2) : 0.0f;
            dsb[r / 4][r % 4] = f2bf(p * (dpt[r] - delta));
        }
        for (int t = 0; t < D / 32; ++t)
            for (int c = 0; c < 4; ++c) {
                bf16x4 ka;  // A operand K^T: [d 32 t + col][key 8 c + 4 half + e]
                for (int e = 0; e < 4; ++e) ka[e] = Ks[(8 * c + 4 * half + e) * LD + 32 * t + col];
                acc[t] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(ka, dsb[c], acc[t], 0, 0, 0);
            }
        __syncthreads();
    }
    if (query < S) {
        const size_t at = (row0 + query) * stride + (size_t)h * D;
        for (int t = 0; t < D / 32; ++t)
            for (int r = 0; r < 16; ++r) dQ[at + 32 * t + 8 * (r / 4) + 4 * half + r % 4] = __float2bfloat16(acc[t][r] * scale);
    }
}

template <int D>
static void launch(const short* q, const short* k, const short* v, const short* o, const short* dout, const float* lse,
                   __hip_bfloat16* dQ, __hip_bfloat16* dK, __hip_bfloat16* dV, int B, int S, int H) {
    const dim3 grid((unsigned)((S + T - 1) / T), (unsigned)H, (unsigned)B);
    const float scale = 1.0f / sqrtf((float)D);
    hipLaunchKernelGGL(dkdv<D>, grid, dim3(64), 0, 0, q, k, v, o, dout, lse, dK, dV, S, H, scale);
    hipLaunchKernelGGL(dq<D>, grid, dim3(64), 0, 0, q, k, v, o, dout, lse, dQ, S, H, scale);
}

extern "C" void solution(const __hip_bfloat16* Q, const __hip_bfloat16* K, const __hip_bfloat16* V,
                         const __hip_bfloat16* O, const __hip_bfloat16* dO, const float* LSE, __hip_bfloat16* dQ,
                         __hip_bfloat16* dK, __hip_bfloat16* dV, size_t B, size_t S, size_t H, size_t D) {
    const short *q = reinterpret_cast<const short*>(Q), *k = reinterpret_cast<const short*>(K),
                *v = reinterpret_cast<const short*>(V), *o = reinterpret_cast<const short*>(O),
                *dout = reinterpret_cast<const short*>(dO);
    if (D == 64)
        launch<64>(q, k, v, o, dout, LSE, dQ, dK, dV, (int)B, (int)S, (int)H);
    else
        launch<128>(q, k, v, o, dout, LSE, dQ, dK, dV, (int)B, (int)S, (int)H);
}
