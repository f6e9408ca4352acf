#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// MI300X's matrix cores: a block of 256 threads (four 64-lane wavefronts) computes a 128x128 tile of
// C, each wavefront a 64x64 quarter as 2x2 tiles of __builtin_amdgcn_mfma_f32_32x32x8bf16_1k (float32
// accumulators). C = residual + A B^T with B stored N x K, so both operands are contiguous along k:
// their tiles are kept in LDS as [m][k] and [n][k] and each lane's four consecutive k of an operand
// are one 8-byte LDS read. Interior tiles are fetched 16 bytes at a time; edge tiles element by element,
// zero-padded. The epilogue adds the residual to the float32 accumulator and rounds once (fused).
// Register layout (CDNA3, 32x32x8): lane l holds A[l % 32][4 (l / 32) + e] and
// B^T[4 (l / 32) + e][l % 32], e = 0..3, and C[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] in accumulator r.
// bfloat16 travels as its 16 bits (the bf16 MFMA takes them in short vectors).
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef short bf16x8 __attribute__((ext_vector_type(8)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int BM = 128, BN = 128, BK = 32, LD = BK + 4;  // LDS rows padded to spread the banks

__global__ void __launch_bounds__(256) gemm_residual(const short* A, const short* B, const __hip_bfloat16* residual,
                                                     __hip_bfloat16* C, int M, int N, int K) {
    __shared__ __align__(32) short As[BM * LD], Bs[BN * LD];
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wm = (wave / 2) * 64, wn = (wave % 2) * 64, i = lane % 32, q = lane / 32;
    const bool vector_a = K % 8 == 0 && m0 + BM <= M, vector_b = K % 8 == 0 && n0 + BN <= N;
    floatx16 acc[2][2];
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            for (int r = 0; r < 16; ++r) acc[t][u][r] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool full_k = k0 + BK <= K;
        {  // A: thread t loads row t / 2, k (t % 2) * 16 .. + 15
            const int r = tid / 2, c = (tid % 2) * 16;
            const short* src = A + (size_t)(m0 + r) * K + k0 + c;
            short* dst = As + r * LD + c;
            if (vector_a && full_k) {
                const bf16x8 x = *(const bf16x8*)src, y = *(const bf16x8*)(src + 8);
                for (int e = 0; e < 8; ++e) dst[e] = x[e], dst[8 + e] = y[e];
            } else {
                for (int e = 0; e < 16; ++e)
                    dst[e] = m0 + r < M && k0 + c + e < K ? src[e] : (short)0;
            }
        }
        {  // B (N x K): thread t loads row n = t / 2, k (t % 2) * 16 .. + 15
            const int r = tid / 2, c = (tid % 2) * 16;
            const short* src = B + (size_t)(n0 + r) * K + k0 + c;
            short* dst = Bs + r * LD + c;
            if (vector_b && full_k) {
                const bf16x8 x = *(const bf16x8*)src, y = *(const bf16x8*)(src + 8);
                for (int e = 0; e < 8; ++e) dst[e] = x[e], dst[8 + e] = y[e];
            } else {
                for (int e = 0; e < 16; ++e)
                    dst[e] = n0 + r < N && k0 + c + e < K ? src[e] : (short)0;
            }
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 8) {
            bf16x4 a[2], b[2];
            for (int t = 0; t < 2; ++t) {
                a[t] = *(const bf16x4*)(As + (wm + 32 * t + i) * LD + kk + 4 * q);
                b[t] = *(const bf16x4*)(Bs + (wn + 32 * t + i) * LD + kk + 4 * q);
            }
            for (int t = 0; t < 2; ++t)
                for (int u = 0; u < 2; ++u) acc[t][u] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a[t], b[u], acc[t][u], 0, 0, 0);
        }
        __syncthreads();
    }
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            for (int r = 0; r < 16; ++r) {
                const int row = m0 + wm + 32 * t + 8 * (r / 4) + 4 * q + r % 4, col = n0 + wn + 32 * u + i;
                if (row < M && col < N) {
                    const size_t at = (size_t)row * N + col;
                    C[at] = __float2bfloat16(acc[t][u][r] + __bfloat162float(residual[at]));
                }
            }
}

extern "C" void solution(const __hip_bfloat16* A, const __hip_bfloat16* B, const __hip_bfloat16* residual,
                         __hip_bfloat16* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));
    hipLaunchKernelGGL(gemm_residual, grid, dim3(256), 0, 0, reinterpret_cast<const short*>(A),
                       reinterpret_cast<const short*>(B), residual, C, (int)M, (int)N, (int)K);
}
