// gfx942's __builtin_amdgcn_* builtins besides MFMA (mfma.h), on the emulated device (HIP only;
// hip_runtime.h includes this, as hipcc knows them without a header).
//
// - Cross-lane: readfirstlane, readlane, ds_bpermute, ds_permute, ds_swizzle, mov_dpp and
//   update_dpp are wavefront functions like __shfl: the lanes at the call meet, and
//   runtime/lanes.cpp gives each its value by the CDNA3 ISA's rules (lanes.cpp says which).
//   They take any 4- or 8-byte value as Clang 19's generic forms do (8 bytes: two 32-bit moves).
// - mbcnt_lo/hi, lane and work-item ids, wavefront size: plain arithmetic on the lane's position.
// - Scheduling hints (s_setprio, sched_barrier, sched_group_barrier, iglp_opt, s_waitcnt, s_sleep,
//   s_nop) change only timing on a GPU: no-ops here. s_barrier is __syncthreads(); wave_barrier
//   makes the lanes of the wavefront meet like __syncwarp(), which is what it guarantees on a GPU,
//   where the lanes run in lockstep (HIP's own __syncwarp is a wave_barrier between two fences).
// - Conversions and math: cvt_pk_fp8_f32 / cvt_pk_bf8_f32 (gfx942's FNUZ formats, round to nearest
//   even, no saturation: an overflow becomes NaN as the instruction without clamp gives), their
//   inverses, fmed3f, and the device library's common __ocml_* functions.
// A gfx942 builtin that is not modelled is refused at compile time by name (the end of this file).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <hipjudge/lowp.h>

namespace hjemu {
template <class... T> struct never : std::false_type {};

inline uint32_t lane_op32(int op, uint32_t value, int arg, int extra, int line) {
    hjemu_collective_t request{value, 0, op, arg, extra, line, 0, 4};
    return (uint32_t)hjemu_warp_collective(&request);
}

// One cross-lane move of a 4- or 8-byte value: an 8-byte one moves as two 32-bit halves, as the
// compiler splits it into two instructions.
template <class T, class Move>
inline T move_lanes(T v, Move move) {
    static_assert(std::is_trivially_copyable<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                  "hjemu: cross-lane builtins move 32- or 64-bit values");
    uint32_t w[2] = {0, 0};
    std::memcpy(w, &v, sizeof(T));
    for (unsigned i = 0; i < sizeof(T) / 4; ++i) w[i] = move(w[i], i);
    T out;
    std::memcpy(&out, w, sizeof(T));
    return out;
}

inline unsigned int mbcnt(unsigned int mask, unsigned int add, bool high) {
    const unsigned lane = hjemu_lane_id();
    const uint64_t below = lane == 0 ? 0 : (~0ull >> (64 - lane));  // the lanes below this one
    return add + (unsigned)__builtin_popcount(mask & (uint32_t)(high ? below >> 32 : below));
}
}  // namespace hjemu

