// expect: COMPILE_ERROR: rocWMMA (rocwmma/rocwmma.hpp) is not modelled on the emulated device
// problem: gemm-fp16-nn
// A rocWMMA GEMM (the shape of rocWMMA's samples): the emulated device refuses the header by name
// instead of failing on some template deep inside it.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <rocwmma/rocwmma.hpp>

__global__ void gemm(const rocwmma::float16_t* A, const rocwmma::float16_t* B, __half* C, int M, int N, int K) {
    rocwmma::fragment<rocwmma::matrix_a, 16, 16, 16, rocwmma::float16_t, rocwmma::row_major> a;
    (void)a;
}

extern "C" void solution(const __half* A, const __half* B, __half* C, size_t M, size_t N, size_t K) {
    (void)A; (void)B; (void)C; (void)M; (void)N; (void)K;
}
