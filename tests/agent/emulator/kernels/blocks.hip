// Shared memory (static, dynamic, 2-D), barriers and their counting forms, index variables,
// atomics from many blocks, __device__ variables and symbols.
#include <hip/hip_runtime.h>
#include <vector>

#include "check.h"

__device__ int g_counter;
__constant__ float c_scale[4];
extern __shared__ float file_scope_dynamic[];

__global__ void block_sums(const int* in, int* out) {
    __shared__ int s[256];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (t < half) s[t] += s[t + half];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// The reverse of each block's slice through dynamic shared memory declared in two ways.
__global__ void reverse_dynamic(const float* in, float* out) {
    extern __shared__ float tile[];
    const int t = threadIdx.x, n = blockDim.x;
    tile[t] = in[blockIdx.x * n + t];
    __syncthreads();
    file_scope_dynamic[n + t] = tile[n - 1 - t] * c_scale[blockIdx.x % 4];
    __syncthreads();
    out[blockIdx.x * n + t] = file_scope_dynamic[n + t];
}

__global__ void transpose_2d(const int* in, int* out, int width) {
    __shared__ int tile[16][17];
    const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    const int tx = blockIdx.y * 16 + threadIdx.x, ty = blockIdx.x * 16 + threadIdx.y;
    out[ty * width + tx] = tile[threadIdx.x][threadIdx.y];
}

__global__ void barrier_votes(int* out) {
    const int t = threadIdx.x;
    const int count = __syncthreads_count(t % 3 == 0);
    const int all = __syncthreads_and(t < 1000);
    const int any = __syncthreads_or(t == 77);
    const int none = __syncthreads_or(0);
    if (t == 0) {
        out[0] = count;
        out[1] = all;
        out[2] = any;
        out[3] = none;
    }
}

__global__ void indices_3d(int* out) {
    const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int per_block = blockDim.x * blockDim.y * blockDim.z;
    out[block * per_block + thread] = block * 1000 + thread;
    atomicAdd(&g_counter, 1);
}

__global__ void many_atomics(int* ints, unsigned* uints, float* floats, double* doubles,
                             unsigned long long* ulls) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&ints[0], 1);
    atomicSub(&ints[1], 2);
    atomicMax(&ints[2], t);
    atomicMin(&ints[3], -t);
    atomicOr(&uints[0], 1u << (t % 32));
    atomicXor(&uints[1], 1u);
    atomicAnd(&uints[2], ~(1u << (t % 8)));
    atomicInc(&uints[3], 9u);  // wraps to 0 after 9
    atomicAdd(&floats[0], 0.5f);
    atomicMax(&floats[1], (float)t);
    atomicAdd(&doubles[0], 0.25);
    atomicAdd(&ulls[0], 3ull);
    // a lock-free maximum through compare-and-swap
    int old = ints[4], assumed;
    do {
        assumed = old;
        old = atomicCAS(&ints[4], assumed, assumed > t ? assumed : t);
    } while (old != assumed);
    atomicExch(&ints[5], 42);
}

