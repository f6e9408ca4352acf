// bfloat16 and its pairs on the host: HIP's __hip_bfloat16/__hip_bfloat162 (hip_bf16.h) and
// hip_bfloat16 (hip_bfloat16.h), CUDA's __nv_bfloat16/__nv_bfloat162 (cuda_bf16.h). Conversions
// round to nearest even (hipjudge/lowp.h); arithmetic is done in float and rounded once, as the
// GPUs' bfloat16 instructions round.
#pragma once

#if !defined(HJEMU_API)
#error "include hip/hip_runtime.h or cuda_runtime.h before hip_bf16.h or cuda_bf16.h"
#endif

#include <hipjudge/lowp.h>

#include <cmath>

#include "fp16.h"

namespace hjemu {
struct bf16_raw {
    unsigned short x;
};
struct bf16 {
    unsigned short __x;
    bf16() = default;
    bf16(const bf16_raw& r) : __x(r.x) {}
    bf16(float f) : __x(hj::lowp::float_to_bfloat16(f)) {}
    bf16(double d) : __x((unsigned short)hj::lowp::encode(d, hj::lowp::kBfloat16, false)) {}
    bf16(int i) : bf16((double)i) {}
    bf16(unsigned int i) : bf16((double)i) {}
    bf16(long long i) : bf16((double)i) {}
    bf16(__half h) : bf16((float)h) {}
    operator float() const { return hj::lowp::bfloat16_to_float(__x); }
    operator bf16_raw() const { return bf16_raw{__x}; }
    bf16& operator+=(const bf16& o) { return *this = bf16((float)*this + (float)o); }
    bf16& operator-=(const bf16& o) { return *this = bf16((float)*this - (float)o); }
    bf16& operator*=(const bf16& o) { return *this = bf16((float)*this * (float)o); }
    bf16& operator/=(const bf16& o) { return *this = bf16((float)*this / (float)o); }
    static bf16 from_bits(unsigned short b) { bf16 v; v.__x = b; return v; }
};
struct bf16x2 {
    bf16 x, y;
    bf16x2() = default;
    bf16x2(const bf16& a, const bf16& b) : x(a), y(b) {}
};
inline float bff(bf16 v) { return (float)v; }
}  // namespace hjemu

#if defined(HJEMU_HIP)
typedef hjemu::bf16 __hip_bfloat16;
typedef hjemu::bf16x2 __hip_bfloat162;
typedef hjemu::bf16_raw __hip_bfloat16_raw;
// ROCm's older hip_bfloat16 (hip/hip_bfloat16.h): the same bits, converting from and to float.
typedef hjemu::bf16 hip_bfloat16;
#else
typedef hjemu::bf16 __nv_bfloat16;
typedef hjemu::bf16x2 __nv_bfloat162;
typedef hjemu::bf16_raw __nv_bfloat16_raw;
#endif

inline hjemu::bf16 __float2bfloat16(float f) { return hjemu::bf16(f); }
inline hjemu::bf16 __float2bfloat16_rn(float f) { return hjemu::bf16(f); }
inline hjemu::bf16 __double2bfloat16(double d) { return hjemu::bf16(d); }
inline float __bfloat162float(hjemu::bf16 v) { return (float)v; }
inline hjemu::bf16 __int2bfloat16_rn(int i) { return hjemu::bf16(i); }
inline int __bfloat162int_rz(hjemu::bf16 v) { return (int)(float)v; }
inline unsigned short __bfloat16_as_ushort(hjemu::bf16 v) { return v.__x; }
inline short __bfloat16_as_short(hjemu::bf16 v) { return (short)v.__x; }
inline hjemu::bf16 __ushort_as_bfloat16(unsigned short s) { return hjemu::bf16::from_bits(s); }
inline hjemu::bf16 __short_as_bfloat16(short s) { return hjemu::bf16::from_bits((unsigned short)s); }
inline hjemu::bf16x2 __floats2bfloat162_rn(float a, float b) { return hjemu::bf16x2(hjemu::bf16(a), hjemu::bf16(b)); }
inline hjemu::bf16x2 __float2bfloat162_rn(float a) { return hjemu::bf16x2(hjemu::bf16(a), hjemu::bf16(a)); }
inline hjemu::bf16x2 __float22bfloat162_rn(float2 f) { return hjemu::bf16x2(hjemu::bf16(f.x), hjemu::bf16(f.y)); }
inline float2 __bfloat1622float2(hjemu::bf16x2 v) { return make_float2((float)v.x, (float)v.y); }
inline hjemu::bf16x2 __halves2bfloat162(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bf16x2(a, b); }
inline hjemu::bf16x2 __bfloat162bfloat162(hjemu::bf16 a) { return hjemu::bf16x2(a, a); }
inline float __low2float(hjemu::bf16x2 v) { return (float)v.x; }
inline float __high2float(hjemu::bf16x2 v) { return (float)v.y; }
inline hjemu::bf16 __low2bfloat16(hjemu::bf16x2 v) { return v.x; }
inline hjemu::bf16 __high2bfloat16(hjemu::bf16x2 v) { return v.y; }

