// expect: CHECKED
// problem: prefix-sum
// Inclusive scan in three launches: a Hillis-Steele scan of each 512-element block in shared
// memory (double buffered), a scan of the block totals, and the carry added back.
#include <hip/hip_runtime.h>

constexpr int kBlock = 512;

__global__ void scan_blocks(const int* in, int* out, int* totals, size_t n) {
    __shared__ int buf[2][kBlock];
    const int tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * kBlock + tid;
    int cur = 0;
    buf[0][tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < kBlock; offset *= 2) {
        const int next = 1 - cur;
        buf[next][tid] = buf[cur][tid] + (tid >= offset ? buf[cur][tid - offset] : 0);
        __syncthreads();
        cur = next;
    }
    if (i < n) out[i] = buf[cur][tid];
    if (tid == kBlock - 1 && totals) totals[blockIdx.x] = buf[cur][tid];
}

__global__ void add_carry(int* out, const int* scanned_totals, size_t n) {
    const size_t i = (size_t)blockIdx.x * kBlock + threadIdx.x;
    if (blockIdx.x > 0 && i < n) out[i] += scanned_totals[blockIdx.x - 1];
}

static void scan(const int* in, int* out, size_t n) {
    const size_t blocks = (n + kBlock - 1) / kBlock;
    if (blocks == 1) {
        scan_blocks<<<1, kBlock>>>(in, out, nullptr, n);
        return;
    }
    int* totals = nullptr;
    hipMalloc(&totals, 2 * blocks * sizeof(int));
    scan_blocks<<<(unsigned)blocks, kBlock>>>(in, out, totals, n);
    scan(totals, totals + blocks, blocks);  // recursion: at most three levels for 2^24 elements
    add_carry<<<(unsigned)blocks, kBlock>>>(out, totals + blocks, n);
    hipDeviceSynchronize();
    hipFree(totals);
}

extern "C" void solution(const int* input, int* output, size_t n) { scan(input, output, n); }
