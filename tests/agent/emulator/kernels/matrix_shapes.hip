// The MFMA shapes beyond the first eight (f32, multi-block, 4x4, xf32, f64, mixed fp8/bf8) on the
// emulator, each checked exactly against a double reference with small dyadic values. The register
// layouts are written here from AMD's lab notes on matrix cores (amd/amd-lab-notes, matrix-cores:
// kernels validated on MI200) and the Matrix Instruction Calculator, independently of
// runtime/matrix.cpp. Prints ALL OK.
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_fp8.h>

#include <cstdint>
#include <cstring>

#include "check.h"

typedef float floatx32 __attribute__((ext_vector_type(32)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef float floatx2 __attribute__((ext_vector_type(2)));
typedef double doublex4 __attribute__((ext_vector_type(4)));
typedef double doublex1 __attribute__((ext_vector_type(1)));  // 4x4x4f64's one register, as a vector
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef short short4_ __attribute__((ext_vector_type(4)));

enum Kind { F16, BF16, FP8, BF8, F32, F64 };
constexpr int bytes_of(Kind k) { return k == F16 || k == BF16 ? 2 : k == FP8 || k == BF8 ? 1 : k == F32 ? 4 : 8; }

__device__ void put(unsigned char* regs, int e, Kind kind, double v) {
    switch (kind) {
        case F16: { const uint16_t x = __half_as_ushort(__float2half((float)v)); memcpy(regs + 2 * e, &x, 2); break; }
        case BF16: { const uint16_t x = __bfloat16_as_ushort(__float2bfloat16((float)v)); memcpy(regs + 2 * e, &x, 2); break; }
        case FP8: regs[e] = __hip_cvt_float_to_fp8((float)v, __HIP_SATFINITE, __HIP_E4M3_FNUZ); break;
        case BF8: regs[e] = __hip_cvt_float_to_fp8((float)v, __HIP_SATFINITE, __HIP_E5M2_FNUZ); break;
        case F32: { const float x = (float)v; memcpy(regs + 4 * e, &x, 4); break; }
        default: memcpy(regs + 8 * e, &v, 8); break;
    }
}

// Where D[b][i][j] lives. 32-bit accumulators: consecutive lanes take consecutive columns, groups
// of N lanes take groups of four rows (as many groups as fit, G), a register each of the four rows;
// further registers the next 4 G rows, then the next block; the 4x4 shapes put block b in lanes
// 4b .. 4b + 3 and row i in register i. f64 (lab notes): rows go round the lane groups, register
// i / R of lane j + N b + N B (i % R).
template <int M, int N, int B, bool F64ACC>
__device__ __host__ void where_d(int b, int i, int j, int* lane, int* reg) {
    if (F64ACC) {
        const int R = 64 / (N * B);
        *lane = j + N * b + N * B * (i % R);
        *reg = i / R;
    } else if (M == 4) {
        *lane = j + 4 * b;
        *reg = i;
    } else {
        const int G = 64 / N;  // 2 for 32 x 32, 4 for 16 x 16
        *lane = j + N * ((i / 4) % G);
        *reg = i % 4 + 4 * (i / (4 * G)) + (M * N / 64) * b;
    }
}

template <int M, int N, int K, int B, Kind KA, Kind KB, class VA, class VC>
__global__ void run(const double* A, const double* Bm, const double* C, double* D, VC (*op)(VA, VA, VC, int, int, int, int)) {
    const int lane = threadIdx.x;
    constexpr int KL = K * B * M / 64;  // values of A and B per lane
    unsigned char a[16] = {}, b[16] = {};
    // Lane l holds row l % M of A of block (l / M) % B, columns KL (l / (M B)) .. + KL - 1.
    for (int e = 0; e < KL; ++e) {
        const int blk = (lane / M) % B, k = KL * (lane / (M * B)) + e;
        put(a, e, KA, A[(blk * M + lane % M) * K + k]);
        put(b, e, KB, Bm[(blk * K + k) * N + lane % N]);
    }
    VA ra, rb;
    memcpy(&ra, a, sizeof(VA));
    memcpy(&rb, b, sizeof(VA));
    using E = std::remove_reference_t<decltype(VC{}[0])>;
    VC acc;
    for (int blk = 0; blk < B; ++blk)
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                int l, r;
                where_d<M, N, B, sizeof(E) == 8>(blk, i, j, &l, &r);
                if (l == lane) acc[r] = (E)C[(blk * M + i) * N + j];
            }
    acc = op(ra, rb, acc, 0, 0, 0, __LINE__);
    for (int blk = 0; blk < B; ++blk)
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                int l, r;
                where_d<M, N, B, sizeof(E) == 8>(blk, i, j, &l, &r);
                if (l == lane) D[(blk * M + i) * N + j] = (double)acc[r];
            }
}

template <int M, int N, int K, int B, Kind KA, Kind KB, class VA, class VC>
void check(const char* name, VC (*op)(VA, VA, VC, int, int, int, int)) {
    double *A, *Bm, *C, *D;
    hipMalloc(&A, B * M * K * 8);
    hipMalloc(&Bm, B * K * N * 8);
    hipMalloc(&C, B * M * N * 8);
    hipMalloc(&D, B * M * N * 8);
    unsigned seed = 777u + M * 13 + K * 5 + B;
    auto next = [&] { seed = seed * 1103515245u + 12345u; return (int)((seed >> 16) % 9) - 4; };
    for (int i = 0; i < B * M * K; ++i) A[i] = 0.5 * next();  // halves of -2..2: exact in every format
    for (int i = 0; i < B * K * N; ++i) Bm[i] = 0.5 * next();
    for (int i = 0; i < B * M * N; ++i) C[i] = next();
    hipLaunchKernelGGL((run<M, N, K, B, KA, KB, VA, VC>), dim3(1), dim3(64), 0, 0, A, Bm, C, D, op);
    hipDeviceSynchronize();
    int wrong = 0;
    for (int blk = 0; blk < B; ++blk)
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                double want = C[(blk * M + i) * N + j];
                for (int k = 0; k < K; ++k) want += A[(blk * M + i) * K + k] * Bm[(blk * K + k) * N + j];
                wrong += D[(blk * M + i) * N + j] != want;
            }
    if (wrong) std::printf("%s: %d of %d elements wrong\n", name, wrong, B * M * N);
    CHECK(wrong == 0);
    hipFree(A); hipFree(Bm); hipFree(C); hipFree(D);
}

