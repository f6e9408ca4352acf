// The launch forms users write, through the rewriter: templates (explicit and deduced), nested
// parentheses, qualified names, function pointers, macros, multi-line configurations, streams,
// struct arguments by value, cudaLaunchKernel with an argument array, and launch errors.
#include <cuda_runtime.h>
#include <vector>

#include "check.h"

struct Affine {
    float scale, shift;
};

template <typename T, int kFactor>
__global__ void scale_by(T* data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= kFactor;
}

template <typename T>
__global__ void add_value(T* data, T value, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += value;
}

namespace ops {
__global__ void affine(float* data, Affine a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * a.scale + a.shift;
}
}  // namespace ops

__global__ void fill(float* data, float value, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) data[i] = value;
}

#define LAUNCH_FILL(ptr, v, n) fill<<<(n + 63) / 64, 64>>>(ptr, v, n)

int main() {
    const int n = 1000;
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaStream_t stream;
    CHECK_EQ(cudaStreamCreate(&stream), cudaSuccess);

    LAUNCH_FILL(d, 1.0f, n);                                   // in a macro
    scale_by<float, 3><<<(n + 127) / 128, 128>>>(d, n);         // explicit template arguments
    add_value<<<dim3((n + 255) / 256), dim3(256), 0, stream>>>(d, 0.5f, n);  // deduced, with a stream
    ops::affine<<<
        (n + 31) / 32,   // a comment inside the configuration
        32>>>(d, Affine{2.0f, -1.0f}, n);                       // qualified name, struct by value
    void (*fn)(float*, float, int) = add_value<float>;
    (fn)<<<4, 256, 0, 0>>>(d, 0.25f, n);                         // a function pointer
    CHECK_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<float> h(n);
    cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) CHECK_EQ(h[i], (1.0f * 3 + 0.5f) * 2.0f - 1.0f + 0.25f);

    int count = n;
    void* args[] = {&d, &count};
    CHECK_EQ(cudaLaunchKernel(scale_by<float, 2>, dim3(8), dim3(128), args, 0, stream), cudaSuccess);
    CHECK_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    CHECK_EQ(h[n - 1], 12.5f);

    // Launch errors come back from cudaGetLastError, once, like on a GPU.
    fill<<<1, 1025>>>(d, 0.0f, n);
    CHECK_EQ(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
    CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
    CHECK_EQ(cudaGetLastError(), cudaSuccess);
    fill<<<0, 64>>>(d, 0.0f, n);
    CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
    fill<<<dim3(1, 65536), 64>>>(d, 0.0f, n);
    CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
    fill<<<1, dim3(1, 1, 65)>>>(d, 0.0f, n);
    CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
    fill<<<1, 64, 65537>>>(d, 0.0f, n);
    CHECK_EQ(cudaGetLastError(), cudaErrorInvalidValue);
    fill<<<1, 64, 65536>>>(d, 7.0f, n);  // exactly the limit is fine
    CHECK_EQ(cudaGetLastError(), cudaSuccess);
    cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    CHECK_EQ(h[999], 7.0f);
    CHECK_EQ(cudaStreamDestroy(stream), cudaSuccess);
    return finish();
}
