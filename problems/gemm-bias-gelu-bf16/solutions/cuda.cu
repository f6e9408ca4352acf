#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>

// Tensor cores through nvcuda::wmma: one warp per 16x16 tile of A B, bfloat16 inputs staged in shared
// memory (zero-padded at the edges), float accumulators; the epilogue adds the bias and applies
// GELU(tanh) in float32, then rounds to bfloat16 once.
using namespace nvcuda;

__device__ inline float gelu_tanh(float x) {
    const float y = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhf(y));
}

__global__ void gemm_bias_gelu(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                               __nv_bfloat16* C, size_t M, size_t N, size_t K) {
    __shared__ __nv_bfloat16 As[16 * 16], Bs[16 * 16];
    __shared__ float Cs[16 * 16];
    const size_t row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
    const __nv_bfloat16 zero = __float2bfloat16(0.0f);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (size_t k0 = 0; k0 < K; k0 += 16) {
        for (int idx = threadIdx.x; idx < 256; idx += 32) {
            const size_t r = idx / 16, c = idx % 16;
            As[idx] = row0 + r < M && k0 + c < K ? A[(row0 + r) * K + k0 + c] : zero;
            Bs[idx] = k0 + r < K && col0 + c < N ? B[(k0 + r) * N + col0 + c] : zero;
        }
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
        wmma::load_matrix_sync(a, As, 16);
        wmma::load_matrix_sync(b, Bs, 16);
        wmma::mma_sync(acc, a, b, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(Cs, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int idx = threadIdx.x; idx < 256; idx += 32) {
        const size_t r = row0 + idx / 16, c = col0 + idx % 16;
        if (r < M && c < N) C[r * N + c] = __float2bfloat16(gelu_tanh(Cs[idx] + __bfloat162float(bias[c])));
    }
}

extern "C" void solution(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                         __nv_bfloat16* C, size_t M, size_t N, size_t K) {
    gemm_bias_gelu<<<dim3((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16)), 32>>>(A, B, bias, C, M, N, K);
}
