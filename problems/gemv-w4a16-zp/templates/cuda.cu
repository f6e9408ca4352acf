#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include <cstdint>

// q[n][k] = (W[n * (K / 2) + k / 2] >> (4 * (k % 2))) & 15; with g = n * ((K + 127) / 128) + k / 128,
// weight[n][k] = (q[n][k] - zeros[g]) * scales[g]
__global__ void gemv(const __half* x, const uint8_t* W, const __half* scales, const uint8_t* zeros, __half* y,
                     size_t M, size_t N, size_t K) {
    // TODO: y[m * N + n] = sum over k of weight[n][k] * x[m * K + k], in float32
}

extern "C" void solution(const __half* x, const uint8_t* W, const __half* scales, const uint8_t* zeros, __half* y,
                         size_t M, size_t N, size_t K) {
    // Every pointer is a device pointer. Launch on the default stream.
}
