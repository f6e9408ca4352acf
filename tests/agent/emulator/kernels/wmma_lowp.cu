// CUDA's nvcuda::wmma (m16n16k16, half and __nv_bfloat16 into float) on the emulator, with row- and
// column-major operands and both store layouts, checked exactly; and cuda_fp16.h, cuda_bf16.h and
// cuda_fp8.h conversions (the OCP fp8 formats' saturation and NaN). Prints ALL OK.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <mma.h>

#include "check.h"

using namespace nvcuda;

template <class T, class LayoutA, class LayoutB>
__global__ void tile(const T* A, const T* B, const float* C, float* D, bool col_major_out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, LayoutA> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LayoutB> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
    for (int e = 0; e < c.num_elements; ++e) c.x[e] = c.x[e] * 2.0f;  // element-wise: layout-free
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, col_major_out ? wmma::mem_col_major : wmma::mem_row_major);
}

template <class T, class LayoutA, class LayoutB>
void check_tile(bool col_major_out) {
    const bool a_col = std::is_same<LayoutA, wmma::col_major>::value, b_col = std::is_same<LayoutB, wmma::col_major>::value;
    float a[256], b[256], c[256];
    T *dA, *dB;
    float *dC, *dD;
    cudaMallocManaged(&dA, 256 * sizeof(T));
    cudaMallocManaged(&dB, 256 * sizeof(T));
    cudaMallocManaged(&dC, 256 * 4);
    cudaMallocManaged(&dD, 256 * 4);
    for (int i = 0; i < 256; ++i) {
        a[i] = 0.5f * ((i * 7) % 9 - 4);
        b[i] = 0.25f * ((i * 5) % 11 - 5);
        c[i] = (float)((i * 3) % 7 - 3);
    }
    for (int r = 0; r < 16; ++r)
        for (int k = 0; k < 16; ++k) {
            dA[a_col ? k * 16 + r : r * 16 + k] = T(a[r * 16 + k]);
            dB[b_col ? r * 16 + k : k * 16 + r] = T(b[k * 16 + r]);
        }
    for (int i = 0; i < 256; ++i) dC[i] = c[i];
    tile<T, LayoutA, LayoutB><<<1, 32>>>(dA, dB, dC, dD, col_major_out);
    cudaDeviceSynchronize();
    int wrong = 0;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            double want = 2.0 * c[i * 16 + j];
            for (int k = 0; k < 16; ++k) want += (double)a[i * 16 + k] * b[k * 16 + j];
            wrong += dD[col_major_out ? j * 16 + i : i * 16 + j] != (float)want;
        }
    CHECK(wrong == 0);
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
}

int main() {
    check_tile<__half, wmma::row_major, wmma::row_major>(false);
    check_tile<__half, wmma::col_major, wmma::row_major>(true);
    check_tile<__nv_bfloat16, wmma::row_major, wmma::col_major>(false);
    // OCP fp8: saturation by default (constructors), NOSAT overflows to NaN (E4M3) or infinity (E5M2).
    CHECK(float(__nv_fp8_e4m3(1000.0f)) == 448.0f);
    CHECK(__nv_cvt_float_to_fp8(1000.0f, __NV_NOSAT, __NV_E4M3) == 0x7F);
    CHECK(__nv_cvt_float_to_fp8(1e6f, __NV_NOSAT, __NV_E5M2) == 0x7C);
    CHECK(__nv_cvt_float_to_fp8(1e6f, __NV_SATFINITE, __NV_E5M2) == 0x7B);
    CHECK(__half2float(__half(__nv_cvt_fp8_to_halfraw(0x38, __NV_E4M3))) == 1.0f);
    CHECK(__bfloat162float(__hadd(__float2bfloat16(1.0f), __float2bfloat16(1.0f / 512))) == 1.0f);
    CHECK(__half2float(__hmul(__float2half(3.0f), __float2half(0.5f))) == 1.5f);
    if (g_failures == 0) std::printf("ALL OK\n");
    return g_failures;
}
