// __half and __half2 of hip_fp16.h and cuda_fp16.h on the host. Conversions round to nearest even
// (hipjudge/lowp.h, checked against ml_dtypes over every bit pattern); arithmetic is done in float
// (fma in double) and rounded once, which for +, -, *, / and sqrt gives the correctly rounded half
// result a GPU's half instructions give. Include through <hip/hip_fp16.h> or <cuda_fp16.h>.
#pragma once

#if !defined(HJEMU_API)
#error "include hip/hip_runtime.h or cuda_runtime.h before hip_fp16.h or cuda_fp16.h"
#endif

#include <hipjudge/lowp.h>

#include <cmath>
#include <cstdint>

struct __half_raw {
    unsigned short x;
};
struct __half2_raw {
    unsigned short x, y;
};

struct __half {
    unsigned short __x;
    __half() = default;
    __half(const __half_raw& r) : __x(r.x) {}
    __half(float f) : __x(hj::lowp::float_to_half(f)) {}
    __half(double d) : __x((unsigned short)hj::lowp::encode(d, hj::lowp::kHalf, false)) {}
    __half(int i) : __half((double)i) {}
    __half(unsigned int i) : __half((double)i) {}
    __half(long long i) : __half((double)i) {}
    __half(unsigned long long i) : __half((double)i) {}
    __half(short i) : __half((double)i) {}
    __half(unsigned short i) : __half((double)i) {}
    operator float() const { return hj::lowp::half_to_float(__x); }
    operator __half_raw() const { return __half_raw{__x}; }
    __half& operator=(const __half_raw& r) { __x = r.x; return *this; }
    __half& operator+=(const __half& o) { return *this = __half((float)*this + (float)o); }
    __half& operator-=(const __half& o) { return *this = __half((float)*this - (float)o); }
    __half& operator*=(const __half& o) { return *this = __half((float)*this * (float)o); }
    __half& operator/=(const __half& o) { return *this = __half((float)*this / (float)o); }
};

struct __half2 {
    __half x, y;
    __half2() = default;
    __half2(const __half& a, const __half& b) : x(a), y(b) {}
    __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
    operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }
};

typedef __half half;
typedef __half2 half2;

namespace hjemu {
inline __half h_from_bits(unsigned short b) { __half h; h.__x = b; return h; }
inline float hf(__half h) { return (float)h; }
}  // namespace hjemu

// ---- conversions ----------------------------------------------------------------------------------
inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __float2half_rz(float f) {
    const __half r(f);
    return std::fabs((float)r) > std::fabs(f) ? hjemu::h_from_bits((unsigned short)(r.__x - 1)) : r;
}
inline __half __double2half(double d) { return __half(d); }
inline float __half2float(__half h) { return (float)h; }
inline __half __int2half_rn(int i) { return __half(i); }
inline __half __uint2half_rn(unsigned int i) { return __half(i); }
inline __half __ll2half_rn(long long i) { return __half(i); }
inline int __half2int_rn(__half h) { return (int)std::nearbyint((float)h); }
inline int __half2int_rz(__half h) { return (int)(float)h; }
inline unsigned int __half2uint_rz(__half h) { return (unsigned int)(float)h; }
inline short __half_as_short(__half h) { return (short)h.__x; }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __short_as_half(short s) { return hjemu::h_from_bits((unsigned short)s); }
inline __half __ushort_as_half(unsigned short s) { return hjemu::h_from_bits(s); }

inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
inline __half2 __half2half2(__half a) { return __half2(a, a); }
inline __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
inline __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
inline float2 __half22float2(__half2 h) { return make_float2((float)h.x, (float)h.y); }
inline float __low2float(__half2 h) { return (float)h.x; }
inline float __high2float(__half2 h) { return (float)h.y; }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
inline __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }

