#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cmath>

// The chunked (state-space duality) form on MI300X's matrix cores. One 64-lane wavefront per block
// takes 32 columns p of the head dimension of one (batch, head) (the state's rows are independent)
// and walks the sequence 32 positions (a chunk) at a time:
//   scores = C B^T                          __builtin_amdgcn_mfma_f32_32x32x8bf16_1k (exact products)
//   M[t][s] = scores exp(cum_t - cum_s) dt_s for s <= t, cum the chunk's cumulative sum of dt A
//   y = M X + exp(cum_t) C S^T + D x        __builtin_amdgcn_mfma_f32_32x32x2f32 (float32 operands)
//   S = exp(cum_end) S + (X w)^T B,  w_s = dt_s exp(cum_end - cum_s)   (32x32x2f32 again)
// with S (32 x dstate, float32) kept in LDS. Operand layouts (32x32 MFMA, one block): A[i][k] of the
// K = 2 f32 form sits in lane i + 32 k; of the bf16 form (K = 8) lane i + 32 (k / 4) holds k % 4 of
// four; B[k][j] likewise with j for i; the accumulators hold D[8 (r / 4) + 4 (lane / 32) + r % 4][lane % 32]
// in register r.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int Q = 32, PT = 32;

__device__ inline float bf(const __hip_bfloat16* p) { return __bfloat162float(*p); }

__global__ void __launch_bounds__(64) ssd_scan(const __hip_bfloat16* x, const float* dt, const float* A,
                                               const __hip_bfloat16* B, const __hip_bfloat16* C, const float* D,
                                               __hip_bfloat16* y, int L, int H, int P, int G, int N) {
    extern __shared__ float lds[];
    const int ldn = N + 1;  // padded rows of the state
    float* S = lds;                   // [PT][ldn]
    float* Xs = S + PT * ldn;         // [Q][PT + 1]: this chunk's x as float
    float* Mt = Xs + Q * (PT + 1);    // [Q][Q + 1]: M
    float* cum = Mt + Q * (Q + 1);    // [Q]
    float* stepv = cum + Q;           // [Q]
    float* wv = stepv + Q;            // [Q]
    const int lane = threadIdx.x, i = lane % 32, half = lane / 32;
    const int p0 = blockIdx.x * PT, h = blockIdx.y, b = blockIdx.z, g = h / (H / G);
    const float a_h = A[h], d_h = D[h];
    const short* Bs = reinterpret_cast<const short*>(B);
    const short* Cs = reinterpret_cast<const short*>(C);
    for (int idx = lane; idx < PT * ldn; idx += 64) S[idx] = 0.0f;
    for (int c0 = 0; c0 < L; c0 += Q) {
        if (lane < Q) {
            const int t = c0 + lane;
            stepv[lane] = t < L ? dt[((size_t)b * L + t) * H + h] : 0.0f;
        }
        for (int idx = lane; idx < Q * PT; idx += 64) {
            const int s = idx / PT, p = idx % PT, t = c0 + s;
            Xs[s * (PT + 1) + p] = t < L ? bf(x + (((size_t)b * L + t) * H + h) * P + p0 + p) : 0.0f;
        }
        __syncthreads();
        if (lane == 0) {  // exact in any order (the generator's grid): a plain running sum
            float run = 0.0f;
            for (int s = 0; s < Q; ++s) cum[s] = run += stepv[s] * a_h;
        }
        __syncthreads();
        const float total = cum[Q - 1];
        if (lane < Q) wv[lane] = stepv[lane] * expf(total - cum[lane]);
        // scores[t][s] = C_t . B_s: A = C (row t = i), B = B^T (column s = i), 8 of n per step.
        floatx16 acc;
        for (int r = 0; r < 16; ++r) acc[r] = 0.0f;
        const bool live = c0 + i < L;
        const size_t row = (((size_t)b * L + c0 + i) * G + g) * N;
        for (int n0 = 0; n0 < N; n0 += 8) {
            bf16x4 ca, bb;
            for (int e = 0; e < 4; ++e) {
                ca[e] = live ? Cs[row + n0 + 4 * half + e] : (short)0;
                bb[e] = live ? Bs[row + n0 + 4 * half + e] : (short)0;
            }
            acc = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(ca, bb, acc, 0, 0, 0);
        }
        for (int r = 0; r < 16; ++r) {
            const int t = 8 * (r / 4) + 4 * half + r % 4, s = i;
            Mt[t * (Q + 1) + s] = s <= t ? acc[r] * expf(cum[t] - cum[s]) * stepv[s] : 0.0f;
        }
        __syncthreads();
        // y_intra = M X (A = M, B = X), y_inter = C S^T (A = C as float, B = S^T).
        floatx16 intra, inter;
        for (int r = 0; r < 16; ++r) intra[r] = inter[r] = 0.0f;
        for (int k0 = 0; k0 < Q; k0 += 2)
            intra = __builtin_amdgcn_mfma_f32_32x32x2f32(Mt[i * (Q + 1) + k0 + half], Xs[(k0 + half) * (PT + 1) + i],
                                                         intra, 0, 0, 0);
        for (int n0 = 0; n0 < N; n0 += 2) {
            const float ca = live ? bf(C + row + n0 + half) : 0.0f;
            inter = __builtin_amdgcn_mfma_f32_32x32x2f32(ca, S[i * ldn + n0 + half], inter, 0, 0, 0);
        }
        for (int r = 0; r < 16; ++r) {
            const int t = 8 * (r / 4) + 4 * half + r % 4, p = i;
            if (c0 + t < L) {
                const float out = intra[r] + expf(cum[t]) * inter[r] + d_h * Xs[t * (PT + 1) + p];
                y[(((size_t)b * L + c0 + t) * H + h) * P + p0 + p] = __float2bfloat16(out);
            }
        }
        __syncthreads();  // every lane has read S
        // S[p][n] = exp(total) S[p][n] + sum_s X[s][p] w_s B[s][n]: A = (X w)^T (row p = i), B = B (column n).
        for (int nb = 0; nb < N; nb += 32) {
            floatx16 st;
            for (int r = 0; r < 16; ++r) st[r] = expf(total) * S[(8 * (r / 4) + 4 * half + r % 4) * ldn + nb + i];
            for (int k0 = 0; k0 < Q; k0 += 2) {
                const int s = k0 + half;
                const float bv = c0 + s < L ? bf(B + (((size_t)b * L + c0 + s) * G + g) * N + nb + i) : 0.0f;
                st = __builtin_amdgcn_mfma_f32_32x32x2f32(Xs[s * (PT + 1) + i] * wv[s], bv, st, 0, 0, 0);
            }
            for (int r = 0; r < 16; ++r) S[(8 * (r / 4) + 4 * half + r % 4) * ldn + nb + i] = st[r];
        }
        __syncthreads();
    }
}

extern "C" void solution(const __hip_bfloat16* x, const float* dt, const float* A, const __hip_bfloat16* B,
                         const __hip_bfloat16* C, const float* D, __hip_bfloat16* y, size_t batch, size_t seqlen,
                         size_t nheads, size_t headdim, size_t ngroups, size_t dstate) {
    const dim3 grid((unsigned)(headdim / PT), (unsigned)nheads, (unsigned)batch);
    const size_t lds = sizeof(float) * (PT * (dstate + 1) + Q * (PT + 1) + Q * (Q + 1) + 3 * Q);
    hipLaunchKernelGGL(ssd_scan, grid, dim3(64), lds, 0, x, dt, A, B, C, D, y, (int)seqlen, (int)nheads, (int)headdim,
                       (int)ngroups, (int)dstate);
}
