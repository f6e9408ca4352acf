// 8-bit floats on the host: HIP's hip_fp8.h (MI300X's FNUZ formats __hip_fp8_e4m3_fnuz and
// __hip_fp8_e5m2_fnuz, and the OCP __hip_fp8_e4m3 and __hip_fp8_e5m2 of MI355X) and CUDA's
// cuda_fp8.h (__nv_fp8_e4m3, __nv_fp8_e5m2). Conversions round to nearest even; the types'
// constructors saturate (__HIP_SATFINITE, __NV_SATFINITE): finite values beyond the largest become
// the largest of their sign, infinities too in the OCP formats and NaN in the FNUZ ones, NaN stays
// NaN. The cvt functions take the saturation as the APIs do (NOSAT: overflow to infinity, or NaN
// where the format has none). hipjudge/lowp.h has the rules, checked against ml_dtypes.
#pragma once

#if !defined(HJEMU_API)
#error "include hip/hip_runtime.h or cuda_runtime.h before hip_fp8.h or cuda_fp8.h"
#endif

#include <hipjudge/lowp.h>

#include "bf16.h"
#include "fp16.h"

namespace hjemu {
template <const hj::lowp::Format& F>
struct fp8 {
    unsigned char __x;
    fp8() = default;
    fp8(float f) : __x((unsigned char)hj::lowp::encode(f, F, true)) {}
    fp8(double d) : __x((unsigned char)hj::lowp::encode(d, F, true)) {}
    explicit fp8(__half h) : fp8((float)h) {}
    explicit fp8(bf16 b) : fp8((float)b) {}
    explicit fp8(int i) : fp8((double)i) {}
    explicit fp8(unsigned int i) : fp8((double)i) {}
    explicit fp8(long long i) : fp8((double)i) {}
    operator float() const { return (float)hj::lowp::decode(__x, F); }
    explicit operator double() const { return hj::lowp::decode(__x, F); }
    explicit operator __half() const { return __half((float)*this); }
    explicit operator bf16() const { return bf16((float)*this); }
};
template <const hj::lowp::Format& F>
struct fp8x2 {
    unsigned short __x;
    fp8x2() = default;
    explicit fp8x2(float2 f)
        : __x((unsigned short)(hj::lowp::encode(f.x, F, true) | hj::lowp::encode(f.y, F, true) << 8)) {}
    explicit operator float2() const {
        return make_float2((float)hj::lowp::decode(__x & 0xFF, F), (float)hj::lowp::decode(__x >> 8, F));
    }
};
template <const hj::lowp::Format& F>
struct fp8x4 {
    unsigned int __x;
    fp8x4() = default;
    explicit fp8x4(float4 f)
        : __x(hj::lowp::encode(f.x, F, true) | hj::lowp::encode(f.y, F, true) << 8 |
              hj::lowp::encode(f.z, F, true) << 16 | hj::lowp::encode(f.w, F, true) << 24) {}
    explicit operator float4() const {
        return make_float4((float)hj::lowp::decode(__x & 0xFF, F), (float)hj::lowp::decode(__x >> 8 & 0xFF, F),
                           (float)hj::lowp::decode(__x >> 16 & 0xFF, F), (float)hj::lowp::decode(__x >> 24, F));
    }
};
inline const hj::lowp::Format& fp8_format(int interpretation) {
    switch (interpretation) {  // the HIP enum's order; CUDA's E4M3/E5M2 map to 2 and 3
        case 0: return hj::lowp::kE4M3Fnuz;
        case 1: return hj::lowp::kE5M2Fnuz;
        case 2: return hj::lowp::kE4M3Fn;
        default: return hj::lowp::kE5M2;
    }
}
}  // namespace hjemu

#if defined(HJEMU_HIP)
typedef unsigned char __hip_fp8_storage_t;
typedef unsigned short __hip_fp8x2_storage_t;
typedef unsigned int __hip_fp8x4_storage_t;
enum __hip_saturation_t { __HIP_NOSAT = 0, __HIP_SATFINITE = 1 };
enum __hip_fp8_interpretation_t { __HIP_E4M3_FNUZ = 0, __HIP_E5M2_FNUZ = 1, __HIP_E4M3 = 2, __HIP_E5M2 = 3 };
typedef hjemu::fp8<hj::lowp::kE4M3Fnuz> __hip_fp8_e4m3_fnuz;
typedef hjemu::fp8<hj::lowp::kE5M2Fnuz> __hip_fp8_e5m2_fnuz;
typedef hjemu::fp8<hj::lowp::kE4M3Fn> __hip_fp8_e4m3;
typedef hjemu::fp8<hj::lowp::kE5M2> __hip_fp8_e5m2;
typedef hjemu::fp8x2<hj::lowp::kE4M3Fnuz> __hip_fp8x2_e4m3_fnuz;
typedef hjemu::fp8x2<hj::lowp::kE5M2Fnuz> __hip_fp8x2_e5m2_fnuz;
typedef hjemu::fp8x4<hj::lowp::kE4M3Fnuz> __hip_fp8x4_e4m3_fnuz;
typedef hjemu::fp8x4<hj::lowp::kE5M2Fnuz> __hip_fp8x4_e5m2_fnuz;

