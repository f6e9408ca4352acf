// rocWMMA's core API on the emulator: fragments of every memory layout, f16/bf16/f32/f64/int8
// inputs with float, half, double and int32 accumulators, 16x16 and 32x32 blocks, two mma_sync
// steps over K, checked exactly against a double reference (small dyadic values). Prints ALL OK.
#include <hip/hip_runtime.h>
#include <rocwmma/rocwmma.hpp>

#include <vector>

#include "check.h"

using rocwmma::accumulator;
using rocwmma::col_major;
using rocwmma::matrix_a;
using rocwmma::matrix_b;
using rocwmma::row_major;

// C (BM x BM) = A (BM x 2 BK) B (2 BK x BM) + C0, A and B in the given memory layouts, C in row- or
// column-major memory, one wavefront.
template <uint32_t BM, uint32_t BK, class In, class Acc, class LA, class LB, bool C_ROW>
__global__ void gemm(const In* a, const In* b, const Acc* c0, Acc* c) {
    rocwmma::fragment<matrix_a, BM, BM, BK, In, LA> fa;
    rocwmma::fragment<matrix_b, BM, BM, BK, In, LB> fb;
    rocwmma::fragment<accumulator, BM, BM, BK, Acc> acc;
    const auto layout = C_ROW ? rocwmma::mem_row_major : rocwmma::mem_col_major;
    rocwmma::load_matrix_sync(acc, c0, BM, layout);
    const uint32_t K = 2 * BK;
    const bool a_row = std::is_same<LA, row_major>::value, b_row = std::is_same<LB, row_major>::value;
    for (uint32_t k = 0; k < K; k += BK) {
        // A (BM x K): row-major ld K, column-major ld BM; B (K x BM): row-major ld BM, column-major ld K.
        rocwmma::load_matrix_sync(fa, a + (a_row ? k : (size_t)k * BM), a_row ? K : BM);
        rocwmma::load_matrix_sync(fb, b + (b_row ? (size_t)k * BM : k), b_row ? BM : K);
        rocwmma::mma_sync(acc, fa, fb, acc);
    }
    rocwmma::store_matrix_sync(c, acc, BM, layout);
}

template <uint32_t BM, uint32_t BK, class In, class Acc, class LA, class LB, bool C_ROW>
void check(const char* name) {
    const uint32_t K = 2 * BK;
    In *a, *b;
    Acc *c0, *c;
    hipMalloc(&a, BM * K * sizeof(In));
    hipMalloc(&b, K * BM * sizeof(In));
    hipMalloc(&c0, BM * BM * sizeof(Acc));
    hipMalloc(&c, BM * BM * sizeof(Acc));
    std::vector<double> A(BM * K), B(K * BM), C0(BM * BM);
    unsigned seed = 99u + BM + BK;
    auto next = [&] { seed = seed * 1103515245u + 12345u; return (int)((seed >> 16) % 9) - 4; };
    const double scale = std::is_integral<In>::value ? 1.0 : 0.5;
    const bool a_row = std::is_same<LA, row_major>::value, b_row = std::is_same<LB, row_major>::value;
    for (uint32_t i = 0; i < BM; ++i)
        for (uint32_t k = 0; k < K; ++k) {
            A[i * K + k] = scale * next();
            a[a_row ? i * K + k : k * BM + i] = static_cast<In>(static_cast<float>(A[i * K + k]));
        }
    for (uint32_t k = 0; k < K; ++k)
        for (uint32_t j = 0; j < BM; ++j) {
            B[k * BM + j] = scale * next();
            b[b_row ? k * BM + j : j * K + k] = static_cast<In>(static_cast<float>(B[k * BM + j]));
        }
    for (uint32_t i = 0; i < BM; ++i)
        for (uint32_t j = 0; j < BM; ++j) {
            C0[i * BM + j] = next();
            c0[C_ROW ? i * BM + j : j * BM + i] = static_cast<Acc>(static_cast<float>(C0[i * BM + j]));
        }
    hipLaunchKernelGGL((gemm<BM, BK, In, Acc, LA, LB, C_ROW>), dim3(1), dim3(64), 0, 0, a, b, c0, c);
    hipDeviceSynchronize();
    int wrong = 0;
    for (uint32_t i = 0; i < BM; ++i)
        for (uint32_t j = 0; j < BM; ++j) {
            double want = C0[i * BM + j];
            for (uint32_t k = 0; k < K; ++k) want += A[i * K + k] * B[k * BM + j];
            const double got = (double)(float)c[C_ROW ? i * BM + j : j * BM + i];
            wrong += got != want;
        }
    if (wrong) std::printf("%s: %d of %u elements wrong\n", name, wrong, BM * BM);
    CHECK(wrong == 0);
    hipFree(a); hipFree(b); hipFree(c0); hipFree(c);
}

int main() {
    check<16, 16, rocwmma::float16_t, float, row_major, col_major, true>("f16 16x16x16 row/col -> f32");
    check<32, 8, rocwmma::bfloat16_t, float, col_major, row_major, false>("bf16 32x32x8 col/row -> f32, col-major C");
    check<16, 4, float, float, row_major, row_major, true>("f32 16x16x4");
    check<16, 32, int8_t, int32_t, row_major, col_major, true>("i8 16x16x32 -> i32");
    check<32, 16, rocwmma::float16_t, rocwmma::float16_t, col_major, col_major, true>("f16 32x32x16 -> f16");
    check<16, 4, double, double, row_major, row_major, false>("f64 16x16x4");
    rocwmma::fragment<accumulator, 32, 32, 8, float> f;
    rocwmma::fill_fragment(f, 2.5f);
    CHECK(f.num_elements == 16 && f.x[15] == 2.5f);
    if (g_failures == 0) std::printf("ALL OK\n");
    return g_failures;
}
