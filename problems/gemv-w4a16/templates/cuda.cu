#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include <cstdint>

// q[n][k] = (W[n * (K / 2) + k / 2] >> (4 * (k % 2))) & 15; weight = (q - 8) * scales[n * ((K + 127) / 128) + k / 128]
__global__ void gemv(const __half* x, const uint8_t* W, const __half* scales, __half* y, size_t N, size_t K) {
    // TODO: y[n] = sum over k of weight(n, k) * x[k], in float32
}

extern "C" void solution(const __half* x, const uint8_t* W, const __half* scales, __half* y, size_t N, size_t K) {
    // Every pointer is a device pointer. Launch on the default stream.
}