inline __hip_fp8_storage_t __hip_cvt_float_to_fp8(float f, __hip_saturation_t sat, __hip_fp8_interpretation_t t) {
    return (__hip_fp8_storage_t)hj::lowp::encode(f, hjemu::fp8_format(t), sat == __HIP_SATFINITE);
}
inline __hip_fp8_storage_t __hip_cvt_double_to_fp8(double d, __hip_saturation_t sat, __hip_fp8_interpretation_t t) {
    return (__hip_fp8_storage_t)hj::lowp::encode(d, hjemu::fp8_format(t), sat == __HIP_SATFINITE);
}
inline __hip_fp8x2_storage_t __hip_cvt_float2_to_fp8x2(float2 f, __hip_saturation_t sat,
                                                       __hip_fp8_interpretation_t t) {
    return (__hip_fp8x2_storage_t)(__hip_cvt_float_to_fp8(f.x, sat, t) | __hip_cvt_float_to_fp8(f.y, sat, t) << 8);
}
inline __half_raw __hip_cvt_fp8_to_halfraw(__hip_fp8_storage_t x, __hip_fp8_interpretation_t t) {
    return (__half_raw)__half((float)hj::lowp::decode(x, hjemu::fp8_format(t)));
}
inline __half2_raw __hip_cvt_fp8x2_to_halfraw2(__hip_fp8x2_storage_t x, __hip_fp8_interpretation_t t) {
    return __half2_raw{__hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x & 0xFF), t).x,
                       __hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x >> 8), t).x};
}
#else
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
enum __nv_saturation_t { __NV_NOSAT = 0, __NV_SATFINITE = 1 };
enum __nv_fp8_interpretation_t { __NV_E4M3 = 2, __NV_E5M2 = 3 };
typedef hjemu::fp8<hj::lowp::kE4M3Fn> __nv_fp8_e4m3;
typedef hjemu::fp8<hj::lowp::kE5M2> __nv_fp8_e5m2;
typedef hjemu::fp8x2<hj::lowp::kE4M3Fn> __nv_fp8x2_e4m3;
typedef hjemu::fp8x2<hj::lowp::kE5M2> __nv_fp8x2_e5m2;
typedef hjemu::fp8x4<hj::lowp::kE4M3Fn> __nv_fp8x4_e4m3;
typedef hjemu::fp8x4<hj::lowp::kE5M2> __nv_fp8x4_e5m2;

inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float f, __nv_saturation_t sat, __nv_fp8_interpretation_t t) {
    return (__nv_fp8_storage_t)hj::lowp::encode(f, hjemu::fp8_format(t), sat == __NV_SATFINITE);
}
inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double d, __nv_saturation_t sat, __nv_fp8_interpretation_t t) {
    return (__nv_fp8_storage_t)hj::lowp::encode(d, hjemu::fp8_format(t), sat == __NV_SATFINITE);
}
inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 f, __nv_saturation_t sat, __nv_fp8_interpretation_t t) {
    return (__nv_fp8x2_storage_t)(__nv_cvt_float_to_fp8(f.x, sat, t) | __nv_cvt_float_to_fp8(f.y, sat, t) << 8);
}
inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw h, __nv_saturation_t sat, __nv_fp8_interpretation_t t) {
    return __nv_cvt_float_to_fp8((float)__half(h), sat, t);
}
inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(hjemu::bf16_raw b, __nv_saturation_t sat,
                                                      __nv_fp8_interpretation_t t) {
    return __nv_cvt_float_to_fp8((float)hjemu::bf16(b), sat, t);
}
inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t t) {
    return (__half_raw)__half((float)hj::lowp::decode(x, hjemu::fp8_format(t)));
}
inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t t) {
    return __half2_raw{__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)(x & 0xFF), t).x,
                       __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)(x >> 8), t).x};
}
#endif
