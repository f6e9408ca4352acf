// hipjudge/lowp.h: 16- and 8-bit floating-point storage types for C++ solutions on the host, with
// the conversions the GPUs make. The emulated device's hip_fp16.h, hip_bf16.h, hip_fp8.h and their
// CUDA counterparts are built on the same conversions, so a kernel checked on the CPU rounds as it
// would on MI300X or an NVIDIA GPU.
//
//   #include <hipjudge/lowp.h>
//   extern "C" void solution(const hj_bfloat16* a, hj_bfloat16* out, size_t n) {
//       for (size_t i = 0; i < n; ++i) out[i] = hj_bfloat16(2.0f * float(a[i]));
//   }
//
// Types (each holds its bits in `bits`; `T::from_bits(b)` makes one from raw bits):
//   hj_half          IEEE binary16            1-5-10, bias 15,  max 65504, inf and NaN
//   hj_bfloat16      bfloat16                 1-8-7,  bias 127, max 3.39e38, inf and NaN
//   hj_fp8_e4m3fnuz  MI300X's fp8 (FNUZ)      1-4-3,  bias 8,   max 240,   no inf, NaN = 0x80, no -0
//   hj_fp8_e5m2fnuz  MI300X's bf8 (FNUZ)      1-5-2,  bias 16,  max 57344, no inf, NaN = 0x80, no -0
//   hj_fp8_e4m3fn    OCP E4M3 (MI355X, NVIDIA) 1-4-3, bias 7,   max 448,   no inf, NaN = S.1111.111
//   hj_fp8_e5m2      OCP E5M2 (MI355X, NVIDIA) 1-5-2, bias 15,  max 57344, inf and NaN
//
// Conversions from float round to nearest, ties to even. half and bfloat16 overflow to infinity, as
// __float2half and __float2bfloat16 do. The fp8 types saturate, as the HIP and CUDA fp8 types'
// constructors do (__HIP_SATFINITE, __NV_SATFINITE): a finite value beyond the largest is the
// largest of its sign, an infinity is the largest of its sign in the OCP formats and NaN in the
// FNUZ ones (which have no infinity), NaN stays NaN. hj::lowp::encode(x, format, false) converts
// without saturation (overflow to infinity, or to NaN where the format has none), as ml_dtypes'
// astype does. Conversions to float are exact.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace hj {
namespace lowp {

struct Format {
    int exponent_bits;
    int mantissa_bits;
    int bias;
    bool fnuz;      // no infinity, no negative zero, the one NaN is the sign bit alone
    bool ieee;      // infinity and NaNs at the all-ones exponent (half, bfloat16, E5M2)
    // otherwise OCP E4M3: no infinity, NaN is all-ones exponent and mantissa
};

inline constexpr Format kHalf{5, 10, 15, false, true};
inline constexpr Format kBfloat16{8, 7, 127, false, true};
inline constexpr Format kE4M3Fnuz{4, 3, 8, true, false};
inline constexpr Format kE5M2Fnuz{5, 2, 16, true, false};
inline constexpr Format kE4M3Fn{4, 3, 7, false, false};
inline constexpr Format kE5M2{5, 2, 15, false, true};

constexpr int sign_shift(Format f) { return f.exponent_bits + f.mantissa_bits; }
constexpr uint32_t exponent_ones(Format f) { return (1u << f.exponent_bits) - 1; }
constexpr uint32_t mantissa_ones(Format f) { return (1u << f.mantissa_bits) - 1; }

// The largest finite value.
inline double max_finite(Format f) {
    const int top = (int)exponent_ones(f) - (f.ieee ? 1 : 0);  // the largest exponent field of a finite number
    const double mantissa = f.ieee || f.fnuz ? 2.0 - std::ldexp(1.0, -f.mantissa_bits)   // all ones
                                             : 2.0 - std::ldexp(1.0, 1 - f.mantissa_bits);  // E4M3: all ones is NaN
    return std::ldexp(mantissa, top - f.bias);
}

inline uint32_t nan_bits(Format f, bool negative) {
    if (f.fnuz) return 1u << sign_shift(f);
    const uint32_t sign = negative ? 1u << sign_shift(f) : 0u;
    if (f.ieee) return sign | exponent_ones(f) << f.mantissa_bits | 1u << (f.mantissa_bits - 1);  // quiet
    return sign | exponent_ones(f) << f.mantissa_bits | mantissa_ones(f);
}

inline uint32_t largest_bits(Format f, bool negative) {
    const uint32_t sign = negative ? 1u << sign_shift(f) : 0u;
    const uint32_t top = exponent_ones(f) - (f.ieee ? 1 : 0);
    const uint32_t mantissa = f.ieee || f.fnuz ? mantissa_ones(f) : mantissa_ones(f) - 1;
    return sign | top << f.mantissa_bits | mantissa;
}

// bits -> value, exactly (a double holds every value of these formats).
inline double decode(uint32_t bits, Format f) {
    const bool negative = bits >> sign_shift(f) & 1;
    const uint32_t exponent = bits >> f.mantissa_bits & exponent_ones(f);
    const uint32_t mantissa = bits & mantissa_ones(f);
    if (f.fnuz && bits == (1u << sign_shift(f))) return NAN;
    if (f.ieee && exponent == exponent_ones(f)) return mantissa ? NAN : (negative ? -INFINITY : INFINITY);
    if (!f.ieee && !f.fnuz && exponent == exponent_ones(f) && mantissa == mantissa_ones(f)) return NAN;
    const double magnitude = exponent == 0 ? std::ldexp((double)mantissa, 1 - f.bias - f.mantissa_bits)
                                           : std::ldexp((double)(mantissa | 1u << f.mantissa_bits),
                                                        (int)exponent - f.bias - f.mantissa_bits);
    return negative ? -magnitude : magnitude;
}

// value -> bits, rounding to nearest even; `saturate` as the fp8 constructors of HIP and CUDA.
inline uint32_t encode(double x, Format f, bool saturate) {
    const bool negative = std::signbit(x);
    const uint32_t sign = negative ? 1u << sign_shift(f) : 0u;
    if (std::isnan(x)) return nan_bits(f, negative);
    double a = std::fabs(x);
    const double largest = max_finite(f);
    if (std::isinf(a)) {
        if (f.fnuz) return nan_bits(f, negative);
        if (saturate) return largest_bits(f, negative);
        return f.ieee ? sign | exponent_ones(f) << f.mantissa_bits : nan_bits(f, negative);
    }
    if (saturate && a > largest) a = largest;
    const int min_exponent = 1 - f.bias;  // of the smallest normal number
    int exponent = a == 0.0 ? min_exponent : std::ilogb(a);
    if (exponent < min_exponent) exponent = min_exponent;
    // a / quantum is exact (powers of two); nearbyint rounds ties to even in the default mode.
    const double units = std::nearbyint(std::ldexp(a, f.mantissa_bits - exponent));
    const double rounded = std::ldexp(units, exponent - f.mantissa_bits);
    if (rounded > largest) {
        if (saturate) return largest_bits(f, negative);
        return f.ieee ? sign | exponent_ones(f) << f.mantissa_bits : nan_bits(f, negative);
    }
    if (rounded == 0.0) return f.fnuz ? 0u : sign;
    const int e = std::ilogb(rounded);
    if (e < min_exponent)  // subnormal: exponent field 0
        return sign | (uint32_t)std::ldexp(rounded, f.bias - 1 + f.mantissa_bits);
    const uint32_t mantissa = (uint32_t)std::ldexp(rounded, f.mantissa_bits - e) & mantissa_ones(f);
    return sign | (uint32_t)(e + f.bias) << f.mantissa_bits | mantissa;
}

// The hot conversions, by bits: bfloat16 <-> float and half -> float.
inline float bits_to_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline uint32_t float_to_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float bfloat16_to_float(uint16_t b) { return bits_to_float((uint32_t)b << 16); }
inline uint16_t float_to_bfloat16(float f) {
    const uint32_t u = float_to_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)(u >> 16 | 0x40);  // NaN stays a quiet NaN
    return (uint16_t)((u + 0x7FFFu + (u >> 16 & 1)) >> 16);                  // ties to even; overflow to inf
}
inline float half_to_float(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = h >> 10 & 0x1F, mantissa = h & 0x3FF;
    if (exponent == 0x1F) return bits_to_float(sign | 0x7F800000u | mantissa << 13);
    if (exponent == 0) {
        const float magnitude = (float)mantissa * 5.9604644775390625e-8f;  // 2^-24, exact
        return sign ? -magnitude : magnitude;
    }
    return bits_to_float(sign | (exponent + 112) << 23 | mantissa << 13);
}
inline uint16_t float_to_half(float f) { return (uint16_t)encode(f, kHalf, false); }

