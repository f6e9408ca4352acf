// gfx942's MFMA builtins on the emulator: each instruction multiplies A (M x K), B (K x N) and adds C
// (M x N) held in the registers of 64 lanes as AMD's Matrix Instruction Calculator lays them out for
// CDNA3 (written out independently of runtime/matrix.cpp below), checked exactly against a double
// reference (small dyadic values: every product and sum is exact in float). Also the low-precision
// headers' API: conversions, saturation and half2/bfloat162 arithmetic. Prints ALL OK.
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_fp8.h>

#include <cstdint>
#include <cstring>

#include "check.h"

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef short short4_ __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef int intx16 __attribute__((ext_vector_type(16)));
typedef int intx4 __attribute__((ext_vector_type(4)));

enum Kind { F16, BF16, FP8, I8 };

// The element of A (row i, column k) or B (row k, column j) as the operand's bits.
__device__ uint16_t bits16(Kind kind, float v) {
    return kind == F16 ? __half_as_ushort(__float2half(v)) : __bfloat16_as_ushort(__float2bfloat16(v));
}
__device__ uint8_t bits8(Kind kind, float v) {
    return kind == FP8 ? __hip_cvt_float_to_fp8(v, __HIP_SATFINITE, __HIP_E4M3_FNUZ) : (uint8_t)(int8_t)v;
}

// Lane l holds, of A, row l % M and columns KL (l / M) + e; of B, column l % N and those rows; of D,
// column l % N and rows 8 (r / 4) [32x32] + 4 ((l / N) % G) + r % 4, G = 64 / N lane groups.
template <int M, int N, int K, Kind KIND, class VA, class VC>
__global__ void run(const float* A, const float* B, const float* C, float* D,
                    VC (*op)(VA, VA, VC, int, int, int, int)) {
    const int lane = threadIdx.x, groups = 64 / N, per_lane = K / (64 / M);
    unsigned char a[8] = {}, b[8] = {};
    for (int e = 0; e < per_lane; ++e) {
        const int k = per_lane * (lane / M) + e;
        const float av = A[(lane % M) * K + k], bv = B[k * N + lane % N];
        if (KIND == F16 || KIND == BF16) {
            const uint16_t x = bits16(KIND, av), y = bits16(KIND, bv);
            memcpy(a + 2 * e, &x, 2);
            memcpy(b + 2 * e, &y, 2);
        } else {
            a[e] = bits8(KIND, av);
            b[e] = bits8(KIND, bv);
        }
    }
    VA ra, rb;
    memcpy(&ra, a, 8);
    memcpy(&rb, b, 8);
    VC acc;
    for (int r = 0; r < (int)(sizeof(VC) / 4); ++r) {
        const int row = 4 * groups * (r / 4) + 4 * ((lane / N) % groups) + r % 4, col = lane % N;
        acc[r] = C[row * N + col];
    }
    acc = op(ra, rb, acc, 0, 0, 0, __LINE__);
    for (int r = 0; r < (int)(sizeof(VC) / 4); ++r) {
        const int row = 4 * groups * (r / 4) + 4 * ((lane / N) % groups) + r % 4, col = lane % N;
        D[row * N + col] = (float)acc[r];
    }
}

template <int M, int N, int K, Kind KIND, class VA, class VC>
void check_instruction(const char* name, VC (*op)(VA, VA, VC, int, int, int, int)) {
    float *A, *B, *C, *D;
    hipMalloc(&A, M * K * 4);
    hipMalloc(&B, K * N * 4);
    hipMalloc(&C, M * N * 4);
    hipMalloc(&D, M * N * 4);
    unsigned seed = 12345u + M * 7 + K;
    auto next = [&] { seed = seed * 1103515245u + 12345u; return (int)((seed >> 16) % 9) - 4; };  // -4..4
    const float scale = KIND == I8 ? 1.0f : 0.5f;  // halves of -2..2: exact in every format
    for (int i = 0; i < M * K; ++i) A[i] = scale * next();
    for (int i = 0; i < K * N; ++i) B[i] = scale * next();
    for (int i = 0; i < M * N; ++i) C[i] = (float)next();
    hipLaunchKernelGGL((run<M, N, K, KIND, VA, VC>), dim3(1), dim3(64), 0, 0, A, B, C, D, op);
    hipDeviceSynchronize();
    int wrong = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double want = C[i * N + j];
            for (int k = 0; k < K; ++k) want += (double)A[i * K + k] * B[k * N + j];
            wrong += D[i * N + j] != (float)want;
        }
    if (wrong) std::printf("%s: %d of %d elements wrong\n", name, wrong, M * N);
    CHECK(wrong == 0);
    hipFree(A); hipFree(B); hipFree(C); hipFree(D);
}