// ---- cross-lane ---------------------------------------------------------------------------------
template <class T>
inline T __builtin_amdgcn_readfirstlane(T v, int line = __builtin_LINE()) {
    return hjemu::move_lanes(v, [&](uint32_t w, unsigned) { return hjemu::lane_op32(HJEMU_READFIRSTLANE, w, 0, 0, line); });
}
template <class T>
inline T __builtin_amdgcn_readlane(T v, int lane, int line = __builtin_LINE()) {
    return hjemu::move_lanes(v, [&](uint32_t w, unsigned) { return hjemu::lane_op32(HJEMU_READLANE, w, lane, 0, line); });
}
inline int __builtin_amdgcn_ds_bpermute(int address, int data, int line = __builtin_LINE()) {
    return (int)hjemu::lane_op32(HJEMU_BPERMUTE, (uint32_t)data, address, 0, line);
}
inline int __builtin_amdgcn_ds_permute(int address, int data, int line = __builtin_LINE()) {
    return (int)hjemu::lane_op32(HJEMU_PERMUTE, (uint32_t)data, address, 0, line);
}
inline int __builtin_amdgcn_ds_swizzle(int data, int offset, int line = __builtin_LINE()) {
    return (int)hjemu::lane_op32(HJEMU_SWIZZLE, (uint32_t)data, offset, 0, line);
}
// old converts to src's type (a literal 0 is the usual old).
template <class O, class T>
inline T __builtin_amdgcn_update_dpp(O old_value, T src, int dpp_ctrl, int row_mask, int bank_mask, bool bound_ctrl,
                                     int line = __builtin_LINE()) {
    const T old = static_cast<T>(old_value);
    uint32_t o[2] = {0, 0};
    static_assert(sizeof(T) <= 8, "hjemu: update_dpp moves 32- or 64-bit values");
    std::memcpy(o, &old, sizeof(T));
    const int controls = (row_mask & 15) | (bank_mask & 15) << 4 | (bound_ctrl ? 1 << 8 : 0);
    return hjemu::move_lanes(src, [&](uint32_t w, unsigned half) {
        hjemu_collective_t request{w | (uint64_t)o[half] << 32, 0, HJEMU_DPP, dpp_ctrl, controls, line, 0, 4};
        return (uint32_t)hjemu_warp_collective(&request);
    });
}
// mov_dpp is update_dpp with an undefined old value: here a lane whose write is disabled keeps its
// own src (as the emulator's shuffles answer a read of an inactive lane).
template <class T>
inline T __builtin_amdgcn_mov_dpp(T src, int dpp_ctrl, int row_mask, int bank_mask, bool bound_ctrl,
                                  int line = __builtin_LINE()) {
    return __builtin_amdgcn_update_dpp(src, src, dpp_ctrl, row_mask, bank_mask, bound_ctrl, line);
}
// HIP's wrappers of the same instructions (hip/amd_detail/amd_warp_functions.h): the index of
// the permutes is a byte address, as the instruction's.
inline unsigned __hip_ds_bpermute(int index, unsigned src, int line = __builtin_LINE()) {
    return (unsigned)__builtin_amdgcn_ds_bpermute(index, (int)src, line);
}
inline float __hip_ds_bpermutef(int index, float src, int line = __builtin_LINE()) {
    return hjemu::from_bits<float>(__hip_ds_bpermute(index, (unsigned)hjemu::to_bits(src), line));
}
inline unsigned __hip_ds_permute(int index, unsigned src, int line = __builtin_LINE()) {
    return (unsigned)__builtin_amdgcn_ds_permute(index, (int)src, line);
}
inline float __hip_ds_permutef(int index, float src, int line = __builtin_LINE()) {
    return hjemu::from_bits<float>(__hip_ds_permute(index, (unsigned)hjemu::to_bits(src), line));
}
inline unsigned __hip_ds_swizzle(unsigned src, int pattern, int line = __builtin_LINE()) {
    return (unsigned)__builtin_amdgcn_ds_swizzle((int)src, pattern, line);
}
inline float __hip_ds_swizzlef(float src, int pattern, int line = __builtin_LINE()) {
    return hjemu::from_bits<float>(__hip_ds_swizzle((unsigned)hjemu::to_bits(src), pattern, line));
}
inline int __hip_move_dpp(int src, int dpp_ctrl, int row_mask, int bank_mask, bool bound_ctrl,
                          int line = __builtin_LINE()) {
    return __builtin_amdgcn_mov_dpp(src, dpp_ctrl, row_mask, bank_mask, bound_ctrl, line);
}
inline unsigned int __mbcnt_lo(unsigned int mask, unsigned int add) { return hjemu::mbcnt(mask, add, false); }
inline unsigned int __mbcnt_hi(unsigned int mask, unsigned int add) { return hjemu::mbcnt(mask, add, true); }
inline unsigned int __builtin_amdgcn_mbcnt_lo(unsigned int mask, unsigned int add) { return hjemu::mbcnt(mask, add, false); }
inline unsigned int __builtin_amdgcn_mbcnt_hi(unsigned int mask, unsigned int add) { return hjemu::mbcnt(mask, add, true); }
inline unsigned long long __builtin_amdgcn_read_exec(int line = __builtin_LINE()) { return __activemask(line); }
inline unsigned long long __builtin_amdgcn_ballot_w64(bool predicate, int line = __builtin_LINE()) {
    return __ballot(predicate, line);
}
inline unsigned int __builtin_amdgcn_workitem_id_x() { return threadIdx.x; }
inline unsigned int __builtin_amdgcn_workitem_id_y() { return threadIdx.y; }
inline unsigned int __builtin_amdgcn_workitem_id_z() { return threadIdx.z; }
inline unsigned int __builtin_amdgcn_workgroup_id_x() { return blockIdx.x; }
inline unsigned int __builtin_amdgcn_workgroup_id_y() { return blockIdx.y; }
inline unsigned int __builtin_amdgcn_workgroup_id_z() { return blockIdx.z; }
inline unsigned int __builtin_amdgcn_wavefrontsize() { return 64; }

