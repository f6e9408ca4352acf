// expect: WRONG_ANSWER: solution modified its input input
// problem: leaky-relu
// cases: 3x5 a=0.2
// An in-place activation through a const_cast: the output is right, the input is destroyed.
#include <cuda_runtime.h>

__global__ void leaky(float* x, float alpha, float* out, size_t total) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < total) {
        if (x[i] < 0.0f) x[i] *= alpha;
        out[i] = x[i];
    }
}

extern "C" void solution(const float* input, float alpha, float* output, size_t n, size_t m) {
    leaky<<<(unsigned)((n * m + 255) / 256), 256>>>(const_cast<float*>(input), alpha, output, n * m);
}
