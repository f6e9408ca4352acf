// expect: CHECKED
// problem: softmax
// One 64-lane wavefront per row, four rows per block, butterfly reductions with __shfl_xor: every
// lane ends with the row's max and sum, no shared memory and no barrier.
#include <hip/hip_runtime.h>

__device__ float wave_max(float v) {
    for (int m = 32; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor(v, m));
    return v;
}
__device__ float wave_sum(float v) {
    for (int m = 32; m > 0; m >>= 1) v += __shfl_xor(v, m);
    return v;
}

__global__ void softmax(const float* in, float* out, size_t rows, size_t cols) {
    const size_t row = blockIdx.x * 4 + threadIdx.x / 64;
    const int lane = threadIdx.x % 64;
    if (row >= rows) return;  // whole wavefronts leave together: no barrier follows
    const float* x = in + row * cols;
    float m = -INFINITY;
    for (size_t c = lane; c < cols; c += 64) m = fmaxf(m, x[c]);
    m = wave_max(m);
    float s = 0.0f;
    for (size_t c = lane; c < cols; c += 64) s += expf(x[c] - m);
    s = wave_sum(s);
    for (size_t c = lane; c < cols; c += 64) out[row * cols + c] = expf(x[c] - m) / s;
}

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    softmax<<<(unsigned)((rows + 3) / 4), 256>>>(input, output, rows, cols);
}
