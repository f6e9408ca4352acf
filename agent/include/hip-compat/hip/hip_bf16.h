// hipjudge's stand-in for ROCm 6's <hip/hip_bf16.h> on a hipcc that ships none (Debian's ROCm 5.2):
// found through `-idirafter` only, so a hipcc with the real header never sees this one. The names
// and meanings follow ROCm's documented API (__hip_bfloat16, __hip_bfloat162 and their functions);
// a function missing here is a compile error naming it, never a different result. Conversions
// from float round to nearest even, NaN stays NaN; arithmetic is done in float and rounded once.
#pragma once

#include <hip/hip_runtime.h>

namespace hipjudge_compat {
__host__ __device__ inline unsigned int float_bits(float f) {
    unsigned int u;
    __builtin_memcpy(&u, &f, sizeof u);
    return u;
}
__host__ __device__ inline float bits_float(unsigned int u) {
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
}
__host__ __device__ inline unsigned short float_to_bf16(float f) {
    const unsigned int u = float_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (unsigned short)((u >> 16) | 0x40u);  // quiet NaN
    return (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
__host__ __device__ inline float bf16_to_float(unsigned short b) { return bits_float((unsigned int)b << 16); }
}  // namespace hipjudge_compat

struct __hip_bfloat16_raw {
    unsigned short x;
};

struct __hip_bfloat16 {
    unsigned short __x;
    __hip_bfloat16() = default;
    __host__ __device__ __hip_bfloat16(const __hip_bfloat16_raw& r) : __x(r.x) {}
    __host__ __device__ __hip_bfloat16(float f) : __x(hipjudge_compat::float_to_bf16(f)) {}
    __host__ __device__ __hip_bfloat16(double d) : __hip_bfloat16((float)d) {}
    __host__ __device__ __hip_bfloat16(int i) : __hip_bfloat16((float)i) {}
    __host__ __device__ __hip_bfloat16(unsigned int i) : __hip_bfloat16((float)i) {}
    __host__ __device__ operator float() const { return hipjudge_compat::bf16_to_float(__x); }
    __host__ __device__ operator __hip_bfloat16_raw() const { return __hip_bfloat16_raw{__x}; }
    __host__ __device__ __hip_bfloat16& operator+=(const __hip_bfloat16& o) { return *this = (float)*this + (float)o; }
    __host__ __device__ __hip_bfloat16& operator-=(const __hip_bfloat16& o) { return *this = (float)*this - (float)o; }
    __host__ __device__ __hip_bfloat16& operator*=(const __hip_bfloat16& o) { return *this = (float)*this * (float)o; }
    __host__ __device__ __hip_bfloat16& operator/=(const __hip_bfloat16& o) { return *this = (float)*this / (float)o; }
};

struct __hip_bfloat162 {
    __hip_bfloat16 x, y;
    __hip_bfloat162() = default;
    __host__ __device__ __hip_bfloat162(const __hip_bfloat16& a, const __hip_bfloat16& b) : x(a), y(b) {}
};

#define HIPJUDGE_BF16 __host__ __device__ inline
HIPJUDGE_BF16 __hip_bfloat16 __float2bfloat16(float f) { return __hip_bfloat16(f); }
HIPJUDGE_BF16 __hip_bfloat16 __double2bfloat16(double d) { return __hip_bfloat16(d); }
HIPJUDGE_BF16 float __bfloat162float(__hip_bfloat16 v) { return (float)v; }
HIPJUDGE_BF16 unsigned short __bfloat16_as_ushort(__hip_bfloat16 v) { return v.__x; }
HIPJUDGE_BF16 short __bfloat16_as_short(__hip_bfloat16 v) { return (short)v.__x; }
HIPJUDGE_BF16 __hip_bfloat16 __ushort_as_bfloat16(unsigned short s) { return __hip_bfloat16_raw{s}; }
HIPJUDGE_BF16 __hip_bfloat16 __short_as_bfloat16(short s) { return __hip_bfloat16_raw{(unsigned short)s}; }
HIPJUDGE_BF16 __hip_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__hip_bfloat16(a), __hip_bfloat16(b)}; }
HIPJUDGE_BF16 __hip_bfloat162 __float2bfloat162_rn(float a) { return {__hip_bfloat16(a), __hip_bfloat16(a)}; }
HIPJUDGE_BF16 __hip_bfloat162 __float22bfloat162_rn(float2 f) { return {__hip_bfloat16(f.x), __hip_bfloat16(f.y)}; }
HIPJUDGE_BF16 float2 __bfloat1622float2(__hip_bfloat162 v) { return make_float2((float)v.x, (float)v.y); }
HIPJUDGE_BF16 __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) { return {a, b}; }
HIPJUDGE_BF16 __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 a) { return {a, a}; }
HIPJUDGE_BF16 float __low2float(__hip_bfloat162 v) { return (float)v.x; }
HIPJUDGE_BF16 float __high2float(__hip_bfloat162 v) { return (float)v.y; }
HIPJUDGE_BF16 __hip_bfloat16 __low2bfloat16(__hip_bfloat162 v) { return v.x; }
HIPJUDGE_BF16 __hip_bfloat16 __high2bfloat16(__hip_bfloat162 v) { return v.y; }