#define MFMA(NAME) [](auto a, auto b, auto c, int x, int y, int z, int line) { return NAME(a, b, c, x, y, z, line); }

// xf32 inputs keep 10 mantissa bits, rounded to nearest even: 1 + 2^-11 + 2^-12 becomes 1 + 2^-10.
__global__ void xf32_rounding(float* out) {
    floatx2 a = {1.0f + 0x1p-11f + 0x1p-12f, 0.0f}, b = {__lane_id() == 0 ? 1.0f : 0.0f, 0.0f};
    floatx4 c = {0, 0, 0, 0};
    c = __builtin_amdgcn_mfma_f32_16x16x8_xf32(a, b, c, 0, 0, 0);
    if (__lane_id() == 0) *out = c[0];  // D[0][0] = A[0][0] * B[0][0]
}

int main() {
    check<32, 32, 2, 1, F32, F32, float, floatx16>("mfma_f32_32x32x2f32", MFMA(__builtin_amdgcn_mfma_f32_32x32x2f32));
    check<16, 16, 4, 1, F32, F32, float, floatx4>("mfma_f32_16x16x4f32", MFMA(__builtin_amdgcn_mfma_f32_16x16x4f32));
    check<32, 32, 1, 2, F32, F32, float, floatx32>("mfma_f32_32x32x1f32", MFMA(__builtin_amdgcn_mfma_f32_32x32x1f32));
    check<16, 16, 1, 4, F32, F32, float, floatx16>("mfma_f32_16x16x1f32", MFMA(__builtin_amdgcn_mfma_f32_16x16x1f32));
    check<4, 4, 1, 16, F32, F32, float, floatx4>("mfma_f32_4x4x1f32", MFMA(__builtin_amdgcn_mfma_f32_4x4x1f32));
    check<4, 4, 4, 16, F16, F16, half4, floatx4>("mfma_f32_4x4x4f16", MFMA(__builtin_amdgcn_mfma_f32_4x4x4f16));
    check<4, 4, 4, 16, BF16, BF16, short4_, floatx4>("mfma_f32_4x4x4bf16_1k", MFMA(__builtin_amdgcn_mfma_f32_4x4x4bf16_1k));
    check<32, 32, 4, 2, F16, F16, half4, floatx32>("mfma_f32_32x32x4f16", MFMA(__builtin_amdgcn_mfma_f32_32x32x4f16));
    check<16, 16, 4, 4, F16, F16, half4, floatx16>("mfma_f32_16x16x4f16", MFMA(__builtin_amdgcn_mfma_f32_16x16x4f16));
    check<32, 32, 4, 2, BF16, BF16, short4_, floatx32>("mfma_f32_32x32x4bf16_1k", MFMA(__builtin_amdgcn_mfma_f32_32x32x4bf16_1k));
    check<16, 16, 4, 4, BF16, BF16, short4_, floatx16>("mfma_f32_16x16x4bf16_1k", MFMA(__builtin_amdgcn_mfma_f32_16x16x4bf16_1k));
    check<32, 32, 4, 1, F32, F32, floatx2, floatx16>("mfma_f32_32x32x4_xf32", MFMA(__builtin_amdgcn_mfma_f32_32x32x4_xf32));
    check<16, 16, 8, 1, F32, F32, floatx2, floatx4>("mfma_f32_16x16x8_xf32", MFMA(__builtin_amdgcn_mfma_f32_16x16x8_xf32));
    check<16, 16, 4, 1, F64, F64, double, doublex4>("mfma_f64_16x16x4f64", MFMA(__builtin_amdgcn_mfma_f64_16x16x4f64));
    check<4, 4, 4, 4, F64, F64, double, doublex1>("mfma_f64_4x4x4f64", MFMA(__builtin_amdgcn_mfma_f64_4x4x4f64));
    check<32, 32, 16, 1, FP8, BF8, long, floatx16>("mfma_f32_32x32x16_fp8_bf8", MFMA(__builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8));
    check<32, 32, 16, 1, BF8, FP8, long, floatx16>("mfma_f32_32x32x16_bf8_fp8", MFMA(__builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8));
    check<32, 32, 16, 1, BF8, BF8, long, floatx16>("mfma_f32_32x32x16_bf8_bf8", MFMA(__builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8));
    check<16, 16, 32, 1, FP8, BF8, long, floatx4>("mfma_f32_16x16x32_fp8_bf8", MFMA(__builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8));
    check<16, 16, 32, 1, BF8, FP8, long, floatx4>("mfma_f32_16x16x32_bf8_fp8", MFMA(__builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8));
    check<16, 16, 32, 1, BF8, BF8, long, floatx4>("mfma_f32_16x16x32_bf8_bf8", MFMA(__builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8));
    float* out;
    hipMalloc(&out, 4);
    hipLaunchKernelGGL(xf32_rounding, dim3(1), dim3(64), 0, 0, out);
    hipDeviceSynchronize();
    CHECK(*out == 1.0f + 0x1p-10f);
    if (g_failures == 0) std::printf("ALL OK\n");
    return g_failures;
}
