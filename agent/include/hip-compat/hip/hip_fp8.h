// hipjudge's stand-in for ROCm 6's <hip/hip_fp8.h> on a hipcc that ships none (Debian's ROCm 5.2):
// found through `-idirafter` only, so a hipcc with the real header never sees this one. The FNUZ
// formats of MI300X (__hip_fp8_e4m3_fnuz, __hip_fp8_e5m2_fnuz) and the OCP ones (__hip_fp8_e4m3,
// __hip_fp8_e5m2), as ROCm's documented API names them; a name missing here is a compile error
// naming it, never a different result. Conversions round to nearest even; the types' constructors
// saturate (__HIP_SATFINITE: beyond the largest finite value is the largest of its sign, and so is an
// infinity in the OCP formats, NaN in the FNUZ ones, as agent/include/hipjudge/lowp.h), the cvt
// functions take the saturation as argument (__HIP_NOSAT: infinity where the format has one, else NaN).
#pragma once

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

typedef unsigned char __hip_fp8_storage_t;
typedef unsigned short __hip_fp8x2_storage_t;
typedef unsigned int __hip_fp8x4_storage_t;
enum __hip_saturation_t { __HIP_NOSAT = 0, __HIP_SATFINITE = 1 };
enum __hip_fp8_interpretation_t { __HIP_E4M3_FNUZ = 0, __HIP_E5M2_FNUZ = 1, __HIP_E4M3 = 2, __HIP_E5M2 = 3 };

namespace hipjudge_compat {
struct Fp8Format {
    int mantissa_bits;
    int bias;
    bool fnuz;       // no infinity, no negative zero, NaN is 0x80
    bool infinity;   // OCP E5M2: 0x7C is infinity, above it NaN
    float largest;   // the largest finite value
    unsigned char largest_bits;
    unsigned char nan_bits;
};

__host__ __device__ inline Fp8Format fp8_format(__hip_fp8_interpretation_t t) {
    switch (t) {
        case __HIP_E4M3_FNUZ: return {3, 8, true, false, 240.0f, 0x7F, 0x80};
        case __HIP_E5M2_FNUZ: return {2, 16, true, false, 57344.0f, 0x7F, 0x80};
        case __HIP_E4M3: return {3, 7, false, false, 448.0f, 0x7E, 0x7F};
        default: return {2, 15, false, true, 57344.0f, 0x7B, 0x7E};
    }
}

// In double: a double converts with one rounding, and every float is a double exactly.
__host__ __device__ inline unsigned char fp8_encode(double x, __hip_fp8_interpretation_t t, bool saturate) {
    const Fp8Format f = fp8_format(t);
    if (x != x) return f.nan_bits;
    const unsigned int sign = __builtin_signbit(x) ? 0x80u : 0u;
    const double a = fabs(x), largest = f.largest;
    if (f.fnuz && a == __builtin_huge_val()) return 0x80;  // ROCm's FNUZ saturation keeps infinity a NaN
    const int emin = 1 - f.bias;  // the smallest normal exponent; below it the subnormals' quantum
    int e = 0;
    frexp(a, &e);
    const int exponent = (a == 0.0 || e - 1 < emin) ? emin : e - 1;
    const double quantum = ldexp(1.0, exponent - f.mantissa_bits);
    const double r = a > 2.0 * largest ? a : rint(a / quantum) * quantum;  // rint: to nearest even
    if (r > largest) {
        if (saturate) return (unsigned char)(sign | f.largest_bits);
        return (unsigned char)(f.infinity ? (sign | 0x7Cu) : (f.fnuz ? 0x80u : (sign | f.nan_bits)));
    }
    if (r == 0.0) return (unsigned char)(f.fnuz ? 0u : sign);
    frexp(r, &e);
    if (e - 1 < emin) return (unsigned char)(sign | (unsigned int)(r / ldexp(1.0, emin - f.mantissa_bits)));
    const unsigned int mantissa = (unsigned int)(r / ldexp(1.0, e - 1 - f.mantissa_bits)) - (1u << f.mantissa_bits);
    return (unsigned char)(sign | (unsigned int)(e - 1 + f.bias) << f.mantissa_bits | mantissa);
}

__host__ __device__ inline float fp8_decode(unsigned char b, __hip_fp8_interpretation_t t) {
    const Fp8Format f = fp8_format(t);
    const unsigned int magnitude = b & 0x7Fu;
    const unsigned int field = magnitude >> f.mantissa_bits, mantissa = magnitude & ((1u << f.mantissa_bits) - 1);
    if (f.fnuz ? b == 0x80u : (magnitude > f.largest_bits && !(f.infinity && magnitude == 0x7Cu)))
        return __builtin_nanf("");
    float v;
    if (f.infinity && magnitude == 0x7Cu) {
        v = __builtin_huge_valf();
    } else if (field == 0) {
        v = ldexpf((float)mantissa, 1 - f.bias - f.mantissa_bits);
    } else {
        v = ldexpf((float)(mantissa + (1u << f.mantissa_bits)), (int)field - f.bias - f.mantissa_bits);
    }
    return (b & 0x80u) ? -v : v;
}

template <__hip_fp8_interpretation_t T>
struct fp8 {
    __hip_fp8_storage_t __x;
    fp8() = default;
    __host__ __device__ fp8(float f) : __x(fp8_encode(f, T, true)) {}
    __host__ __device__ fp8(double d) : __x(fp8_encode(d, T, true)) {}
    __host__ __device__ explicit fp8(int i) : fp8((float)i) {}
    __host__ __device__ explicit fp8(unsigned int i) : fp8((float)i) {}
    __host__ __device__ operator float() const { return fp8_decode(__x, T); }
};

template <__hip_fp8_interpretation_t T>
struct fp8x2 {
    __hip_fp8x2_storage_t __x;
    fp8x2() = default;
    __host__ __device__ explicit fp8x2(float2 f)
        : __x((__hip_fp8x2_storage_t)(fp8_encode(f.x, T, true) | fp8_encode(f.y, T, true) << 8)) {}
    __host__ __device__ explicit operator float2() const {
        return make_float2(fp8_decode((unsigned char)(__x & 0xFF), T), fp8_decode((unsigned char)(__x >> 8), T));
    }
};

template <__hip_fp8_interpretation_t T>
struct fp8x4 {
    __hip_fp8x4_storage_t __x;
    fp8x4() = default;
    __host__ __device__ explicit fp8x4(float4 f)
        : __x((unsigned int)fp8_encode(f.x, T, true) | (unsigned int)fp8_encode(f.y, T, true) << 8 |
              (unsigned int)fp8_encode(f.z, T, true) << 16 | (unsigned int)fp8_encode(f.w, T, true) << 24) {}
    __host__ __device__ explicit operator float4() const {
        return make_float4(fp8_decode((unsigned char)(__x & 0xFF), T), fp8_decode((unsigned char)(__x >> 8), T),
                           fp8_decode((unsigned char)(__x >> 16), T), fp8_decode((unsigned char)(__x >> 24), T));
    }
};
}  // namespace hipjudge_compat