template <class Bits, const Format& F, bool Saturate>
struct Storage {
    Bits bits;
    Storage() = default;
    Storage(float value) : bits((Bits)encode(value, F, Saturate)) {}  // NOLINT: implicit, as GPU types
    Storage(double value) : bits((Bits)encode(value, F, Saturate)) {}
    Storage(int value) : Storage((double)value) {}
    operator float() const { return (float)decode(bits, F); }
    static Storage from_bits(Bits b) {
        Storage s;
        s.bits = b;
        return s;
    }
};

}  // namespace lowp
}  // namespace hj

struct hj_half {
    uint16_t bits;
    hj_half() = default;
    hj_half(float value) : bits(hj::lowp::float_to_half(value)) {}  // NOLINT: implicit, as __half
    hj_half(double value) : bits((uint16_t)hj::lowp::encode(value, hj::lowp::kHalf, false)) {}
    hj_half(int value) : hj_half((double)value) {}
    operator float() const { return hj::lowp::half_to_float(bits); }
    static hj_half from_bits(uint16_t b) { hj_half h; h.bits = b; return h; }
};

struct hj_bfloat16 {
    uint16_t bits;
    hj_bfloat16() = default;
    hj_bfloat16(float value) : bits(hj::lowp::float_to_bfloat16(value)) {}  // NOLINT: implicit
    hj_bfloat16(double value) : bits((uint16_t)hj::lowp::encode(value, hj::lowp::kBfloat16, false)) {}
    hj_bfloat16(int value) : hj_bfloat16((double)value) {}
    operator float() const { return hj::lowp::bfloat16_to_float(bits); }
    static hj_bfloat16 from_bits(uint16_t b) { hj_bfloat16 h; h.bits = b; return h; }
};

using hj_fp8_e4m3fnuz = hj::lowp::Storage<uint8_t, hj::lowp::kE4M3Fnuz, true>;
using hj_fp8_e5m2fnuz = hj::lowp::Storage<uint8_t, hj::lowp::kE5M2Fnuz, true>;
using hj_fp8_e4m3fn = hj::lowp::Storage<uint8_t, hj::lowp::kE4M3Fn, true>;
using hj_fp8_e5m2 = hj::lowp::Storage<uint8_t, hj::lowp::kE5M2, true>;

static_assert(sizeof(hj_half) == 2 && sizeof(hj_bfloat16) == 2 && sizeof(hj_fp8_e4m3fnuz) == 1 &&
              sizeof(hj_fp8_e5m2fnuz) == 1 && sizeof(hj_fp8_e4m3fn) == 1 && sizeof(hj_fp8_e5m2) == 1,
              "storage types are exactly their bits");
