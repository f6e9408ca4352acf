// Wavefront (HIP, 64 lanes) and warp (CUDA, 32 lanes) functions: shuffles, votes, matches,
// reductions and bit tricks. Each collective suspends the calling GPU thread until every lane of
// its wavefront has arrived at a collective or a barrier or has exited; the lanes at the same call
// site form the active set, like the EXEC mask of a diverged wavefront.
#pragma once

#include <cstring>
#include <type_traits>

namespace hjemu {
#if defined(HJEMU_HIP)
using lane_mask = unsigned long long;  // 64-lane wavefronts
#else
using lane_mask = unsigned int;
#endif

template <class T>
inline uint64_t to_bits(T v) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                  "warp functions take a scalar of at most 8 bytes");
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}
template <class T>
inline T from_bits(uint64_t bits) {
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}

inline uint64_t collective(int op, uint64_t value, int arg, int width, unsigned long long mask,
                           bool is_sync, int line, int bytes) {
    hjemu_collective_t request{value, mask, op, arg, width, line, is_sync ? 1 : 0, bytes};
    return hjemu_warp_collective(&request);
}
template <class T>
inline T shuffle(int op, T v, int arg, int width, unsigned long long mask, bool is_sync, int line) {
    return from_bits<T>(collective(op, to_bits(v), arg, width, mask, is_sync, line, (int)sizeof(T)));
}
template <class T>
inline T reduce(int op, T v, unsigned long long mask, int line) {
    return from_bits<T>(collective(op, to_bits(v), 0, warpSize, mask, true, line, (int)sizeof(T)));
}
}  // namespace hjemu

// ---- the *_sync forms (CUDA; HIP since ROCm 6.2) --------------------------------------------------
// ROCm refuses a mask narrower than 64 bits at compile time (a 32-bit CUDA mask would leave half
// of the wavefront out); so does this header. CUDA masks are 32-bit.
namespace hjemu {
template <class M>
constexpr unsigned long long sync_mask(M mask) {
    static_assert(std::is_integral<M>::value, "the mask of a *_sync function must be an integer");
#if defined(HJEMU_HIP)
    static_assert(sizeof(M) == 8, "The mask must be a 64-bit integer. Implicitly promoting a smaller "
                                  "integer is almost always an error (HIP wavefronts have 64 lanes).");
#endif
    return (unsigned long long)mask;
}
}  // namespace hjemu

template <class M, class T>
inline T __shfl_sync(M mask, T v, int src, int width = warpSize, int line = __builtin_LINE()) {
    return hjemu::shuffle(HJEMU_SHFL_IDX, v, src, width, hjemu::sync_mask(mask), true, line);
}
template <class M, class T>
inline T __shfl_up_sync(M mask, T v, unsigned int delta, int width = warpSize, int line = __builtin_LINE()) {
    return hjemu::shuffle(HJEMU_SHFL_UP, v, (int)delta, width, hjemu::sync_mask(mask), true, line);
}
template <class M, class T>
inline T __shfl_down_sync(M mask, T v, unsigned int delta, int width = warpSize, int line = __builtin_LINE()) {
    return hjemu::shuffle(HJEMU_SHFL_DOWN, v, (int)delta, width, hjemu::sync_mask(mask), true, line);
}
template <class M, class T>
inline T __shfl_xor_sync(M mask, T v, int lane_mask, int width = warpSize, int line = __builtin_LINE()) {
    return hjemu::shuffle(HJEMU_SHFL_XOR, v, lane_mask, width, hjemu::sync_mask(mask), true, line);
}
template <class M>
inline hjemu::lane_mask __ballot_sync(M mask, int predicate, int line = __builtin_LINE()) {
    return (hjemu::lane_mask)hjemu::collective(HJEMU_BALLOT, predicate != 0, 0, warpSize, hjemu::sync_mask(mask),
                                               true, line, 4);
}
template <class M>
inline int __any_sync(M mask, int predicate, int line = __builtin_LINE()) {
    return (int)hjemu::collective(HJEMU_ANY, predicate != 0, 0, warpSize, hjemu::sync_mask(mask), true, line, 4);
}
template <class M>
inline int __all_sync(M mask, int predicate, int line = __builtin_LINE()) {
    return (int)hjemu::collective(HJEMU_ALL, predicate != 0, 0, warpSize, hjemu::sync_mask(mask), true, line, 4);
}
template <class M>
inline int __uni_sync(M mask, int predicate, int line = __builtin_LINE()) {
    const int any = __any_sync(mask, predicate, line);
    return any == __all_sync(mask, predicate, line);
}
template <class M = hjemu::lane_mask>
inline void __syncwarp(M mask = (M)~0ull, int line = __builtin_LINE()) {
    (void)hjemu::collective(HJEMU_SYNCWARP, 0, 0, warpSize, hjemu::sync_mask(mask), true, line, 0);
}
inline hjemu::lane_mask __activemask(int line = __builtin_LINE()) {
    return (hjemu::lane_mask)hjemu::collective(HJEMU_ACTIVEMASK, 0, 0, warpSize, 0, false, line, 0);
}
template <class M, class T>
inline hjemu::lane_mask __match_any_sync(M mask, T v, int line = __builtin_LINE()) {
    return (hjemu::lane_mask)hjemu::collective(HJEMU_MATCH_ANY, hjemu::to_bits(v), 0, warpSize,
                                               hjemu::sync_mask(mask), true, line, (int)sizeof(T));
}
template <class M, class T>
inline hjemu::lane_mask __match_all_sync(M mask, T v, int* pred, int line = __builtin_LINE()) {
    const auto r = (hjemu::lane_mask)hjemu::collective(HJEMU_MATCH_ALL, hjemu::to_bits(v), 0, warpSize,
                                                       hjemu::sync_mask(mask), true, line, (int)sizeof(T));
    *pred = r != 0;
    return r;
}
#if !defined(HJEMU_HIP)
inline unsigned __reduce_add_sync(unsigned m, unsigned v, int line = __builtin_LINE()) {
    return hjemu::reduce(HJEMU_REDUCE_ADD, v, m, line);
}
inline int __reduce_add_sync(unsigned m, int v, int line = __builtin_LINE()) {
    return hjemu::reduce(HJEMU_REDUCE_ADD, v, m, line);
}
inline unsigned __reduce_min_sync(unsigned m, unsigned v, int line = __builtin_LINE()) {
    return hjemu::reduce(HJEMU_REDUCE_MIN_U, v, m, line);
}
inline int __reduce_min_sync(unsigned m, int v, int line = __builtin_LINE()) {
    return hjemu::reduce(HJEMU_REDUCE_MIN_S, v, m, line);
}
inline unsigned __reduce_max_sync(unsigned m, unsigned v, int line = __builtin_LINE()) {
    return hjemu::reduce(HJEMU_REDUCE_MAX_U, v, m, line);
}
inline int __reduce_max_sync(unsigned m, int v, int line = __builtin_LINE()) {
    return hjemu::reduce(HJEMU_REDUCE_MAX_S, v, m, line);
}
inline unsigned __reduce_and_sync(unsigned m, unsigned v, int line = __builtin_LINE()) {
    return hjemu::reduce(HJEMU_REDUCE_AND, v, m, line);
}
inline unsigned __reduce_or_sync(unsigned m, unsigned v, int line = __builtin_LINE()) {
    return hjemu::reduce(HJEMU_REDUCE_OR, v, m, line);
}
inline unsigned __reduce_xor_sync(unsigned m, unsigned v, int line = __builtin_LINE()) {
    return hjemu::reduce(HJEMU_REDUCE_XOR, v, m, line);
}
#endif

