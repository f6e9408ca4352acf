#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

__global__ void conv3x3(const __half* input, const __half* weight, __half* output, size_t N, size_t H, size_t W,
                        size_t C, size_t K) {
    // TODO: accumulate in float; pixels outside the image are 0
}

extern "C" void solution(const __half* input, const __half* weight, __half* output, size_t N, size_t H, size_t W,
                         size_t C, size_t K) {
    // All pointers are device pointers. Launch on the default stream.
}
