// HIP wavefront functions with 64 lanes: shuffles (with widths), ballots, votes, divergence, a
// partial last wavefront, and the answer a 32-lane assumption gets on a 64-lane machine.
#include <hip/hip_runtime.h>
#include <vector>

#include "check.h"

constexpr int kOut = 16;  // values recorded per thread

__global__ void shuffles(int* out) {
    const int lane = __lane_id();
    const int v = 100 + lane;
    int* o = out + (blockIdx.x * blockDim.x + threadIdx.x) * kOut;
    o[0] = __shfl(v, 5);                 // every lane reads lane 5
    o[1] = __shfl(v, lane + 1, 16);      // index wraps past the 16-lane segment: HIP does not mask it
    o[2] = __shfl_up(v, 3);              // lanes 0..2 keep their own value
    o[3] = __shfl_down(v, 3);            // lanes 61..63 keep their own value
    o[4] = __shfl_xor(v, 1);
    o[5] = __shfl_down(v, 4, 8);         // 8-lane segments
    o[6] = __shfl_xor(v, 32);            // crosses the half: only a 64-lane wavefront has it
    o[7] = (int)(__ballot(lane % 3 == 0) >> 32);  // the upper half of a 64-bit ballot
    o[8] = (int)__ballot(lane % 3 == 0);
    o[9] = __any(lane == 63);
    o[10] = __all(lane < 63);
    o[11] = __popcll(__ballot(1));
    o[12] = warpSize;
    o[13] = (int)__shfl((double)v * 0.5, 63);     // 8-byte values
    o[14] = lane;
    o[15] = __shfl((float)v, 2);
}

// Lanes 0..15 shuffle among themselves inside a branch; the others skip it.
__global__ void diverged(int* out) {
    const int lane = __lane_id();
    int v = lane;
    if (lane < 16) v = __shfl_down(v, 8) + 1000;  // lanes 8..15 read lanes 16..23, which are not active
    unsigned long long mask = 0;
    if (lane >= 40) mask = __ballot(1);  // the lanes that took the branch
    out[threadIdx.x * 2] = v;
    out[threadIdx.x * 2 + 1] = (int)(mask >> 32);
}

// A warp sum written for 32-lane warps, ported unchanged: the total is broadcast from lane 0,
// which on a 64-lane wavefront is the first half's lane 0 for the second half too.
__global__ void warp32_reduction(const int* in, int* out) {
    int v = in[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down(v, offset);
    v = __shfl(v, 0);
    if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}

int main() {
    const int threads = 96;  // one full wavefront and a partial one of 32 lanes
    int* d_out;
    hipMalloc(&d_out, 2 * threads * kOut * sizeof(int));
    hipLaunchKernelGGL(shuffles, dim3(2), dim3(threads), 0, 0, d_out);
    CHECK_EQ(hipGetLastError(), hipSuccess);
    std::vector<int> o(2 * threads * kOut);
    hipMemcpy(o.data(), d_out, o.size() * sizeof(int), hipMemcpyDeviceToHost);
    for (int t = 0; t < 2 * threads; ++t) {
        const int lane = t % threads % 64;
        const int lanes = t % threads < 64 ? 64 : 32;  // lanes in this wavefront
        const int* r = &o[t * kOut];
        const auto value = [&](int l) { return l < lanes ? 100 + l : 100 + lane; };
        CHECK_EQ(r[0], value(5));
        CHECK_EQ(r[1], value(((lane + 1) + (lane & ~15)) % 64));
        CHECK_EQ(r[2], lane >= 3 ? value(lane - 3) : 100 + lane);
        CHECK_EQ(r[3], lane + 3 < 64 ? value(lane + 3) : 100 + lane);
        CHECK_EQ(r[4], value(lane ^ 1));
        CHECK_EQ(r[5], (lane % 8) + 4 < 8 ? value(lane + 4) : 100 + lane);
        CHECK_EQ(r[6], value(lane ^ 32));
        unsigned long long ballot = 0;
        for (int l = 0; l < lanes; ++l)
            if (l % 3 == 0) ballot |= 1ull << l;
        CHECK_EQ(r[7], (int)(ballot >> 32));
        CHECK_EQ(r[8], (int)ballot);
        CHECK_EQ(r[9], lanes == 64 ? 1 : 0);
        CHECK_EQ(r[10], lanes == 64 ? 0 : 1);
        CHECK_EQ(r[11], lanes);
        CHECK_EQ(r[12], 64);
        CHECK_EQ(r[13], (int)((lanes == 64 ? 163 : 100 + lane) * 0.5));
        CHECK_EQ(r[14], lane);
        CHECK_EQ(r[15], value(2));
    }

    hipLaunchKernelGGL(diverged, dim3(1), dim3(64), 0, 0, d_out);
    std::vector<int> d(128);
    hipMemcpy(d.data(), d_out, d.size() * sizeof(int), hipMemcpyDeviceToHost);
    for (int lane = 0; lane < 64; ++lane) {
        const int want = lane < 8 ? lane + 8 + 1000 : lane < 16 ? lane + 1000 : lane;
        CHECK_EQ(d[lane * 2], want);
        CHECK_EQ(d[lane * 2 + 1], lane >= 40 ? (int)0xFFFFFF00u : 0);  // lanes 40..63
    }

    std::vector<int> values(128), sums(4, -1);
    for (int i = 0; i < 128; ++i) values[i] = i;
    int* d_in;
    hipMalloc(&d_in, 128 * sizeof(int));
    hipMemcpy(d_in, values.data(), 128 * sizeof(int), hipMemcpyHostToDevice);
    hipLaunchKernelGGL(warp32_reduction, dim3(1), dim3(128), 0, 0, d_in, d_out);
    hipMemcpy(sums.data(), d_out, 4 * sizeof(int), hipMemcpyDeviceToHost);
    // 32-lane warps would give 496, 1520, 2544, 3568; each wavefront's upper half repeats its lower.
    CHECK_EQ(sums[0], 496);
    CHECK_EQ(sums[1], 496);
    CHECK_EQ(sums[2], 2544);
    CHECK_EQ(sums[3], 2544);
    return finish();
}
