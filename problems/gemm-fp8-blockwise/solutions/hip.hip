#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

// MI300X's fp8 matrix cores with DeepSeek-V3's block scales. A block of 256 threads (four 64-lane
// wavefronts) computes a 128x128 tile of C, each wavefront a 64x64 quarter as 2x2 tiles of
// __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8. K advances one scale block (128) at a time: the block's
// products are summed exactly as the MFMA does into fresh accumulators, then added to the running
// float32 sum times A_scale (per row) and B_scale (one per tile: the tile's 128 columns are one
// scale block). A and B are stored k-major ([K][M], [K][N]); each thread reads 4 rows of k x 16
// columns and writes them to LDS transposed ([m][k], [n][k]) as 32-bit words of 4 consecutive k, so
// that each lane's eight consecutive k of an operand are one 8-byte LDS read.
// Register layout (CDNA3, 32x32x16 fp8): lane l holds A[l % 32][8 (l / 32) + e] and
// B[8 (l / 32) + e][l % 32], e = 0..7, in a 64-bit register, and C[8 (r / 4) + 4 (l / 32) + r % 4][l % 32]
// in accumulator r.
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef unsigned char bytes16 __attribute__((ext_vector_type(16)));

constexpr int TILE = 128, BK = 128, LDK = BK + 8;  // LDS row: 128 k bytes, padded to spread the banks

// One operand's 128 x 128 tile: rows k0.. of `src` (row length `cols`), columns c0.. -> lds[c][k].
__device__ inline void stage(const unsigned char* src, unsigned char* lds, int cols, int c0, int k0, int K, int tid) {
    const int kq = tid % 32, g = tid / 32;  // k = k0 + 4 kq + e, e < 4; columns c0 + 16 g + c, c < 16
    bytes16 v[4];
    const bool fast = cols % 16 == 0 && c0 + TILE <= cols && k0 + BK <= K;
    for (int e = 0; e < 4; ++e) {
        const int k = k0 + 4 * kq + e;
        const unsigned char* p = src + (size_t)k * cols + c0 + 16 * g;
        if (fast) {
            v[e] = *(const bytes16*)p;
        } else {
            for (int c = 0; c < 16; ++c) v[e][c] = k < K && c0 + 16 * g + c < cols ? p[c] : (unsigned char)0;
        }
    }
    for (int c = 0; c < 16; ++c) {
        const unsigned word = (unsigned)v[0][c] | (unsigned)v[1][c] << 8 | (unsigned)v[2][c] << 16 |
                              (unsigned)v[3][c] << 24;
        *(unsigned*)(lds + (16 * g + c) * LDK + 4 * kq) = word;
    }
}

__global__ void __launch_bounds__(256) gemm(const unsigned char* A, const unsigned char* B, const float* A_scale,
                                            const float* B_scale, __hip_bfloat16* C, int M, int N, int K) {
    __shared__ __align__(32) unsigned char As[TILE * LDK], Bs[TILE * LDK];
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64;
    const int m0 = blockIdx.y * TILE, n0 = blockIdx.x * TILE;
    const int wm = (wave / 2) * 64, wn = (wave % 2) * 64, i = lane % 32, q = lane / 32;
    const int kblocks = (K + BK - 1) / BK, nblocks = (N + TILE - 1) / TILE;
    floatx16 acc[2][2];
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            for (int r = 0; r < 16; ++r) acc[t][u][r] = 0.0f;
    for (int kb = 0; kb < kblocks; ++kb) {
        stage(A, As, M, m0, kb * BK, K, tid);
        stage(B, Bs, N, n0, kb * BK, K, tid);
        __syncthreads();
        floatx16 part[2][2];
        for (int t = 0; t < 2; ++t)
            for (int u = 0; u < 2; ++u)
                for (int r = 0; r < 16; ++r) part[t][u][r] = 0.0f;
        for (int kk = 0; kk < BK; kk += 16) {
            long a[2], b[2];
            for (int t = 0; t < 2; ++t) {
                a[t] = *(const long*)(As + (wm + 32 * t + i) * LDK + kk + 8 * q);
                b[t] = *(const long*)(Bs + (wn + 32 * t + i) * LDK + kk + 8 * q);
            }
            for (int t = 0; t < 2; ++t)
                for (int u = 0; u < 2; ++u)
                    part[t][u] = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a[t], b[u], part[t][u], 0, 0, 0);
        }
        __syncthreads();  // the next block's staging overwrites the tiles
        const float sb = B_scale[(size_t)kb * nblocks + blockIdx.x];
        for (int t = 0; t < 2; ++t)
            for (int r = 0; r < 16; ++r) {
                const int row = m0 + wm + 32 * t + 8 * (r / 4) + 4 * q + r % 4;
                const float s = row < M ? A_scale[(size_t)kb * M + row] * sb : 0.0f;
                for (int u = 0; u < 2; ++u) acc[t][u][r] += part[t][u][r] * s;
            }
    }
    for (int t = 0; t < 2; ++t)
        for (int u = 0; u < 2; ++u)
            for (int r = 0; r < 16; ++r) {
                const int row = m0 + wm + 32 * t + 8 * (r / 4) + 4 * q + r % 4, col = n0 + wn + 32 * u + i;
                if (row < M && col < N) C[(size_t)row * N + col] = __float2bfloat16(acc[t][u][r]);
            }
}

extern "C" void solution(const __hip_fp8_e4m3_fnuz* A, const __hip_fp8_e4m3_fnuz* B, const float* A_scale,
                         const float* B_scale, __hip_bfloat16* C, size_t M, size_t N, size_t K) {
    const dim3 grid((unsigned)((N + TILE - 1) / TILE), (unsigned)((M + TILE - 1) / TILE));
    hipLaunchKernelGGL(gemm, grid, dim3(256), 0, 0, reinterpret_cast<const unsigned char*>(A),
                       reinterpret_cast<const unsigned char*>(B), A_scale, B_scale, C, (int)M, (int)N, (int)K);
}
