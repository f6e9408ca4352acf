#include <hip/hip_runtime.h>

// LSD radix sort, four passes of 8-bit digits, each pass three steps over tiles of 2048 keys
// (256 threads of four wave64 wavefronts, 8 keys each):
//   1. histogram: each tile counts its digits in LDS and writes counts[digit][tile];
//   2. an exclusive scan of those counts in that order (digit-major), in three kernels (per-block
//      sums, a scan of the sums, per-block scans): offset[digit][tile] is where the tile's first key
//      of that digit goes;
//   3. scatter: each tile walks its keys in input order, 256 at a time; a wavefront finds the lanes
//      holding the same digit with eight ballots (one per digit bit), ranks each key among the
//      earlier ones of its digit with a popcount, the four wavefronts' counts are combined in LDS,
//      and every key lands at its digit's running offset plus its rank: stable.
// Scratch (a ping-pong copy of the keys and values, the counts) is allocated once and grown when a
// larger n comes; every pass overwrites what it reads later.
constexpr int kThreads = 256;
constexpr int kWaves = kThreads / 64;
constexpr int kItems = 8;
constexpr int kTile = kThreads * kItems;
constexpr int kDigits = 256;

__device__ inline unsigned block_exclusive_scan(unsigned v, unsigned* wave_sums, unsigned* total) {
    const int lane = threadIdx.x % 64, wave = threadIdx.x / 64;
    unsigned x = v;  // inclusive scan inside the wavefront
    for (int d = 1; d < 64; d <<= 1) {
        const unsigned y = __shfl_up(x, d);
        if (lane >= d) x += y;
    }
    if (lane == 63) wave_sums[wave] = x;
    __syncthreads();
    unsigned before = 0, all = 0;
    for (int w = 0; w < kWaves; ++w) {
        if (w < wave) before += wave_sums[w];
        all += wave_sums[w];
    }
    __syncthreads();  // wave_sums is reused by the next call
    *total = all;
    return before + x - v;
}

__global__ void __launch_bounds__(kThreads) histogram(const unsigned* keys, unsigned* counts, size_t n, int tiles,
                                                      int shift) {
    __shared__ unsigned hist[kDigits];
    hist[threadIdx.x] = 0;
    __syncthreads();
    const size_t base = (size_t)blockIdx.x * kTile;
    for (int i = threadIdx.x; i < kTile; i += kThreads)
        if (base + i < n) atomicAdd(&hist[keys[base + i] >> shift & 255u], 1u);
    __syncthreads();
    counts[(size_t)threadIdx.x * tiles + blockIdx.x] = hist[threadIdx.x];
}

// Sums of consecutive segments of kTile counts.
__global__ void __launch_bounds__(kThreads) segment_sums(const unsigned* data, unsigned* sums, size_t m) {
    __shared__ unsigned wave_sums[kWaves];
    const size_t base = (size_t)blockIdx.x * kTile;
    unsigned s = 0;
    for (int i = threadIdx.x; i < kTile; i += kThreads)
        if (base + i < m) s += data[base + i];
    for (int mask = 32; mask > 0; mask >>= 1) s += __shfl_xor(s, mask);
    if (threadIdx.x % 64 == 0) wave_sums[threadIdx.x / 64] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned total = 0;
        for (int w = 0; w < kWaves; ++w) total += wave_sums[w];
        sums[blockIdx.x] = total;
    }
}

// One block: the exclusive scan of the segment sums, in place.
__global__ void __launch_bounds__(kThreads) scan_sums(unsigned* sums, int count) {
    __shared__ unsigned wave_sums[kWaves];
    unsigned carry = 0;
    for (int base = 0; base < count; base += kThreads) {
        const int i = base + threadIdx.x;
        const unsigned v = i < count ? sums[i] : 0u;
        unsigned total;
        const unsigned before = block_exclusive_scan(v, wave_sums, &total);
        if (i < count) sums[i] = carry + before;
        carry += total;
    }
}

// Exclusive scan of each segment (thread t takes kItems consecutive counts), plus its offset.
__global__ void __launch_bounds__(kThreads) scan_segments(unsigned* data, const unsigned* sums, size_t m) {
    __shared__ unsigned wave_sums[kWaves];
    const size_t base = (size_t)blockIdx.x * kTile + (size_t)threadIdx.x * kItems;
    unsigned v[kItems], own = 0;
    for (int e = 0; e < kItems; ++e) {
        v[e] = base + e < m ? data[base + e] : 0u;
        own += v[e];
    }
    unsigned total;
    unsigned run = sums[blockIdx.x] + block_exclusive_scan(own, wave_sums, &total);
    for (int e = 0; e < kItems; ++e) {
        if (base + e < m) data[base + e] = run;
        run += v[e];
    }
}

