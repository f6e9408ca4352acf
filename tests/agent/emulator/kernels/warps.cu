// CUDA warp functions with 32 lanes: *_sync shuffles, votes, matches, reductions, __syncwarp,
// a sub-warp mask inside a branch, and a warp-level reduction + scan used the usual way.
#include <cuda_runtime.h>
#include <vector>

#include "check.h"

constexpr unsigned kFull = 0xffffffffu;

__global__ void lanes(int* out) {
    const int lane = threadIdx.x % warpSize;
    const int v = 100 + lane;
    int* o = out + threadIdx.x * 12;
    o[0] = __shfl_sync(kFull, v, 7);
    o[1] = __shfl_sync(kFull, v, lane + 9, 8);  // CUDA takes the source modulo the width
    o[2] = __shfl_up_sync(kFull, v, 1);
    o[3] = __shfl_down_sync(kFull, v, 16);
    o[4] = __shfl_xor_sync(kFull, v, 16);
    o[5] = (int)__ballot_sync(kFull, lane & 1);
    o[6] = __any_sync(kFull, lane == 31);
    o[7] = __all_sync(kFull, lane < 31);
    o[8] = (int)__match_any_sync(kFull, lane / 4);
    o[9] = (int)__reduce_add_sync(kFull, (unsigned)lane);
    o[10] = __reduce_max_sync(kFull, -lane);
    __syncwarp();
    o[11] = warpSize;
}

__global__ void half_warp(int* out) {
    const int lane = threadIdx.x % 32;
    int v = lane;
    if (lane < 16) v = __shfl_xor_sync(0x0000ffffu, v, 8) + 1000;
    if (lane >= 20) v += (int)(__activemask() >> 20);  // lanes 20..31 took this branch
    out[threadIdx.x] = v;
}

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(kFull, v, offset);
    return __shfl_sync(kFull, v, 0);
}

__device__ int warp_inclusive_scan(int v) {
    const int lane = threadIdx.x % 32;
    for (int d = 1; d < 32; d <<= 1) {
        const int t = __shfl_up_sync(kFull, v, d);
        if (lane >= d) v += t;
    }
    return v;
}

__global__ void sums_and_scans(const float* in, float* sums, int* scans) {
    const float total = warp_sum(in[threadIdx.x]);
    if (threadIdx.x % 32 == 0) sums[threadIdx.x / 32] = total;
    scans[threadIdx.x] = warp_inclusive_scan(1);
}

int main() {
    int* d_out;
    cudaMalloc(&d_out, 64 * 12 * sizeof(int));
    lanes<<<1, 64>>>(d_out);
    CHECK_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<int> o(64 * 12);
    cudaMemcpy(o.data(), d_out, o.size() * sizeof(int), cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; ++t) {
        const int lane = t % 32;
        const int* r = &o[t * 12];
        CHECK_EQ(r[0], 107);
        CHECK_EQ(r[1], 100 + (lane & ~7) + ((lane + 9) & 7));
        CHECK_EQ(r[2], 100 + (lane >= 1 ? lane - 1 : lane));
        CHECK_EQ(r[3], 100 + (lane + 16 < 32 ? lane + 16 : lane));
        CHECK_EQ(r[4], 100 + (lane ^ 16));
        CHECK_EQ(r[5], (int)0xAAAAAAAAu);
        CHECK_EQ(r[6], 1);
        CHECK_EQ(r[7], 0);
        CHECK_EQ(r[8], (int)(0xFu << (lane / 4 * 4)));
        CHECK_EQ(r[9], 496);
        CHECK_EQ(r[10], 0);
        CHECK_EQ(r[11], 32);
    }

    half_warp<<<1, 32>>>(d_out);
    cudaMemcpy(o.data(), d_out, 32 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int lane = 0; lane < 32; ++lane)
        CHECK_EQ(o[lane], lane < 16 ? (lane ^ 8) + 1000 : lane + (lane >= 20 ? 0xFFF : 0));

    std::vector<float> in(128);
    for (int i = 0; i < 128; ++i) in[i] = (float)i;
    float *d_in, *d_sums;
    cudaMalloc(&d_in, 128 * sizeof(float));
    cudaMalloc(&d_sums, 4 * sizeof(float));
    cudaMemcpy(d_in, in.data(), 128 * sizeof(float), cudaMemcpyHostToDevice);
    sums_and_scans<<<1, 128>>>(d_in, d_sums, d_out);
    float sums[4];
    cudaMemcpy(sums, d_sums, sizeof(sums), cudaMemcpyDeviceToHost);
    cudaMemcpy(o.data(), d_out, 128 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int w = 0; w < 4; ++w) CHECK_EQ(sums[w], (float)(w * 32 * 32 + 496));
    for (int t = 0; t < 128; ++t) CHECK_EQ(o[t], t % 32 + 1);
    return finish();
}