HIPJUDGE_BF16 __hip_bfloat16 __hadd(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a + (float)b; }
HIPJUDGE_BF16 __hip_bfloat16 __hsub(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a - (float)b; }
HIPJUDGE_BF16 __hip_bfloat16 __hmul(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a * (float)b; }
HIPJUDGE_BF16 __hip_bfloat16 __hdiv(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a / (float)b; }
HIPJUDGE_BF16 __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
    return fmaf((float)a, (float)b, (float)c);
}
HIPJUDGE_BF16 __hip_bfloat16 __hneg(__hip_bfloat16 a) { return __ushort_as_bfloat16((unsigned short)(a.__x ^ 0x8000u)); }
HIPJUDGE_BF16 __hip_bfloat16 __habs(__hip_bfloat16 a) { return __ushort_as_bfloat16((unsigned short)(a.__x & 0x7FFFu)); }
HIPJUDGE_BF16 __hip_bfloat16 __hmax(__hip_bfloat16 a, __hip_bfloat16 b) { return fmaxf((float)a, (float)b); }
HIPJUDGE_BF16 __hip_bfloat16 __hmin(__hip_bfloat16 a, __hip_bfloat16 b) { return fminf((float)a, (float)b); }
HIPJUDGE_BF16 bool __heq(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a == (float)b; }
HIPJUDGE_BF16 bool __hlt(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a < (float)b; }
HIPJUDGE_BF16 bool __hgt(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a > (float)b; }
HIPJUDGE_BF16 bool __hisnan(__hip_bfloat16 a) { return (a.__x & 0x7FFFu) > 0x7F80u; }
HIPJUDGE_BF16 __hip_bfloat16 hsqrt(__hip_bfloat16 a) { return sqrtf((float)a); }
HIPJUDGE_BF16 __hip_bfloat16 hexp(__hip_bfloat16 a) { return expf((float)a); }

HIPJUDGE_BF16 __hip_bfloat16 operator+(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hadd(a, b); }
HIPJUDGE_BF16 __hip_bfloat16 operator-(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hsub(a, b); }
HIPJUDGE_BF16 __hip_bfloat16 operator*(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hmul(a, b); }
HIPJUDGE_BF16 __hip_bfloat16 operator/(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hdiv(a, b); }
HIPJUDGE_BF16 __hip_bfloat16 operator-(const __hip_bfloat16& a) { return __hneg(a); }
HIPJUDGE_BF16 bool operator==(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __heq(a, b); }
HIPJUDGE_BF16 bool operator<(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hlt(a, b); }
HIPJUDGE_BF16 bool operator>(const __hip_bfloat16& a, const __hip_bfloat16& b) { return __hgt(a, b); }

#define HIPJUDGE_BF16_PAIR(NAME, ONE)                                                                \
    HIPJUDGE_BF16 __hip_bfloat162 NAME(__hip_bfloat162 a, __hip_bfloat162 b) {                       \
        return {ONE(a.x, b.x), ONE(a.y, b.y)};                                                       \
    }
HIPJUDGE_BF16_PAIR(__hadd2, __hadd)
HIPJUDGE_BF16_PAIR(__hsub2, __hsub)
HIPJUDGE_BF16_PAIR(__hmul2, __hmul)
HIPJUDGE_BF16_PAIR(__hmax2, __hmax)
HIPJUDGE_BF16_PAIR(__hmin2, __hmin)
#undef HIPJUDGE_BF16_PAIR
HIPJUDGE_BF16 __hip_bfloat162 __hfma2(__hip_bfloat162 a, __hip_bfloat162 b, __hip_bfloat162 c) {
    return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
HIPJUDGE_BF16 __hip_bfloat162 operator+(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hadd2(a, b); }
HIPJUDGE_BF16 __hip_bfloat162 operator*(const __hip_bfloat162& a, const __hip_bfloat162& b) { return __hmul2(a, b); }
#undef HIPJUDGE_BF16
