// The HIP/CUDA kernel language on the host: qualifiers, built-in variables, barriers, the launch.
//
// Included through hip/hip_runtime.h (HJEMU_WARP_SIZE 64) or cuda_runtime.h (32). Kernels are
// ordinary C++ functions; a launch hands the runtime a thunk that calls the kernel with the
// launch's arguments, and the runtime calls it once per GPU thread, each thread a fiber.
#pragma once

#if !defined(HJEMU_WARP_SIZE) || !defined(HJEMU_API)
#error "include hip/hip_runtime.h or cuda_runtime.h, not hjemu/lang.h"
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>  // before __noinline__ is defined: libstdc++ uses __attribute__((__noinline__))
#include <tuple>
#include <type_traits>
#include <utility>

#include "abi.h"

// ---- qualifiers ---------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __builtin_align__(n) __attribute__((aligned(n)))
// A block runs on one host thread, so a per-host-thread variable is per block. (The rewriter
// turns `extern __shared__` declarations into the dynamic shared memory before this applies.)
#define __shared__ static thread_local

static constexpr int warpSize = HJEMU_WARP_SIZE;

// ---- barriers and fences ------------------------------------------------------------------------
inline void __syncthreads(int line = __builtin_LINE()) { (void)hjemu_barrier(line, 0, 0); }
inline int __syncthreads_count(int predicate, int line = __builtin_LINE()) {
    return hjemu_barrier(line, 1, predicate != 0);
}
inline int __syncthreads_and(int predicate, int line = __builtin_LINE()) {
    return hjemu_barrier(line, 2, predicate != 0);
}
inline int __syncthreads_or(int predicate, int line = __builtin_LINE()) {
    return hjemu_barrier(line, 3, predicate != 0);
}
// Threads of a block share a host thread and switch only at barriers, so within a block a
// compiler barrier is all __threadfence_block needs; other blocks run on other host threads.
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- dynamic shared memory ----------------------------------------------------------------------
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#define HIP_DYNAMIC_SHARED(type, var)                                                             \
    static thread_local type(&var)[] = *reinterpret_cast<type(*)[]>(::hjemu_dynamic_shared());

// ---- miscellaneous device functions -------------------------------------------------------------
[[noreturn]] inline void __trap() { hjemu_kernel_abort("the kernel called __trap()"); }
[[noreturn]] inline void __brkpt() { hjemu_kernel_abort("the kernel called __brkpt()"); }
inline void __nanosleep(unsigned int) {}
inline long long clock64() {
#if defined(__x86_64__)
    return (long long)__builtin_ia32_rdtsc();
#else
    return (long long)hjemu_clock_ns();
#endif
}
inline long long __clock64() { return clock64(); }
inline long long wall_clock64() { return clock64(); }
inline unsigned int __lane_id() { return hjemu_lane_id(); }
#if defined(HJEMU_HIP)
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)
#endif

// ---- the launch ---------------------------------------------------------------------------------
namespace hjemu {
template <class F, class Args>
struct LaunchContext {
    F body;
    Args args;
};

template <class F, class Args>
void run_thread(void* ctx) {
    auto* c = static_cast<LaunchContext<F, Args>*>(ctx);
    try {
        std::apply(c->body, c->args);
    } catch (...) {
        hjemu_kernel_abort("a C++ exception escaped the kernel (GPU code cannot throw)");
    }
}

// `k<<<grid, block, shmem, stream>>>(args)` becomes `hjemu::launch_named("k", body, grid, block,
// shmem, stream)(args)` (rewrite.py): the arguments are evaluated once, here, and every GPU thread
// calls the kernel with its own copies, as a GPU passes kernel arguments by value. Launches are
// synchronous and one at a time per process.
template <class F>
struct Launcher {
    const char* name;
    F body;
    dim3 grid, block;
    size_t shared_bytes;

    template <class... A>
    void operator()(A&&... args) const {
        using Args = std::tuple<std::decay_t<A>...>;
        LaunchContext<F, Args> ctx{body, Args(std::forward<A>(args)...)};
        hjemu_launch_t launch{name, grid, block, shared_bytes, HJEMU_WARP_SIZE, HJEMU_API,
                              &run_thread<F, Args>, &ctx};
        (void)hjemu_launch_grid(&launch);
    }
};

template <class F, class S = int>
Launcher<F> launch_named(const char* name, F body, dim3 grid, dim3 block, size_t shared_bytes = 0,
                         S stream = 0) {
    (void)stream;  // every stream is the default stream: execution is synchronous
    return Launcher<F>{name, body, grid, block, shared_bytes};
}

template <class T> struct always_false : std::false_type {};

// hip/cudaLaunchKernel with an argument array: the kernel's type tells how to read each argument.
template <class... P, std::size_t... I>
inline void launch_from_array(const char* name, void (*kernel)(P...), dim3 grid, dim3 block,
                              size_t shared, void** args, std::index_sequence<I...>) {
    launch_named(name, [kernel](auto... a) { kernel(a...); }, grid, block, shared)(
        *static_cast<std::decay_t<P>*>(args[I])...);
}
}  // namespace hjemu

#define HJEMU_KERNEL_BODY(...) [&](auto... hjemu_args) { __VA_ARGS__(hjemu_args...); }
#define HJEMU_KERNEL_NAME(...) #__VA_ARGS__
#define hipLaunchKernelGGL(kernel, grid, block, shared_bytes, stream, ...)                        \
    ::hjemu::launch_named(#kernel, HJEMU_KERNEL_BODY(kernel), grid, block, shared_bytes,          \
                          stream)(__VA_ARGS__)
#define HIP_KERNEL_NAME(...) __VA_ARGS__

#include "atomics.h"
#include "warp.h"
#include "device_math.h"