int main() {
    const int blocks = 37, threads = 256;
    std::vector<int> in(blocks * threads), sums(blocks);
    for (size_t i = 0; i < in.size(); ++i) in[i] = (int)(i % 1000) - 300;
    int *d_in, *d_out;
    hipMalloc(&d_in, in.size() * sizeof(int));
    hipMalloc(&d_out, in.size() * sizeof(int));
    hipMemcpy(d_in, in.data(), in.size() * sizeof(int), hipMemcpyHostToDevice);
    hipLaunchKernelGGL(block_sums, dim3(blocks), dim3(threads), 0, 0, d_in, d_out);
    CHECK_EQ(hipGetLastError(), hipSuccess);
    hipMemcpy(sums.data(), d_out, blocks * sizeof(int), hipMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) {
        int want = 0;
        for (int t = 0; t < threads; ++t) want += in[b * threads + t];
        CHECK_EQ(sums[b], want);
    }

    const int n = 128;
    std::vector<float> f(8 * n), g(8 * n);
    for (size_t i = 0; i < f.size(); ++i) f[i] = (float)i;
    const float scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    CHECK_EQ(hipMemcpyToSymbol(HIP_SYMBOL(c_scale), scale, sizeof(scale)), hipSuccess);
    float *d_f, *d_g;
    hipMalloc(&d_f, f.size() * sizeof(float));
    hipMalloc(&d_g, f.size() * sizeof(float));
    hipMemcpy(d_f, f.data(), f.size() * sizeof(float), hipMemcpyHostToDevice);
    hipLaunchKernelGGL(reverse_dynamic, dim3(8), dim3(n), 2 * n * sizeof(float), 0, d_f, d_g);
    CHECK_EQ(hipGetLastError(), hipSuccess);
    hipMemcpy(g.data(), d_g, g.size() * sizeof(float), hipMemcpyDeviceToHost);
    for (int b = 0; b < 8; ++b)
        for (int t = 0; t < n; ++t) CHECK_EQ(g[b * n + t], f[b * n + n - 1 - t] * scale[b % 4]);

    const int width = 64;
    std::vector<int> m(width * width), mt(width * width);
    for (int i = 0; i < width * width; ++i) m[i] = i;
    hipMemcpy(d_in, m.data(), m.size() * sizeof(int), hipMemcpyHostToDevice);
    hipLaunchKernelGGL(transpose_2d, dim3(4, 4), dim3(16, 16), 0, 0, d_in, d_out, width);
    hipMemcpy(mt.data(), d_out, mt.size() * sizeof(int), hipMemcpyDeviceToHost);
    for (int y = 0; y < width; ++y)
        for (int x = 0; x < width; ++x) CHECK_EQ(mt[x * width + y], m[y * width + x]);

    int votes[4];
    hipLaunchKernelGGL(barrier_votes, dim3(1), dim3(300), 0, 0, d_out);
    hipMemcpy(votes, d_out, sizeof(votes), hipMemcpyDeviceToHost);
    CHECK_EQ(votes[0], 100);
    CHECK_EQ(votes[1], 1);
    CHECK_EQ(votes[2], 1);
    CHECK_EQ(votes[3], 0);

    const dim3 grid(3, 2, 2), block(4, 3, 5);
    hipLaunchKernelGGL(indices_3d, grid, block, 0, 0, d_out);
    std::vector<int> ids(12 * 60);
    hipMemcpy(ids.data(), d_out, ids.size() * sizeof(int), hipMemcpyDeviceToHost);
    for (int b = 0; b < 12; ++b)
        for (int t = 0; t < 60; ++t) CHECK_EQ(ids[b * 60 + t], b * 1000 + t);
    int counter = 0;
    hipMemcpyFromSymbol(&counter, HIP_SYMBOL(g_counter), sizeof(int));
    CHECK_EQ(counter, 720);

    int ints[6] = {0, 0, -1, 0, -1, 0};
    unsigned uints[4] = {0, 0, 0xFFFFFFFFu, 0};
    float floats[2] = {0.0f, -1.0f};
    double doubles[1] = {0.0};
    unsigned long long ulls[1] = {0};
    int* d_ints;
    unsigned* d_uints;
    float* d_floats;
    double* d_doubles;
    unsigned long long* d_ulls;
    hipMalloc(&d_ints, sizeof(ints));
    hipMalloc(&d_uints, sizeof(uints));
    hipMalloc(&d_floats, sizeof(floats));
    hipMalloc(&d_doubles, sizeof(doubles));
    hipMalloc(&d_ulls, sizeof(ulls));
    hipMemcpy(d_ints, ints, sizeof(ints), hipMemcpyHostToDevice);
    hipMemcpy(d_uints, uints, sizeof(uints), hipMemcpyHostToDevice);
    hipMemcpy(d_floats, floats, sizeof(floats), hipMemcpyHostToDevice);
    hipMemcpy(d_doubles, doubles, sizeof(doubles), hipMemcpyHostToDevice);
    hipMemcpy(d_ulls, ulls, sizeof(ulls), hipMemcpyHostToDevice);
    const int total = 64 * 128;
    hipLaunchKernelGGL(many_atomics, dim3(64), dim3(128), 0, 0, d_ints, d_uints, d_floats, d_doubles, d_ulls);
    hipMemcpy(ints, d_ints, sizeof(ints), hipMemcpyDeviceToHost);
    hipMemcpy(uints, d_uints, sizeof(uints), hipMemcpyDeviceToHost);
    hipMemcpy(floats, d_floats, sizeof(floats), hipMemcpyDeviceToHost);
    hipMemcpy(doubles, d_doubles, sizeof(doubles), hipMemcpyDeviceToHost);
    hipMemcpy(ulls, d_ulls, sizeof(ulls), hipMemcpyDeviceToHost);
    CHECK_EQ(ints[0], total);
    CHECK_EQ(ints[1], -2 * total);
    CHECK_EQ(ints[2], total - 1);
    CHECK_EQ(ints[3], -(total - 1));
    CHECK_EQ(ints[4], total - 1);
    CHECK_EQ(ints[5], 42);
    CHECK_EQ(uints[0], 0xFFFFFFFFu);
    CHECK_EQ(uints[1], 0u);
    CHECK_EQ(uints[2], 0xFFFFFF00u);
    CHECK_EQ(uints[3], (unsigned)(total % 10));
    CHECK_EQ(floats[0], total * 0.5f);
    CHECK_EQ(floats[1], (float)(total - 1));
    CHECK_EQ(doubles[0], total * 0.25);
    CHECK_EQ(ulls[0], 3ull * total);
    return finish();
}