typedef hipjudge_compat::fp8<__HIP_E4M3_FNUZ> __hip_fp8_e4m3_fnuz;
typedef hipjudge_compat::fp8<__HIP_E5M2_FNUZ> __hip_fp8_e5m2_fnuz;
typedef hipjudge_compat::fp8<__HIP_E4M3> __hip_fp8_e4m3;
typedef hipjudge_compat::fp8<__HIP_E5M2> __hip_fp8_e5m2;
typedef hipjudge_compat::fp8x2<__HIP_E4M3_FNUZ> __hip_fp8x2_e4m3_fnuz;
typedef hipjudge_compat::fp8x2<__HIP_E5M2_FNUZ> __hip_fp8x2_e5m2_fnuz;
typedef hipjudge_compat::fp8x4<__HIP_E4M3_FNUZ> __hip_fp8x4_e4m3_fnuz;
typedef hipjudge_compat::fp8x4<__HIP_E5M2_FNUZ> __hip_fp8x4_e5m2_fnuz;

__host__ __device__ inline __hip_fp8_storage_t __hip_cvt_float_to_fp8(float f, __hip_saturation_t sat,
                                                                      __hip_fp8_interpretation_t t) {
    return hipjudge_compat::fp8_encode(f, t, sat == __HIP_SATFINITE);
}
__host__ __device__ inline __hip_fp8_storage_t __hip_cvt_double_to_fp8(double d, __hip_saturation_t sat,
                                                                       __hip_fp8_interpretation_t t) {
    return hipjudge_compat::fp8_encode(d, t, sat == __HIP_SATFINITE);
}
__host__ __device__ inline __hip_fp8x2_storage_t __hip_cvt_float2_to_fp8x2(float2 f, __hip_saturation_t sat,
                                                                           __hip_fp8_interpretation_t t) {
    return (__hip_fp8x2_storage_t)(__hip_cvt_float_to_fp8(f.x, sat, t) | __hip_cvt_float_to_fp8(f.y, sat, t) << 8);
}
__host__ __device__ inline __half_raw __hip_cvt_fp8_to_halfraw(__hip_fp8_storage_t x, __hip_fp8_interpretation_t t) {
    return static_cast<__half_raw>(__half(hipjudge_compat::fp8_decode(x, t)));
}
__host__ __device__ inline __half2_raw __hip_cvt_fp8x2_to_halfraw2(__hip_fp8x2_storage_t x,
                                                                    __hip_fp8_interpretation_t t) {
    __half2_raw out;
    out.x = __hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x & 0xFF), t).x;
    out.y = __hip_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x >> 8), t).x;
    return out;
}
