// gfx942's MFMA builtins on the emulated device (HIP only; hip_runtime.h includes this, as hipcc
// knows them without a header). Each is a wavefront-wide instruction: all 64 lanes call it together
// (a lane that exited or is elsewhere is an error), each with its registers of A, B and C, and each
// gets its registers of D; runtime/matrix.cpp puts every value where the hardware keeps it.
//
// The operands are whatever the kernel declares with the right size: `_Float16`/`short` vectors of
// 4 (f16, bf16), a `long` of 8 fp8 (FNUZ E4M3 on gfx942; bf8 is FNUZ E5M2) or int8 values, a `float`
// (f32), a float vector of 2 (xf32), a `double` (f64); a `float`/`int` vector of 32, 16 or 4
// accumulators, or `double`s (4 for 16x16x4f64, one for 4x4x4f64). Clang's `ext_vector_type(N)` is rewritten to g++'s
// `vector_size` (agent/emulator/vectors.py). cbsz, abid and blgp must be 0.
#pragma once

#include "matrix.h"

#define HJEMU_MFMA(NAME, ID, A_BYTES, C_BYTES)                                                        \
    template <class A, class B, class C>                                                            \
    inline C NAME(A a, B b, C c, int cbsz, int abid, int blgp, int line = __builtin_LINE()) {        \
        static_assert(sizeof(A) == (A_BYTES) && sizeof(B) == (A_BYTES),                             \
                      #NAME ": A and B are " #A_BYTES " bytes per lane");                            \
        static_assert(sizeof(C) == (C_BYTES), #NAME ": C is " #C_BYTES " bytes per lane");           \
        return hjemu::matrix_instruction(ID, a, b, c, cbsz, abid, blgp, line);                      \
    }
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x8f16, HJEMU_MFMA_F32_32X32X8_F16, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x16f16, HJEMU_MFMA_F32_16X16X16_F16, 8, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x8bf16_1k, HJEMU_MFMA_F32_32X32X8_BF16, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x16bf16_1k, HJEMU_MFMA_F32_16X16X16_BF16, 8, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8, HJEMU_MFMA_F32_32X32X16_FP8, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8, HJEMU_MFMA_F32_16X16X32_FP8, 8, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_i32_32x32x16_i8, HJEMU_MFMA_I32_32X32X16_I8, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_i32_16x16x32_i8, HJEMU_MFMA_I32_16X16X32_I8, 8, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x2f32, HJEMU_MFMA_F32_32X32X2_F32, 4, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x4f32, HJEMU_MFMA_F32_16X16X4_F32, 4, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x1f32, HJEMU_MFMA_F32_32X32X1_F32, 4, 128)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x1f32, HJEMU_MFMA_F32_16X16X1_F32, 4, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_4x4x1f32, HJEMU_MFMA_F32_4X4X1_F32, 4, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_4x4x4f16, HJEMU_MFMA_F32_4X4X4_F16, 8, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_4x4x4bf16_1k, HJEMU_MFMA_F32_4X4X4_BF16, 8, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x4f16, HJEMU_MFMA_F32_32X32X4_F16, 8, 128)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x4f16, HJEMU_MFMA_F32_16X16X4_F16, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x4bf16_1k, HJEMU_MFMA_F32_32X32X4_BF16, 8, 128)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x4bf16_1k, HJEMU_MFMA_F32_16X16X4_BF16, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x4_xf32, HJEMU_MFMA_F32_32X32X4_XF32, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x8_xf32, HJEMU_MFMA_F32_16X16X8_XF32, 8, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f64_16x16x4f64, HJEMU_MFMA_F64_16X16X4_F64, 8, 32)
HJEMU_MFMA(__builtin_amdgcn_mfma_f64_4x4x4f64, HJEMU_MFMA_F64_4X4X4_F64, 8, 8)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8, HJEMU_MFMA_F32_32X32X16_FP8_BF8, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8, HJEMU_MFMA_F32_32X32X16_BF8_FP8, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8, HJEMU_MFMA_F32_32X32X16_BF8_BF8, 8, 64)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8, HJEMU_MFMA_F32_16X16X32_FP8_BF8, 8, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8, HJEMU_MFMA_F32_16X16X32_BF8_FP8, 8, 16)
HJEMU_MFMA(__builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8, HJEMU_MFMA_F32_16X16X32_BF8_BF8, 8, 16)
#undef HJEMU_MFMA

