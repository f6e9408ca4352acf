#include <cuda_runtime.h>
#include <cuda_fp8.h>  // __nv_fp8_storage_t

// NVIDIA GPUs have no FNUZ fp8: the bytes are decoded here (sign, 4 exponent bits with bias 8, 3
// mantissa bits; 0x80 is NaN), staged as floats in shared-memory tiles, multiplied in float32.
__device__ inline float fnuz_e4m3(unsigned char b) {
    if (b == 0x80) return __int_as_float(0x7fc00000);
    const int exponent = (b >> 3) & 0xF, mantissa = b & 7;
    const float magnitude = exponent == 0 ? ldexpf((float)mantissa, -10) : ldexpf((float)(8 + mantissa), exponent - 11);
    return (b & 0x80) ? -magnitude : magnitude;
}

constexpr int T = 16;

__global__ void gemm(const unsigned char* A, const unsigned char* B, float* C, size_t M, size_t N, size_t K) {
    __shared__ float As[T][T], Bs[T][T];
    const size_t row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (size_t k0 = 0; k0 < K; k0 += T) {
        As[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? fnuz_e4m3(A[row * K + k0 + threadIdx.x]) : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = col < N && k0 + threadIdx.y < K ? fnuz_e4m3(B[(k0 + threadIdx.y) * N + col]) : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" void solution(const __nv_fp8_storage_t* A, const __nv_fp8_storage_t* B, float* C, size_t M, size_t N,
                         size_t K) {
    gemm<<<dim3((unsigned)((N + T - 1) / T), (unsigned)((M + T - 1) / T)), dim3(T, T)>>>(A, B, C, M, N, K);
}
