// expect: CHECKED
// problem: prefix-sum
// The work-efficient (Blelloch) scan: up-sweep and down-sweep over 2048 elements in shared memory
// by 1024 threads, one block walking the whole input chunk by chunk with a running carry.
#include <cuda_runtime.h>

constexpr int kThreads = 1024, kChunk = 2 * kThreads;

__global__ void scan(const int* in, int* out, size_t n) {
    __shared__ int s[kChunk];
    __shared__ int carry;
    const int t = threadIdx.x;
    if (t == 0) carry = 0;
    for (size_t base = 0; base < n; base += kChunk) {
        const size_t a = base + 2 * t, b = a + 1;
        const int va = a < n ? in[a] : 0, vb = b < n ? in[b] : 0;
        s[2 * t] = va;
        s[2 * t + 1] = vb;
        int offset = 1;
        for (int d = kChunk >> 1; d > 0; d >>= 1) {  // up-sweep
            __syncthreads();
            if (t < d) s[offset * (2 * t + 2) - 1] += s[offset * (2 * t + 1) - 1];
            offset <<= 1;
        }
        __syncthreads();
        const int total = s[kChunk - 1];
        __syncthreads();
        if (t == 0) s[kChunk - 1] = 0;
        for (int d = 1; d < kChunk; d <<= 1) {  // down-sweep: exclusive scan
            offset >>= 1;
            __syncthreads();
            if (t < d) {
                const int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
                const int tmp = s[ai];
                s[ai] = s[bi];
                s[bi] += tmp;
            }
        }
        __syncthreads();
        if (a < n) out[a] = carry + s[2 * t] + va;  // inclusive
        if (b < n) out[b] = carry + s[2 * t + 1] + vb;
        __syncthreads();
        if (t == 0) carry += total;
        __syncthreads();
    }
}

extern "C" void solution(const int* input, int* output, size_t n) { scan<<<1, kThreads>>>(input, output, n); }
