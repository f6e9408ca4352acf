// Vector types of HIP and CUDA (float4, int2, uchar4, ...) with the sizes and alignments the GPU
// compilers give them, the make_* helpers, and dim3.
//
// CUDA's vector types are plain aggregates. HIP's have constructors and arithmetic operators;
// they are enabled only when the HIP header is the one included (HJEMU_HIP), so code that would
// not compile with nvcc does not compile here either.
#pragma once

#include <cstddef>
#include <type_traits>

#if defined(HJEMU_HIP)
#define HJEMU_VEC_CTORS1(T, V)                                                                    \
    V() = default;                                                                                \
    template <class A, class = std::enable_if_t<std::is_arithmetic<A>::value>>                    \
    constexpr explicit V(A a) : x(static_cast<T>(a)) {}
#define HJEMU_VEC_CTORS2(T, V)                                                                    \
    V() = default;                                                                                \
    template <class A, class = std::enable_if_t<std::is_arithmetic<A>::value>>                    \
    constexpr explicit V(A a) : x(static_cast<T>(a)), y(static_cast<T>(a)) {}                                               \
    template <class A, class B>                                                                   \
    constexpr V(A a, B b) : x(static_cast<T>(a)), y(static_cast<T>(b)) {}
#define HJEMU_VEC_CTORS3(T, V)                                                                    \
    V() = default;                                                                                \
    template <class A, class = std::enable_if_t<std::is_arithmetic<A>::value>>                    \
    constexpr explicit V(A a) : x(static_cast<T>(a)), y(static_cast<T>(a)), z(static_cast<T>(a)) {}                                      \
    template <class A, class B, class C>                                                          \
    constexpr V(A a, B b, C c) : x(static_cast<T>(a)), y(static_cast<T>(b)), z(static_cast<T>(c)) {}
#define HJEMU_VEC_CTORS4(T, V)                                                                    \
    V() = default;                                                                                \
    template <class A, class = std::enable_if_t<std::is_arithmetic<A>::value>>                    \
    constexpr explicit V(A a) : x(static_cast<T>(a)), y(static_cast<T>(a)), z(static_cast<T>(a)), w(static_cast<T>(a)) {}                             \
    template <class A, class B, class C, class D>                                                 \
    constexpr V(A a, B b, C c, D d) : x(static_cast<T>(a)), y(static_cast<T>(b)), z(static_cast<T>(c)), w(static_cast<T>(d)) {}
#else
#define HJEMU_VEC_CTORS1(T, V)
#define HJEMU_VEC_CTORS2(T, V)
#define HJEMU_VEC_CTORS3(T, V)
#define HJEMU_VEC_CTORS4(T, V)
#endif

namespace hjemu {
// rank (0 for anything that is not one of our vector types) and scalar type of a vector type
template <class V> struct vec_info { static constexpr int rank = 0; };
constexpr std::size_t vec_align(std::size_t scalar, int rank) {
    return rank == 2 ? (2 * scalar < 16 ? 2 * scalar : 16)
         : rank == 4 ? (4 * scalar < 16 ? 4 * scalar : 16) : scalar;
}
}  // namespace hjemu

#define HJEMU_VEC_INFO(T, V, N)                                                                   \
    namespace hjemu {                                                                             \
    template <> struct vec_info<V> { static constexpr int rank = N; using scalar = T; };          \
    }

