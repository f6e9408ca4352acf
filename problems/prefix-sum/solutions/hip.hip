#include <hip/hip_runtime.h>
#include <cstdint>

// Reduce-then-scan in three launches: (1) every block sums its chunk, (2) one block turns the chunk
// totals into exclusive offsets, (3) every block scans its chunk tile by tile (four consecutive
// items per thread plus a shared-memory scan of the thread totals), starting from its offset.
constexpr int kThreads = 256;
constexpr int kItems = 4;
constexpr int kTile = kThreads * kItems;
constexpr int kMaxBlocks = 2048;

__device__ int g_offsets[kMaxBlocks];

__global__ void __launch_bounds__(kThreads) chunk_totals(const int* __restrict__ input, size_t n,
                                                         size_t chunk) {
    __shared__ int s[kThreads];
    const int tid = threadIdx.x;
    const size_t begin = blockIdx.x * chunk;
    const size_t end = begin + chunk < n ? begin + chunk : n;
    int acc = 0;
    for (size_t i = begin + tid; i < end; i += kThreads) acc += input[i];
    s[tid] = acc;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half >>= 1) {
        if (tid < half) s[tid] += s[tid + half];
        __syncthreads();
    }
    if (tid == 0) g_offsets[blockIdx.x] = s[0];
}

__global__ void __launch_bounds__(kThreads) totals_to_offsets(int count) {
    __shared__ int s[kMaxBlocks];
    for (int i = threadIdx.x; i < count; i += kThreads) s[i] = g_offsets[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        int running = 0;
        for (int i = 0; i < count; ++i) {
            const int v = s[i];
            s[i] = running;
            running += v;
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < count; i += kThreads) g_offsets[i] = s[i];
}

__global__ void __launch_bounds__(kThreads) scan_chunks(const int* __restrict__ input,
                                                        int* __restrict__ output, size_t n,
                                                        size_t chunk, bool aligned) {
    __shared__ int s[kThreads];
    const int tid = threadIdx.x;
    const size_t begin = blockIdx.x * chunk;
    const size_t end = begin + chunk < n ? begin + chunk : n;
    int carry = g_offsets[blockIdx.x];
    for (size_t tile = begin; tile < end; tile += kTile) {
        const size_t base = tile + (size_t)tid * kItems;
        const bool full = aligned && base + kItems <= end;
        int v[kItems];
        if (full) {
            const int4 q = *(const int4*)(input + base);
            v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
        } else {
            for (int k = 0; k < kItems; ++k) v[k] = base + k < end ? input[base + k] : 0;
        }
        for (int k = 1; k < kItems; ++k) v[k] += v[k - 1];  // inclusive scan within the thread
        const int local = v[kItems - 1];
        // Inclusive Hillis-Steele scan of the thread totals.
        s[tid] = local;
        __syncthreads();
        for (int off = 1; off < kThreads; off <<= 1) {
            const int add = tid >= off ? s[tid - off] : 0;
            __syncthreads();
            s[tid] += add;
            __syncthreads();
        }
        const int before = carry + s[tid] - local;  // everything before this thread's items
        const int tile_total = s[kThreads - 1];
        if (full) {
            int4 q;
            q.x = before + v[0]; q.y = before + v[1]; q.z = before + v[2]; q.w = before + v[3];
            *(int4*)(output + base) = q;
        } else {
            for (int k = 0; k < kItems; ++k)
                if (base + k < end) output[base + k] = before + v[k];
        }
        carry += tile_total;
        __syncthreads();  // s is rewritten by the next tile
    }
}

extern "C" void solution(const int* input, int* output, size_t n) {
    const size_t tiles = (n + kTile - 1) / kTile;
    const size_t max_blocks = tiles < kMaxBlocks ? tiles : kMaxBlocks;
    const size_t chunk = (tiles + max_blocks - 1) / max_blocks * kTile;  // a multiple of kTile
    const unsigned blocks = (unsigned)((n + chunk - 1) / chunk);
    const bool aligned = ((uintptr_t)input % 16 == 0) && ((uintptr_t)output % 16 == 0);
    hipLaunchKernelGGL(chunk_totals, dim3(blocks), dim3(kThreads), 0, 0, input, n, chunk);
    hipLaunchKernelGGL(totals_to_offsets, dim3(1), dim3(kThreads), 0, 0, (int)blocks);
    hipLaunchKernelGGL(scan_chunks, dim3(blocks), dim3(kThreads), 0, 0, input, output, n, chunk, aligned);
}
