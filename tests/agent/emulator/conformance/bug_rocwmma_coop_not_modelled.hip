// expect: COMPILE_ERROR: rocwmma/rocwmma_coop.hpp is not modelled on the emulated device
// problem: gemm-fp16-nn
// rocWMMA's cooperative API (the shape of rocWMMA's perf samples): the emulated device models the
// core API only and refuses this header by name instead of failing on some template inside it.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <rocwmma/rocwmma.hpp>
#include <rocwmma/rocwmma_coop.hpp>

extern "C" void solution(const __half* A, const __half* B, __half* C, size_t M, size_t N, size_t K) {
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}
