#include <cuda_runtime.h>
#include <cuda_fp16.h>

// One 32-lane warp per row, eight rows per block, three passes: the maximum and the sum of
// e^(x - max) in float32, each reduced with __shfl_xor_sync, then the quotients rounded to half.
__global__ void softmax(const __half* x, __half* out, size_t rows, size_t cols) {
    const size_t r = blockIdx.x * 8 + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (r >= rows) return;
    const __half* row = x + r * cols;
    float m = -INFINITY;
    for (size_t c = lane; c < cols; c += 32) m = fmaxf(m, __half2float(row[c]));
    for (int mask = 16; mask > 0; mask >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, mask));
    float s = 0.0f;
    for (size_t c = lane; c < cols; c += 32) s += __expf(__half2float(row[c]) - m);
    for (int mask = 16; mask > 0; mask >>= 1) s += __shfl_xor_sync(0xffffffffu, s, mask);
    const float inv = 1.0f / s;
    for (size_t c = lane; c < cols; c += 32) out[r * cols + c] = __float2half(__expf(__half2float(row[c]) - m) * inv);
}

extern "C" void solution(const __half* x, __half* out, size_t rows, size_t cols) {
    softmax<<<(unsigned)((rows + 7) / 8), 256>>>(x, out, rows, cols);
}
