// Atomic functions of HIP and CUDA. Blocks run in parallel on host threads, so these are real
// (relaxed, like the GPU's) atomics; floating-point forms are compare-and-swap loops.
#pragma once

namespace hjemu {
template <class T, class F>
inline T atomic_update(T* address, F next) {
    T old;
    __atomic_load(address, &old, __ATOMIC_RELAXED);
    T desired = next(old);
    while (!__atomic_compare_exchange(address, &old, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        desired = next(old);
    return old;
}
template <class T> inline T atomic_min(T* a, T v) { return atomic_update(a, [v](T o) { return v < o ? v : o; }); }
template <class T> inline T atomic_max(T* a, T v) { return atomic_update(a, [v](T o) { return v > o ? v : o; }); }
}  // namespace hjemu

#define HJEMU_ATOMIC_INTEGER(T)                                                                   \
    inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }         \
    inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }         \
    inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }       \
    inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); }         \
    inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }           \
    inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); }         \
    inline T atomicMin(T* a, T v) { return hjemu::atomic_min(a, v); }                             \
    inline T atomicMax(T* a, T v) { return hjemu::atomic_max(a, v); }                             \
    inline T atomicCAS(T* a, T compare, T v) {                                                    \
        __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);   \
        return compare;                                                                           \
    }
HJEMU_ATOMIC_INTEGER(int)
HJEMU_ATOMIC_INTEGER(unsigned int)
HJEMU_ATOMIC_INTEGER(long long)
HJEMU_ATOMIC_INTEGER(unsigned long long)
#if defined(HJEMU_HIP)
HJEMU_ATOMIC_INTEGER(unsigned long)
#endif
#undef HJEMU_ATOMIC_INTEGER

#define HJEMU_ATOMIC_FLOAT(T)                                                                     \
    inline T atomicAdd(T* a, T v) { return hjemu::atomic_update(a, [v](T o) { return o + v; }); } \
    inline T atomicSub(T* a, T v) { return hjemu::atomic_update(a, [v](T o) { return o - v; }); } \
    inline T atomicExch(T* a, T v) {                                                              \
        T old;                                                                                    \
        __atomic_exchange(a, &v, &old, __ATOMIC_RELAXED);                                         \
        return old;                                                                               \
    }                                                                                             \
    inline T atomicMin(T* a, T v) { return hjemu::atomic_min(a, v); }                             \
    inline T atomicMax(T* a, T v) { return hjemu::atomic_max(a, v); }                             \
    inline T atomicCAS(T* a, T compare, T v) {                                                    \
        __atomic_compare_exchange(a, &compare, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);    \
        return compare;                                                                           \
    }
HJEMU_ATOMIC_FLOAT(float)
HJEMU_ATOMIC_FLOAT(double)
#undef HJEMU_ATOMIC_FLOAT

inline unsigned short atomicCAS(unsigned short* a, unsigned short compare, unsigned short v) {
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return compare;
}

// ((old >= limit) ? 0 : old + 1) and ((old == 0 || old > limit) ? limit : old - 1)
inline unsigned int atomicInc(unsigned int* a, unsigned int limit) {
    return hjemu::atomic_update(a, [limit](unsigned int o) { return o >= limit ? 0u : o + 1u; });
}
inline unsigned int atomicDec(unsigned int* a, unsigned int limit) {
    return hjemu::atomic_update(a, [limit](unsigned int o) { return (o == 0 || o > limit) ? limit : o - 1u; });
}

// Scoped forms (block, system) and HIP's no-return and unsafe/safe forms: one memory here.
#define HJEMU_ATOMIC_ALIAS(name, alias)                                                           \
    template <class T, class... R> inline auto alias(T* a, R... r) { return name(a, r...); }
#define HJEMU_ATOMIC_SCOPES(name)                                                                 \
    HJEMU_ATOMIC_ALIAS(name, name##_block) HJEMU_ATOMIC_ALIAS(name, name##_system)
HJEMU_ATOMIC_SCOPES(atomicAdd)
HJEMU_ATOMIC_SCOPES(atomicSub)
HJEMU_ATOMIC_SCOPES(atomicExch)
HJEMU_ATOMIC_SCOPES(atomicMin)
HJEMU_ATOMIC_SCOPES(atomicMax)
HJEMU_ATOMIC_SCOPES(atomicAnd)
HJEMU_ATOMIC_SCOPES(atomicOr)
HJEMU_ATOMIC_SCOPES(atomicXor)
HJEMU_ATOMIC_SCOPES(atomicCAS)
HJEMU_ATOMIC_SCOPES(atomicInc)
HJEMU_ATOMIC_SCOPES(atomicDec)
#if defined(HJEMU_HIP)
HJEMU_ATOMIC_ALIAS(atomicAdd, unsafeAtomicAdd)
HJEMU_ATOMIC_ALIAS(atomicAdd, safeAtomicAdd)
HJEMU_ATOMIC_ALIAS(atomicMin, unsafeAtomicMin)
HJEMU_ATOMIC_ALIAS(atomicMax, unsafeAtomicMax)
template <class T> inline void atomicAddNoRet(T* a, T v) { (void)atomicAdd(a, v); }
#endif
#undef HJEMU_ATOMIC_SCOPES
#undef HJEMU_ATOMIC_ALIAS