// ---- arithmetic -------------------------------------------------------------------------------------
inline __half __hadd(__half a, __half b) { return __half(hjemu::hf(a) + hjemu::hf(b)); }
inline __half __hsub(__half a, __half b) { return __half(hjemu::hf(a) - hjemu::hf(b)); }
inline __half __hmul(__half a, __half b) { return __half(hjemu::hf(a) * hjemu::hf(b)); }
inline __half __hdiv(__half a, __half b) { return __half(hjemu::hf(a) / hjemu::hf(b)); }
inline __half __hfma(__half a, __half b, __half c) {
    return __half(std::fma((double)hjemu::hf(a), (double)hjemu::hf(b), (double)hjemu::hf(c)));
}
inline __half __hneg(__half a) { return hjemu::h_from_bits((unsigned short)(a.__x ^ 0x8000)); }
inline __half __habs(__half a) { return hjemu::h_from_bits((unsigned short)(a.__x & 0x7FFF)); }
inline __half __hmax(__half a, __half b) { return __half(fmaxf(hjemu::hf(a), hjemu::hf(b))); }
inline __half __hmin(__half a, __half b) { return __half(fminf(hjemu::hf(a), hjemu::hf(b))); }
inline bool __heq(__half a, __half b) { return hjemu::hf(a) == hjemu::hf(b); }
inline bool __hne(__half a, __half b) { return hjemu::hf(a) != hjemu::hf(b); }
inline bool __hlt(__half a, __half b) { return hjemu::hf(a) < hjemu::hf(b); }
inline bool __hle(__half a, __half b) { return hjemu::hf(a) <= hjemu::hf(b); }
inline bool __hgt(__half a, __half b) { return hjemu::hf(a) > hjemu::hf(b); }
inline bool __hge(__half a, __half b) { return hjemu::hf(a) >= hjemu::hf(b); }
inline bool __hisnan(__half a) { return std::isnan(hjemu::hf(a)); }
inline int __hisinf(__half a) { return std::isinf(hjemu::hf(a)) ? (std::signbit(hjemu::hf(a)) ? -1 : 1) : 0; }
inline __half hsqrt(__half a) { return __half(std::sqrt(hjemu::hf(a))); }
inline __half hrsqrt(__half a) { return __half(1.0f / std::sqrt(hjemu::hf(a))); }
inline __half hrcp(__half a) { return __half(1.0f / hjemu::hf(a)); }
inline __half hexp(__half a) { return __half(std::exp(hjemu::hf(a))); }
inline __half hlog(__half a) { return __half(std::log(hjemu::hf(a))); }

inline __half operator+(const __half& a, const __half& b) { return __hadd(a, b); }
inline __half operator-(const __half& a, const __half& b) { return __hsub(a, b); }
inline __half operator*(const __half& a, const __half& b) { return __hmul(a, b); }
inline __half operator/(const __half& a, const __half& b) { return __hdiv(a, b); }
inline __half operator-(const __half& a) { return __hneg(a); }
inline bool operator==(const __half& a, const __half& b) { return __heq(a, b); }
inline bool operator!=(const __half& a, const __half& b) { return __hne(a, b); }
inline bool operator<(const __half& a, const __half& b) { return __hlt(a, b); }
inline bool operator<=(const __half& a, const __half& b) { return __hle(a, b); }
inline bool operator>(const __half& a, const __half& b) { return __hgt(a, b); }
inline bool operator>=(const __half& a, const __half& b) { return __hge(a, b); }

#define HJEMU_H2(NAME, OP)                                                                          \
    inline __half2 NAME(__half2 a, __half2 b) { return __half2(OP(a.x, b.x), OP(a.y, b.y)); }
HJEMU_H2(__hadd2, __hadd)
HJEMU_H2(__hsub2, __hsub)
HJEMU_H2(__hmul2, __hmul)
HJEMU_H2(__h2div, __hdiv)
HJEMU_H2(__hmax2, __hmax)
HJEMU_H2(__hmin2, __hmin)
#undef HJEMU_H2
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
inline __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
inline __half2 h2sqrt(__half2 a) { return __half2(hsqrt(a.x), hsqrt(a.y)); }
inline __half2 operator+(const __half2& a, const __half2& b) { return __hadd2(a, b); }
inline __half2 operator-(const __half2& a, const __half2& b) { return __hsub2(a, b); }
inline __half2 operator*(const __half2& a, const __half2& b) { return __hmul2(a, b); }
inline __half2 operator/(const __half2& a, const __half2& b) { return __h2div(a, b); }

// Warp shuffles of halves move their 16 bits (warp.h moves any trivially copyable type).