inline hjemu::bf16 __hadd(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bf16(hjemu::bff(a) + hjemu::bff(b)); }
inline hjemu::bf16 __hsub(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bf16(hjemu::bff(a) - hjemu::bff(b)); }
inline hjemu::bf16 __hmul(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bf16(hjemu::bff(a) * hjemu::bff(b)); }
inline hjemu::bf16 __hdiv(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bf16(hjemu::bff(a) / hjemu::bff(b)); }
inline hjemu::bf16 __hfma(hjemu::bf16 a, hjemu::bf16 b, hjemu::bf16 c) {
    return hjemu::bf16(std::fma((double)hjemu::bff(a), (double)hjemu::bff(b), (double)hjemu::bff(c)));
}
inline hjemu::bf16 __hneg(hjemu::bf16 a) { return hjemu::bf16::from_bits((unsigned short)(a.__x ^ 0x8000)); }
inline hjemu::bf16 __habs(hjemu::bf16 a) { return hjemu::bf16::from_bits((unsigned short)(a.__x & 0x7FFF)); }
inline hjemu::bf16 __hmax(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bf16(fmaxf(hjemu::bff(a), hjemu::bff(b))); }
inline hjemu::bf16 __hmin(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bf16(fminf(hjemu::bff(a), hjemu::bff(b))); }
inline bool __heq(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bff(a) == hjemu::bff(b); }
inline bool __hlt(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bff(a) < hjemu::bff(b); }
inline bool __hgt(hjemu::bf16 a, hjemu::bf16 b) { return hjemu::bff(a) > hjemu::bff(b); }
inline bool __hisnan(hjemu::bf16 a) { return std::isnan(hjemu::bff(a)); }
inline hjemu::bf16 hsqrt(hjemu::bf16 a) { return hjemu::bf16(std::sqrt(hjemu::bff(a))); }
inline hjemu::bf16 hexp(hjemu::bf16 a) { return hjemu::bf16(std::exp(hjemu::bff(a))); }

inline hjemu::bf16 operator+(const hjemu::bf16& a, const hjemu::bf16& b) { return __hadd(a, b); }
inline hjemu::bf16 operator-(const hjemu::bf16& a, const hjemu::bf16& b) { return __hsub(a, b); }
inline hjemu::bf16 operator*(const hjemu::bf16& a, const hjemu::bf16& b) { return __hmul(a, b); }
inline hjemu::bf16 operator/(const hjemu::bf16& a, const hjemu::bf16& b) { return __hdiv(a, b); }
inline hjemu::bf16 operator-(const hjemu::bf16& a) { return __hneg(a); }
inline bool operator==(const hjemu::bf16& a, const hjemu::bf16& b) { return __heq(a, b); }
inline bool operator<(const hjemu::bf16& a, const hjemu::bf16& b) { return __hlt(a, b); }
inline bool operator>(const hjemu::bf16& a, const hjemu::bf16& b) { return __hgt(a, b); }

#define HJEMU_BF2(NAME, OP)                                                                           \
    inline hjemu::bf16x2 NAME(hjemu::bf16x2 a, hjemu::bf16x2 b) { return hjemu::bf16x2(OP(a.x, b.x), OP(a.y, b.y)); }
HJEMU_BF2(__hadd2, __hadd)
HJEMU_BF2(__hsub2, __hsub)
HJEMU_BF2(__hmul2, __hmul)
HJEMU_BF2(__hmax2, __hmax)
HJEMU_BF2(__hmin2, __hmin)
#undef HJEMU_BF2
inline hjemu::bf16x2 __hfma2(hjemu::bf16x2 a, hjemu::bf16x2 b, hjemu::bf16x2 c) {
    return hjemu::bf16x2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
inline hjemu::bf16x2 operator+(const hjemu::bf16x2& a, const hjemu::bf16x2& b) { return __hadd2(a, b); }
inline hjemu::bf16x2 operator*(const hjemu::bf16x2& a, const hjemu::bf16x2& b) { return __hmul2(a, b); }