// ---- barriers and scheduling hints ----------------------------------------------------------------
inline void __builtin_amdgcn_s_barrier(int line = __builtin_LINE()) { __syncthreads(line); }
inline void __builtin_amdgcn_wave_barrier(int line = __builtin_LINE()) {
    (void)hjemu::collective(HJEMU_SYNCWARP, 0, 0, warpSize, 0, false, line, 0);
}
inline void __builtin_amdgcn_fence(int, const char*) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __builtin_amdgcn_s_setprio(short) {}
inline void __builtin_amdgcn_sched_barrier(int) {}
inline void __builtin_amdgcn_sched_group_barrier(int, int, int) {}
inline void __builtin_amdgcn_iglp_opt(int) {}
inline void __builtin_amdgcn_s_waitcnt(int) {}
inline void __builtin_amdgcn_s_sleep(int) {}
inline void __builtin_amdgcn_s_nop(int) {}
inline unsigned long long __builtin_amdgcn_s_memtime() { return (unsigned long long)clock64(); }
inline unsigned long long __builtin_amdgcn_s_memrealtime() { return (unsigned long long)clock64(); }

// ---- fp8 conversions (gfx942: FNUZ E4M3 "fp8", FNUZ E5M2 "bf8") ------------------------------------
namespace hjemu {
inline int cvt_pk_8bit(float a, float b, int old, bool high_word, const hj::lowp::Format& f) {
    const uint32_t pair = hj::lowp::encode(a, f, false) | hj::lowp::encode(b, f, false) << 8;
    const uint32_t keep = (uint32_t)old & (high_word ? 0x0000FFFFu : 0xFFFF0000u);
    return (int)(keep | (high_word ? pair << 16 : pair));
}
typedef float float2_ __attribute__((vector_size(8)));
}  // namespace hjemu
inline int __builtin_amdgcn_cvt_pk_fp8_f32(float a, float b, int old, bool word_sel) {
    return hjemu::cvt_pk_8bit(a, b, old, word_sel, hj::lowp::kE4M3Fnuz);
}
inline int __builtin_amdgcn_cvt_pk_bf8_f32(float a, float b, int old, bool word_sel) {
    return hjemu::cvt_pk_8bit(a, b, old, word_sel, hj::lowp::kE5M2Fnuz);
}
inline float __builtin_amdgcn_cvt_f32_fp8(int src, int byte_sel) {
    return (float)hj::lowp::decode(((uint32_t)src >> (8 * (byte_sel & 3))) & 0xFF, hj::lowp::kE4M3Fnuz);
}
inline float __builtin_amdgcn_cvt_f32_bf8(int src, int byte_sel) {
    return (float)hj::lowp::decode(((uint32_t)src >> (8 * (byte_sel & 3))) & 0xFF, hj::lowp::kE5M2Fnuz);
}
inline hjemu::float2_ __builtin_amdgcn_cvt_pk_f32_fp8(int src, bool word_sel) {
    const int shift = word_sel ? 2 : 0;
    return hjemu::float2_{__builtin_amdgcn_cvt_f32_fp8(src, shift), __builtin_amdgcn_cvt_f32_fp8(src, shift + 1)};
}
inline hjemu::float2_ __builtin_amdgcn_cvt_pk_f32_bf8(int src, bool word_sel) {
    const int shift = word_sel ? 2 : 0;
    return hjemu::float2_{__builtin_amdgcn_cvt_f32_bf8(src, shift), __builtin_amdgcn_cvt_f32_bf8(src, shift + 1)};
}

// ---- math ---------------------------------------------------------------------------------------
// v_med3_f32: the median of three (NaN operands: the result is one of the others, as fmin/fmax give).
inline float __builtin_amdgcn_fmed3f(float a, float b, float c) {
    return std::fmax(std::fmin(a, b), std::fmin(std::fmax(a, b), c));
}
inline float __builtin_amdgcn_rcpf(float x) { return 1.0f / x; }
inline float __builtin_amdgcn_rsqf(float x) { return 1.0f / std::sqrt(x); }
inline float __builtin_amdgcn_sqrtf(float x) { return std::sqrt(x); }
inline float __builtin_amdgcn_exp2f(float x) { return std::exp2(x); }
inline float __builtin_amdgcn_logf(float x) { return std::log2(x); }
inline float __builtin_amdgcn_fractf(float x) { return x - std::floor(x); }
inline float __builtin_amdgcn_ldexpf(float x, int e) { return std::ldexp(x, e); }

#define HJEMU_OCML1(NAME, EXPR)                                                                   \
    inline float __ocml_##NAME##_f32(float x) { return (float)(EXPR); }                            \
    inline double __ocml_##NAME##_f64(double x) { return (EXPR); }
#define HJEMU_OCML2(NAME, EXPR)                                                                   \
    inline float __ocml_##NAME##_f32(float x, float y) { return (float)(EXPR); }                   \
    inline double __ocml_##NAME##_f64(double x, double y) { return (EXPR); }
