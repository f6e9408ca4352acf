#include <hip/hip_runtime.h>
#include <stdint.h>

// One block of 256 threads per row, and no sort: three radix descents over the bits of the
// probabilities (non-negative floats order as their bits do), 8 bits a pass, each pass a histogram
// of count and sum per digit in LDS. The first finds the top_k-th value (by count), the second the
// value where the kept tokens' running sum reaches top_p times their sum, the third where the
// nucleus's running sum passes the draw; a last pass finds the tie of that value by index. The sums
// are exact in any order (the statement: whole numbers of 2^-19 below 32), so LDS float atomics
// give the same bits as a serial sum.
constexpr int kThreads = 256;
constexpr int kBins = 256;

struct Shared {
    unsigned count[kBins];
    float sum[kBins];
    unsigned scan[kThreads];
    unsigned prefix, above_count;
    float above_sum;
};

struct Found {
    unsigned bits;         // the value at the position found
    float above_sum;       // sum of the set's values above it
    unsigned above_count;  // how many of the set's values are above it
};

// The set: the row's values whose bits exceed floor_bits (-1: all), plus `extra` copies of the
// value floor_bits. Returns the value at the first position, largest first, where the running count
// reaches count_target (by_count) or the running sum reaches target (inclusive: >=, else >).
__device__ Found descend(const float* row, size_t V, int floor_bits, unsigned extra, bool by_count,
                         unsigned count_target, float target, bool inclusive, Shared& s) {
    unsigned prefix = 0;
    __syncthreads();  // every thread has read the previous descent's result from s
    for (int shift = 24; shift >= 0; shift -= 8) {
        for (int d = threadIdx.x; d < kBins; d += kThreads) {
            s.count[d] = 0;
            s.sum[d] = 0.0f;
        }
        if (shift == 24 && threadIdx.x == 0) {
            s.above_sum = 0.0f;
            s.above_count = 0;
        }
        __syncthreads();
        const unsigned high = shift == 24 ? 0u : 0xffffffffu << (shift + 8);
        for (size_t i = threadIdx.x; i < V; i += kThreads) {
            const float x = row[i];
            const unsigned b = __float_as_uint(x);
            if ((int)b > floor_bits && (b & high) == prefix) {
                const unsigned d = (b >> shift) & 0xffu;
                atomicAdd(&s.count[d], 1u);
                atomicAdd(&s.sum[d], x);
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            const unsigned fb = (unsigned)floor_bits;
            if (extra && (fb & high) == prefix) {
                const unsigned d = (fb >> shift) & 0xffu;
                s.count[d] += extra;
                s.sum[d] += (float)extra * __uint_as_float(fb);
            }
            float above_sum = s.above_sum;
            unsigned above_count = s.above_count;
            int d = kBins - 1;
            for (; d > 0; --d) {
                const float with = above_sum + s.sum[d];
                const bool reached = by_count ? above_count + s.count[d] >= count_target
                                              : (inclusive ? with >= target : with > target);
                if (reached) break;
                above_sum = with;
                above_count += s.count[d];
            }
            s.prefix = prefix | (unsigned)d << shift;
            s.above_sum = above_sum;
            s.above_count = above_count;
        }
        __syncthreads();
        prefix = s.prefix;
    }
    return {prefix, s.above_sum, s.above_count};
}

__device__ bool reaches(float above, unsigned q, float w, float target, bool inclusive) {
    const float with = above + (float)q * w;  // exact: a sum of the grid's values
    return inclusive ? with >= target : with > target;
}

// The fewest copies q >= 1 of w that take `above` to the target: a float estimate, corrected by
// exact comparisons.
__device__ unsigned ties_needed(float above, float w, float target, bool inclusive) {
    const float estimate = ceilf((target - above) / w);
    unsigned q = estimate < 1.0f ? 1u : (unsigned)estimate;
    while (q > 1 && reaches(above, q - 1, w, target, inclusive)) --q;
    while (!reaches(above, q, w, target, inclusive)) ++q;
    return q;
}

// The index of the q-th (from 1) value of the row whose bits are `bits`, in index order: every
// thread counts its own contiguous slice, then the slice holding it finds it.
__device__ void nth_index(const float* row, size_t V, unsigned bits, unsigned q, int32_t* token, Shared& s) {
    const size_t slice = (V + kThreads - 1) / kThreads;
    const size_t begin = threadIdx.x * slice;
    const size_t end = begin + slice < V ? begin + slice : V;
    unsigned mine = 0;
    for (size_t i = begin; i < end; ++i) mine += __float_as_uint(row[i]) == bits;
    s.scan[threadIdx.x] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned before = 0;
        for (int t = 0; t < kThreads; ++t) {
            const unsigned c = s.scan[t];
            s.scan[t] = before;
            before += c;
        }
    }
    __syncthreads();
    unsigned seen = s.scan[threadIdx.x];
    if (seen < q && q <= seen + mine) {
        for (size_t i = begin; i < end; ++i) {
            if (__float_as_uint(row[i]) == bits && ++seen == q) {
                *token = (int32_t)i;
                break;
            }
        }
    }
}

__global__ void __launch_bounds__(kThreads) sample(const float* probs, const int32_t* top_k, const float* top_p,
                                                   const float* uniforms, int32_t* token, size_t V) {
    __shared__ Shared s;
    const size_t b = blockIdx.x;
    const float* row = probs + b * V;
    const unsigned k = (unsigned)top_k[b];
    const Found kth = descend(row, V, -1, 0, true, k, 0.0f, true, s);
    const unsigned ties = k - kth.above_count;  // copies of the k-th value that top-k keeps
    const float kept = kth.above_sum + (float)ties * __uint_as_float(kth.bits);
    const float threshold = top_p[b] * kept;
    const Found edge = descend(row, V, (int)kth.bits, ties, false, 0, threshold, true, s);
    const float w = __uint_as_float(edge.bits);
    const unsigned q = ties_needed(edge.above_sum, w, threshold, true);
    const float nucleus = edge.above_sum + (float)q * w;
    const float draw = uniforms[b] * nucleus;
    unsigned bits = edge.bits, nth = q;  // the nucleus's last token, when the draw rounds up to its sum
    if (draw < nucleus) {
        const Found hit = descend(row, V, (int)kth.bits, ties, false, 0, draw, false, s);
        bits = hit.bits;
        nth = ties_needed(hit.above_sum, __uint_as_float(hit.bits), draw, false);
    }
    nth_index(row, V, bits, nth, token + b, s);
}

extern "C" void solution(const float* probs, const int32_t* top_k, const float* top_p, const float* uniforms,
                         int32_t* token, size_t B, size_t V) {
    hipLaunchKernelGGL(sample, dim3((unsigned)B), dim3(kThreads), 0, 0, probs, top_k, top_p, uniforms, token, V);
}
