// Device math: the functions and intrinsics of the CUDA/HIP math API that C++'s <cmath> lacks,
// min/max overloads, type punning and conversions. Intrinsics (__expf, __fdividef, ...) are
// computed at full precision: the emulator is at least as accurate as the GPU's fast paths.
#pragma once

#include <cfloat>
#include <climits>
#include <limits>
#include <cmath>
#include <type_traits>

// Device code calls these unqualified, as C's macros; C++ has them in std only.
using std::abs;
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

// ---- min and max in the global namespace, as each compiler declares them ----------------------------
#define HJEMU_MINMAX(T)                                                                           \
    inline T min(T a, T b) { return b < a ? b : a; }                                              \
    inline T max(T a, T b) { return a < b ? b : a; }
HJEMU_MINMAX(int)
HJEMU_MINMAX(unsigned int)
HJEMU_MINMAX(long)
HJEMU_MINMAX(unsigned long)
HJEMU_MINMAX(long long)
HJEMU_MINMAX(unsigned long long)
#undef HJEMU_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
#if defined(HJEMU_HIP)
// hipcc takes any mix of arithmetic types, by the usual conversions.
template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value &&
                                   !std::is_same<A, B>::value>>
inline auto min(A a, B b) {
    using C = std::common_type_t<A, B>;
    return min(C(a), C(b));
}
template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value &&
                                   !std::is_same<A, B>::value>>
inline auto max(A a, B b) {
    using C = std::common_type_t<A, B>;
    return max(C(a), C(b));
}
#else
// CUDA's set: mixed signedness of one width and float with double; other mixes are ambiguous
// with nvcc, and so here.
#define HJEMU_MIXED_MINMAX(R, A, B)                                                               \
    inline R min(A a, B b) { return min(static_cast<R>(a), static_cast<R>(b)); }                  \
    inline R max(A a, B b) { return max(static_cast<R>(a), static_cast<R>(b)); }
HJEMU_MIXED_MINMAX(unsigned int, int, unsigned int)
HJEMU_MIXED_MINMAX(unsigned int, unsigned int, int)
HJEMU_MIXED_MINMAX(unsigned long, long, unsigned long)
HJEMU_MIXED_MINMAX(unsigned long, unsigned long, long)
HJEMU_MIXED_MINMAX(unsigned long long, long long, unsigned long long)
HJEMU_MIXED_MINMAX(unsigned long long, unsigned long long, long long)
HJEMU_MIXED_MINMAX(double, float, double)
HJEMU_MIXED_MINMAX(double, double, float)
#undef HJEMU_MIXED_MINMAX
#endif
inline unsigned int umin(unsigned int a, unsigned int b) { return min(a, b); }
inline unsigned int umax(unsigned int a, unsigned int b) { return max(a, b); }
inline long long llmin(long long a, long long b) { return min(a, b); }
inline long long llmax(long long a, long long b) { return max(a, b); }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return min(a, b); }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return max(a, b); }

// ---- single precision ---------------------------------------------------------------------------
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float exp10f(float x) { return powf(10.0f, x); }
inline float sinpif(float x) { return sinf((float)M_PI * x); }
inline float cospif(float x) { return cosf((float)M_PI * x); }
inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
inline float normcdfinvf(float p) {
    // Newton steps on normcdff from a rational start: accurate to float precision on (0, 1).
    if (p <= 0.0f) return -INFINITY;
    if (p >= 1.0f) return INFINITY;
    double x = 0.0;
    for (int i = 0; i < 60; ++i) {
        const double err = 0.5 * std::erfc(-x * M_SQRT1_2) - p;
        const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
        const double step = err / (pdf > 1e-300 ? pdf : 1e-300);
        x -= step > 4 ? 4 : (step < -4 ? -4 : step);
        if (std::fabs(step) < 1e-12) break;
    }
    return (float)x;
}
inline float erfinvf(float y) { return normcdfinvf(0.5f * (y + 1.0f)) * (float)M_SQRT1_2; }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }  // NaN -> 0
inline float fdividef(float a, float b) { return a / b; }
#if defined(HJEMU_HIP)
inline float __fmaf_rz(float a, float b, float c) { return fmaf(a, b, c); }
#endif

// ---- double precision ---------------------------------------------------------------------------
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
inline double sinpi(double x) { return sin(M_PI * x); }
inline double cospi(double x) { return cos(M_PI * x); }
inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
inline double __dsqrt_rn(double x) { return sqrt(x); }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline double __saturate(double x) { return x >= 1.0 ? 1.0 : (x > 0.0 ? x : 0.0); }

// ---- reinterpretation and conversions -----------------------------------------------------------
namespace hjemu {
template <class To, class From>
inline To bit_cast(From v) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
    To out;
    __builtin_memcpy(&out, &v, sizeof(To));
    return out;
}
}  // namespace hjemu
inline int __float_as_int(float x) { return hjemu::bit_cast<int>(x); }
inline unsigned int __float_as_uint(float x) { return hjemu::bit_cast<unsigned int>(x); }
inline float __int_as_float(int x) { return hjemu::bit_cast<float>(x); }
inline float __uint_as_float(unsigned int x) { return hjemu::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return hjemu::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return hjemu::bit_cast<double>(x); }
inline int __double2hiint(double x) { return (int)(hjemu::bit_cast<unsigned long long>(x) >> 32); }
inline int __double2loint(double x) { return (int)hjemu::bit_cast<unsigned long long>(x); }
inline double __hiloint2double(int hi, int lo) {
    return hjemu::bit_cast<double>(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo);
}

// Round to nearest even, toward zero, up and down; out-of-range values saturate like the GPU's.
namespace hjemu {
template <class I, class F>
inline I saturate_to(F v) {
    if (v != v) return 0;
    if (v <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (v >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)v;
}
}  // namespace hjemu
#define HJEMU_CONVERSIONS(F, f, I, i)                                                             \
    inline I __##f##2##i##_rn(F v) { return hjemu::saturate_to<I>(std::nearbyint(v)); }           \
    inline I __##f##2##i##_rz(F v) { return hjemu::saturate_to<I>(std::trunc(v)); }               \
    inline I __##f##2##i##_ru(F v) { return hjemu::saturate_to<I>(std::ceil(v)); }                \
    inline I __##f##2##i##_rd(F v) { return hjemu::saturate_to<I>(std::floor(v)); }
HJEMU_CONVERSIONS(float, float, int, int)
HJEMU_CONVERSIONS(float, float, unsigned int, uint)
HJEMU_CONVERSIONS(float, float, long long, ll)
HJEMU_CONVERSIONS(float, float, unsigned long long, ull)
HJEMU_CONVERSIONS(double, double, int, int)
HJEMU_CONVERSIONS(double, double, unsigned int, uint)
HJEMU_CONVERSIONS(double, double, long long, ll)
HJEMU_CONVERSIONS(double, double, unsigned long long, ull)
#undef HJEMU_CONVERSIONS
inline float __int2float_rn(int v) { return (float)v; }
inline float __uint2float_rn(unsigned int v) { return (float)v; }
inline float __ll2float_rn(long long v) { return (float)v; }
inline double __int2double_rn(int v) { return (double)v; }
inline float __double2float_rn(double v) { return (float)v; }

// ---- loads and stores with cache hints: plain accesses here --------------------------------------
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }
#define __builtin_nontemporal_load(p) (*(p))
#define __builtin_nontemporal_store(v, p) ((void)(*(p) = (v)))