HJEMU_OCML1(exp, std::exp(x))
HJEMU_OCML1(exp2, std::exp2(x))
HJEMU_OCML1(exp10, std::pow(decltype(x)(10), x))
HJEMU_OCML1(expm1, std::expm1(x))
HJEMU_OCML1(log, std::log(x))
HJEMU_OCML1(log2, std::log2(x))
HJEMU_OCML1(log10, std::log10(x))
HJEMU_OCML1(log1p, std::log1p(x))
HJEMU_OCML1(sqrt, std::sqrt(x))
HJEMU_OCML1(rsqrt, 1 / std::sqrt(x))
HJEMU_OCML1(rcbrt, 1 / std::cbrt(x))
HJEMU_OCML1(cbrt, std::cbrt(x))
HJEMU_OCML1(sin, std::sin(x))
HJEMU_OCML1(cos, std::cos(x))
HJEMU_OCML1(tan, std::tan(x))
HJEMU_OCML1(tanh, std::tanh(x))
HJEMU_OCML1(sinh, std::sinh(x))
HJEMU_OCML1(cosh, std::cosh(x))
HJEMU_OCML1(atan, std::atan(x))
HJEMU_OCML1(asin, std::asin(x))
HJEMU_OCML1(acos, std::acos(x))
HJEMU_OCML1(erf, std::erf(x))
HJEMU_OCML1(erfc, std::erfc(x))
HJEMU_OCML1(fabs, std::fabs(x))
HJEMU_OCML1(floor, std::floor(x))
HJEMU_OCML1(ceil, std::ceil(x))
HJEMU_OCML1(trunc, std::trunc(x))
HJEMU_OCML1(rint, std::rint(x))
HJEMU_OCML1(round, std::round(x))
HJEMU_OCML1(native_exp, std::exp(x))
HJEMU_OCML1(native_exp2, std::exp2(x))
HJEMU_OCML1(native_log, std::log(x))
HJEMU_OCML1(native_log2, std::log2(x))
HJEMU_OCML1(native_sqrt, std::sqrt(x))
HJEMU_OCML1(native_rsqrt, 1 / std::sqrt(x))
HJEMU_OCML1(native_recip, 1 / x)
HJEMU_OCML2(fmax, std::fmax(x, y))
HJEMU_OCML2(fmin, std::fmin(x, y))
HJEMU_OCML2(pow, std::pow(x, y))
HJEMU_OCML2(fmod, std::fmod(x, y))
HJEMU_OCML2(atan2, std::atan2(x, y))
HJEMU_OCML2(hypot, std::hypot(x, y))
HJEMU_OCML2(copysign, std::copysign(x, y))
HJEMU_OCML2(fdim, std::fdim(x, y))
#undef HJEMU_OCML1
#undef HJEMU_OCML2
inline float __ocml_fma_f32(float x, float y, float z) { return (float)((double)x * y + z); }
inline double __ocml_fma_f64(double x, double y, double z) { return std::fma(x, y, z); }

// ---- refused by name: gfx942 builtins the emulated device does not model --------------------------
#define HJEMU_NOT_MODELLED(NAME)                                                                  \
    template <class... T>                                                                         \
    inline int NAME(T...) {                                                                       \
        static_assert(hjemu::never<T...>::value, "hjemu: " #NAME " is not modelled on the emulated device"); \
        return 0;                                                                                 \
    }
HJEMU_NOT_MODELLED(__builtin_amdgcn_smfmac_f32_16x16x32_f16)
HJEMU_NOT_MODELLED(__builtin_amdgcn_smfmac_f32_32x32x16_f16)
HJEMU_NOT_MODELLED(__builtin_amdgcn_smfmac_f32_16x16x32_bf16)
HJEMU_NOT_MODELLED(__builtin_amdgcn_smfmac_f32_32x32x16_bf16)
HJEMU_NOT_MODELLED(__builtin_amdgcn_smfmac_i32_16x16x64_i8)
HJEMU_NOT_MODELLED(__builtin_amdgcn_smfmac_i32_32x32x32_i8)
HJEMU_NOT_MODELLED(__builtin_amdgcn_smfmac_f32_16x16x64_fp8_fp8)
HJEMU_NOT_MODELLED(__builtin_amdgcn_smfmac_f32_32x32x32_fp8_fp8)
HJEMU_NOT_MODELLED(__builtin_amdgcn_cvt_sr_fp8_f32)
HJEMU_NOT_MODELLED(__builtin_amdgcn_cvt_sr_bf8_f32)
HJEMU_NOT_MODELLED(__builtin_amdgcn_permlanex16)
HJEMU_NOT_MODELLED(__builtin_amdgcn_permlane16)
HJEMU_NOT_MODELLED(__builtin_amdgcn_permlane64)
HJEMU_NOT_MODELLED(__builtin_amdgcn_mov_dpp8)
HJEMU_NOT_MODELLED(__builtin_amdgcn_s_getreg)
HJEMU_NOT_MODELLED(__builtin_amdgcn_s_sendmsg)
#undef HJEMU_NOT_MODELLED
