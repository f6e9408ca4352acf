#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

#include <cstdint>

// Memory-bound: every weight byte is read once, 16 at a time. A block of 256 threads handles 4
// rows of W, one per 64-lane wavefront; each lane takes 32 consecutive weights of its row per step
// (16 bytes: all in one group of 128, so one scale and one zero point), dequantizes them once into
// registers and dots them with each of the M <= 16 rows of x (small, read through the caches). The
// products are summed in float32 per token, and each token's 64 partial sums reduced across the
// wavefront with shuffles.
constexpr int WAVE = 64, ROWS = 4, MAX_M = 16;

__global__ void __launch_bounds__(WAVE * ROWS) gemv(const __half* x, const uint8_t* W, const __half* scales,
                                                    const uint8_t* zeros, __half* y, int M, int N, int K) {
    const int lane = threadIdx.x % WAVE, n = blockIdx.x * ROWS + threadIdx.x / WAVE;
    if (n >= N) return;  // a whole wavefront leaves together: the shuffles below see no missing lane
    const int groups = (K + 127) / 128, row_bytes = K / 2;
    const bool aligned = row_bytes % 16 == 0;
    float acc[MAX_M];
    for (int m = 0; m < MAX_M; ++m) acc[m] = 0.0f;
    for (int k = 32 * lane; k < K; k += 32 * WAVE) {
        const uint8_t* p = W + (size_t)n * row_bytes + k / 2;
        const int count = K - k < 32 ? K - k : 32;  // even: K is
        alignas(16) uint8_t b[16];
        if (aligned && count == 32) {
            *(uint4*)b = *(const uint4*)p;  // one 16-byte load
        } else {
            for (int e = 0; e < 16; ++e) b[e] = 2 * e < count ? p[e] : (uint8_t)0;
        }
        const float s = __half2float(scales[(size_t)n * groups + k / 128]);
        const int z = zeros[(size_t)n * groups + k / 128];
        float w[32];
        for (int e = 0; e < 16; ++e) {
            w[2 * e] = (float)((int)(b[e] & 15) - z) * s;
            w[2 * e + 1] = (float)((int)(b[e] >> 4) - z) * s;
        }
        for (int m = 0; m < M; ++m) {
            const __half* xm = x + (size_t)m * K + k;
            float part = 0.0f;
            for (int e = 0; e < count; ++e) part += w[e] * __half2float(xm[e]);
            acc[m] += part;
        }
    }
    for (int m = 0; m < M; ++m) {
        float a = acc[m];
        for (int offset = WAVE / 2; offset > 0; offset /= 2) a += __shfl_xor(a, offset);
        if (lane == 0) y[(size_t)m * N + n] = __float2half(a);
    }
}

extern "C" void solution(const __half* x, const uint8_t* W, const __half* scales, const uint8_t* zeros, __half* y,
                         size_t M, size_t N, size_t K) {
    hipLaunchKernelGGL(gemv, dim3((unsigned)((N + ROWS - 1) / ROWS)), dim3(WAVE * ROWS), 0, 0, x, W, scales, zeros, y,
                       (int)M, (int)N, (int)K);
}