#if defined(HJEMU_HIP)
// ---- HIP's forms without a mask: the active lanes take part ----------------------------------------
template <class T>
inline T __shfl(T v, int src, int width = warpSize, int line = __builtin_LINE()) {
    return hjemu::shuffle(HJEMU_SHFL_IDX, v, src, width, 0, false, line);
}
template <class T>
inline T __shfl_up(T v, unsigned int delta, int width = warpSize, int line = __builtin_LINE()) {
    return hjemu::shuffle(HJEMU_SHFL_UP, v, (int)delta, width, 0, false, line);
}
template <class T>
inline T __shfl_down(T v, unsigned int delta, int width = warpSize, int line = __builtin_LINE()) {
    return hjemu::shuffle(HJEMU_SHFL_DOWN, v, (int)delta, width, 0, false, line);
}
template <class T>
inline T __shfl_xor(T v, int lane_mask, int width = warpSize, int line = __builtin_LINE()) {
    return hjemu::shuffle(HJEMU_SHFL_XOR, v, lane_mask, width, 0, false, line);
}
inline unsigned long long __ballot(int predicate, int line = __builtin_LINE()) {
    return hjemu::collective(HJEMU_BALLOT, predicate != 0, 0, warpSize, 0, false, line, 4);
}
inline int __any(int predicate, int line = __builtin_LINE()) {
    return (int)hjemu::collective(HJEMU_ANY, predicate != 0, 0, warpSize, 0, false, line, 4);
}
inline int __all(int predicate, int line = __builtin_LINE()) {
    return (int)hjemu::collective(HJEMU_ALL, predicate != 0, 0, warpSize, 0, false, line, 4);
}
#endif

// ---- bit manipulation ---------------------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffs(unsigned int x) { return __builtin_ffs((int)x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    const unsigned long long bytes = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; ++i) r |= (unsigned int)((bytes >> (((s >> (4 * i)) & 7) * 8)) & 0xFF) << (8 * i);
    return r;
}
inline int __mul24(int a, int b) { return (int)((long long)(a << 8 >> 8) * (b << 8 >> 8)); }
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xFFFFFF) * (b & 0xFFFFFF); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return (unsigned int)(((unsigned long long)a * b) >> 32);
}
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned int __uhadd(unsigned int a, unsigned int b) { return (unsigned int)(((unsigned long long)a + b) >> 1); }
inline unsigned int __urhadd(unsigned int a, unsigned int b) {
    return (unsigned int)(((unsigned long long)a + b + 1) >> 1);
}
inline unsigned int __sad(int a, int b, unsigned int c) { return c + (unsigned int)(a > b ? a - b : b - a); }
inline unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return c + (a > b ? a - b : b - a); }