__global__ void __launch_bounds__(kThreads) scatter(const unsigned* keys, const unsigned* values, unsigned* out_keys,
                                                    unsigned* out_values, const unsigned* offsets, size_t n,
                                                    int tiles, int shift) {
    __shared__ unsigned next[kDigits];               // the running offset of each digit for this tile
    __shared__ unsigned wave_count[kWaves][kDigits];  // keys of each digit in each wavefront's 64
    __shared__ unsigned wave_base[kWaves][kDigits];   // where each wavefront's first key of a digit goes
    const int lane = threadIdx.x % 64, wave = threadIdx.x / 64, d = threadIdx.x;
    next[d] = offsets[(size_t)d * tiles + blockIdx.x];
    for (int w = 0; w < kWaves; ++w) wave_count[w][d] = 0;
    const unsigned long long below = (1ull << lane) - 1ull;  // the lanes before this one
    const size_t base = (size_t)blockIdx.x * kTile;
    __syncthreads();
    for (int step = 0; step < kItems; ++step) {
        const size_t i = base + (size_t)step * kThreads + threadIdx.x;  // input order: step, then thread
        const bool valid = i < n;
        const unsigned key = valid ? keys[i] : 0u, digit = key >> shift & 255u;
        unsigned long long peers = __ballot(valid);  // the valid lanes holding this lane's digit
        for (int bit = 0; bit < 8; ++bit) {
            const unsigned long long ones = __ballot(digit >> bit & 1u);
            peers &= (digit >> bit & 1u) ? ones : ~ones;
        }
        const unsigned rank = (unsigned)__popcll(peers & below);
        if (valid && rank == 0) wave_count[wave][digit] = (unsigned)__popcll(peers);
        __syncthreads();
        unsigned run = next[d];
        for (int w = 0; w < kWaves; ++w) {
            wave_base[w][d] = run;
            run += wave_count[w][d];
            wave_count[w][d] = 0;
        }
        next[d] = run;
        __syncthreads();
        if (valid) {
            const unsigned slot = wave_base[wave][digit] + rank;
            out_keys[slot] = key;
            out_values[slot] = values[i];
        }
    }
}

extern "C" void solution(const unsigned int* keys, const unsigned int* values, unsigned int* out_keys,
                         unsigned int* out_values, size_t n) {
    const int tiles = (int)((n + kTile - 1) / kTile);
    const size_t m = (size_t)kDigits * tiles;
    const int segments = (int)((m + kTile - 1) / kTile);
    const size_t need = (2 * n + m + segments) * sizeof(unsigned);
    static unsigned* scratch = nullptr;
    static size_t scratch_bytes = 0;
    if (need > scratch_bytes) {
        if (scratch) (void)hipFree(scratch);
        scratch_bytes = 0;
        if (hipMalloc(&scratch, need) != hipSuccess) return;  // out of memory: the outputs stay unwritten
        scratch_bytes = need;
    }
    unsigned* tmp_keys = scratch;
    unsigned* tmp_values = tmp_keys + n;
    unsigned* counts = tmp_values + n;
    unsigned* sums = counts + m;
    const unsigned* src_k = keys;
    const unsigned* src_v = values;
    for (int pass = 0; pass < 4; ++pass) {
        const int shift = 8 * pass;
        unsigned* dst_k = pass % 2 == 0 ? tmp_keys : out_keys;
        unsigned* dst_v = pass % 2 == 0 ? tmp_values : out_values;
        hipLaunchKernelGGL(histogram, dim3(tiles), dim3(kThreads), 0, 0, src_k, counts, n, tiles, shift);
        hipLaunchKernelGGL(segment_sums, dim3(segments), dim3(kThreads), 0, 0, counts, sums, m);
        hipLaunchKernelGGL(scan_sums, dim3(1), dim3(kThreads), 0, 0, sums, segments);
        hipLaunchKernelGGL(scan_segments, dim3(segments), dim3(kThreads), 0, 0, counts, sums, m);
        hipLaunchKernelGGL(scatter, dim3(tiles), dim3(kThreads), 0, 0, src_k, src_v, dst_k, dst_v, counts, n, tiles,
                           shift);
        src_k = dst_k;
        src_v = dst_v;
    }
}