#define MFMA(NAME) [](auto a, auto b, auto c, int x, int y, int z, int line) { return NAME(a, b, c, x, y, z, line); }

__global__ void lowp_api(int* ok) {
    int good = 1;
    // fp8: saturation (the types' default), NOSAT to NaN, FNUZ's one NaN and no infinity.
    good &= __hip_cvt_float_to_fp8(1000.0f, __HIP_SATFINITE, __HIP_E4M3_FNUZ) == 0x7F;   // 240
    good &= __hip_cvt_float_to_fp8(1000.0f, __HIP_NOSAT, __HIP_E4M3_FNUZ) == 0x80;       // NaN
    good &= __hip_cvt_float_to_fp8(-1e6f, __HIP_SATFINITE, __HIP_E5M2_FNUZ) == 0xFF;     // -57344
    good &= __hip_cvt_float_to_fp8(INFINITY, __HIP_SATFINITE, __HIP_E4M3_FNUZ) == 0x80;  // no infinity
    good &= __hip_cvt_float_to_fp8(-0.0f, __HIP_SATFINITE, __HIP_E4M3_FNUZ) == 0x00;     // no -0
    good &= __hip_cvt_float_to_fp8(1.0625f, __HIP_SATFINITE, __HIP_E4M3_FNUZ) == 0x40;   // tie to even: 1
    good &= float(__hip_fp8_e4m3_fnuz(300.0f)) == 240.0f;
    good &= float(__hip_fp8_e4m3(300.0f)) == 288.0f && float(__hip_fp8_e4m3(1000.0f)) == 448.0f;
    good &= float(__hip_fp8_e5m2(1e9f)) == 57344.0f;
    // half: RNE, overflow to infinity, half2 arithmetic.
    good &= __half_as_ushort(__float2half(1.0f + 1.0f / 2048)) == 0x3C00;  // tie to even
    good &= __hisinf(__float2half(70000.0f)) == 1;
    const __half2 h = __hfma2(__floats2half2_rn(1.5f, -2.0f), __floats2half2_rn(2.0f, 3.0f), __float2half2_rn(0.25f));
    good &= __low2float(h) == 3.25f && __high2float(h) == -5.75f;
    // bfloat16: RNE on the low 16 bits, pairs.
    good &= __bfloat16_as_ushort(__float2bfloat16(1.0f + 1.0f / 256)) == 0x3F80;  // tie to even
    good &= __bfloat16_as_ushort(__float2bfloat16(1.0f + 3.0f / 256)) == 0x3F82;
    const __hip_bfloat162 p = __hmul2(__floats2bfloat162_rn(3.0f, -0.5f), __floats2bfloat162_rn(2.0f, 4.0f));
    good &= __low2float(p) == 6.0f && __high2float(p) == -2.0f;
    *ok = good;
}

int main() {
    check_instruction<32, 32, 8, F16, half4, floatx16>("mfma_f32_32x32x8f16", MFMA(__builtin_amdgcn_mfma_f32_32x32x8f16));
    check_instruction<16, 16, 16, F16, half4, floatx4>("mfma_f32_16x16x16f16", MFMA(__builtin_amdgcn_mfma_f32_16x16x16f16));
    check_instruction<32, 32, 8, BF16, short4_, floatx16>("mfma_f32_32x32x8bf16_1k",
                                                          MFMA(__builtin_amdgcn_mfma_f32_32x32x8bf16_1k));
    check_instruction<16, 16, 16, BF16, short4_, floatx4>("mfma_f32_16x16x16bf16_1k",
                                                          MFMA(__builtin_amdgcn_mfma_f32_16x16x16bf16_1k));
    check_instruction<32, 32, 16, FP8, long, floatx16>("mfma_f32_32x32x16_fp8_fp8",
                                                       MFMA(__builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8));
    check_instruction<16, 16, 32, FP8, long, floatx4>("mfma_f32_16x16x32_fp8_fp8",
                                                      MFMA(__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8));
    check_instruction<32, 32, 16, I8, long, intx16>("mfma_i32_32x32x16_i8", MFMA(__builtin_amdgcn_mfma_i32_32x32x16_i8));
    check_instruction<16, 16, 32, I8, long, intx4>("mfma_i32_16x16x32_i8", MFMA(__builtin_amdgcn_mfma_i32_16x16x32_i8));
    int* ok;
    hipMalloc(&ok, sizeof(int));
    hipLaunchKernelGGL(lowp_api, dim3(1), dim3(1), 0, 0, ok);
    hipDeviceSynchronize();
    CHECK(*ok == 1);
    if (g_failures == 0) std::printf("ALL OK\n");
    return g_failures;
}