#define HJEMU_VECTOR_FAMILY(T, B)                                                                 \
    struct alignas(hjemu::vec_align(sizeof(T), 1)) B##1 { T x; HJEMU_VEC_CTORS1(T, B##1) };        \
    struct alignas(hjemu::vec_align(sizeof(T), 2)) B##2 { T x, y; HJEMU_VEC_CTORS2(T, B##2) };     \
    struct alignas(hjemu::vec_align(sizeof(T), 3)) B##3 { T x, y, z; HJEMU_VEC_CTORS3(T, B##3) };  \
    struct alignas(hjemu::vec_align(sizeof(T), 4)) B##4 {                                         \
        T x, y, z, w;                                                                             \
        HJEMU_VEC_CTORS4(T, B##4)                                                                 \
    };                                                                                            \
    inline constexpr B##1 make_##B##1(T x) { B##1 v{}; v.x = x; return v; }                        \
    inline constexpr B##2 make_##B##2(T x, T y) { B##2 v{}; v.x = x; v.y = y; return v; }          \
    inline constexpr B##3 make_##B##3(T x, T y, T z) {                                            \
        B##3 v{}; v.x = x; v.y = y; v.z = z; return v;                                            \
    }                                                                                             \
    inline constexpr B##4 make_##B##4(T x, T y, T z, T w) {                                       \
        B##4 v{}; v.x = x; v.y = y; v.z = z; v.w = w; return v;                                   \
    }                                                                                             \
    HJEMU_VEC_INFO(T, B##1, 1) HJEMU_VEC_INFO(T, B##2, 2)                                          \
    HJEMU_VEC_INFO(T, B##3, 3) HJEMU_VEC_INFO(T, B##4, 4)

HJEMU_VECTOR_FAMILY(signed char, char)
HJEMU_VECTOR_FAMILY(unsigned char, uchar)
HJEMU_VECTOR_FAMILY(short, short)
HJEMU_VECTOR_FAMILY(unsigned short, ushort)
HJEMU_VECTOR_FAMILY(int, int)
HJEMU_VECTOR_FAMILY(unsigned int, uint)
HJEMU_VECTOR_FAMILY(long, long)
HJEMU_VECTOR_FAMILY(unsigned long, ulong)
HJEMU_VECTOR_FAMILY(long long, longlong)
HJEMU_VECTOR_FAMILY(unsigned long long, ulonglong)
HJEMU_VECTOR_FAMILY(float, float)
HJEMU_VECTOR_FAMILY(double, double)

// Grid and block sizes: unspecified components are 1.
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return make_uint3(x, y, z); }
};

#if defined(HJEMU_HIP)
// HIP's element-wise arithmetic on vector types (vector op vector, vector op scalar, scalar op vector).
namespace hjemu {
template <class V, class F>
constexpr V vec_zip(V a, const V& b, F f) {
    constexpr int n = vec_info<V>::rank;
    a.x = f(a.x, b.x);
    if constexpr (n >= 2) a.y = f(a.y, b.y);
    if constexpr (n >= 3) a.z = f(a.z, b.z);
    if constexpr (n >= 4) a.w = f(a.w, b.w);
    return a;
}
template <class V> constexpr V vec_splat(typename vec_info<V>::scalar s) {
    V v{};
    return vec_zip(v, v, [s](auto, auto) { return s; });
}
template <class V>
using if_vec = std::enable_if_t<(vec_info<V>::rank > 0), V>;
}  // namespace hjemu

#define HJEMU_VEC_OPERATOR(OP)                                                                    \
    template <class V> constexpr hjemu::if_vec<V> operator OP(const V& a, const V& b) {            \
        return hjemu::vec_zip(a, b, [](auto p, auto q) { return decltype(p)(p OP q); });           \
    }                                                                                             \
    template <class V> constexpr hjemu::if_vec<V> operator OP(const V& a,                          \
                                                             typename hjemu::vec_info<V>::scalar s) { \
        return a OP hjemu::vec_splat<V>(s);                                                       \
    }                                                                                             \
    template <class V> constexpr hjemu::if_vec<V> operator OP(typename hjemu::vec_info<V>::scalar s, \
                                                             const V& a) {                        \
        return hjemu::vec_splat<V>(s) OP a;                                                       \
    }                                                                                             \
    template <class V, class R> constexpr hjemu::if_vec<V>& operator OP##=(V& a, const R& r) {     \
        return a = a OP r;                                                                        \
    }
HJEMU_VEC_OPERATOR(+)
HJEMU_VEC_OPERATOR(-)
HJEMU_VEC_OPERATOR(*)
HJEMU_VEC_OPERATOR(/)
#undef HJEMU_VEC_OPERATOR

template <class V> constexpr hjemu::if_vec<V> operator-(const V& a) {
    return hjemu::vec_zip(a, a, [](auto p, auto) { return decltype(p)(-p); });
}
template <class V> constexpr std::enable_if_t<(hjemu::vec_info<V>::rank > 0), bool>
operator==(const V& a, const V& b) {
    bool same = true;
    hjemu::vec_zip(a, b, [&same](auto p, auto q) { same = same && p == q; return p; });
    return same;
}
template <class V> constexpr std::enable_if_t<(hjemu::vec_info<V>::rank > 0), bool>
operator!=(const V& a, const V& b) { return !(a == b); }
#endif
