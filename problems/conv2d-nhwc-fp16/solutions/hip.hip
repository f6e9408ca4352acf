#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

#include <cstring>

// Implicit GEMM on MI300X's matrix cores: output[pixel][k] = sum over (tap, c) of
// input[pixel shifted by tap][c] * weight[k][tap][c], M = N H W pixels by K channels, reduced over
// 9 C. Each wavefront computes a 32-pixel by 32-channel tile with
// __builtin_amdgcn_mfma_f32_32x32x8f16 (float32 accumulators), four wavefronts per 64x64 block. The
// reduction runs tap by tap (the shifted pixel is fixed for a tap: no division per element) and 8
// channels at a time, zero-filled past C and outside the image. Register layout (CDNA3): lane l
// holds A[l % 32][4 (l / 32) + e] and B[4 (l / 32) + e][l % 32], e = 0..3, and
// D[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] in accumulator r.
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

__global__ void __launch_bounds__(256) conv3x3(const __half* input, const __half* weight, __half* output, int N,
                                               int H, int W, int C, int K) {
    const int lane = threadIdx.x % 64, wave = threadIdx.x / 64;
    const int i = lane % 32, quad = lane / 32;
    const long M = (long)N * H * W;
    const long p0 = (long)blockIdx.y * 64 + (wave / 2) * 32;
    const int k0 = blockIdx.x * 64 + (wave % 2) * 32;
    // This lane's row of A (a pixel) and column of B (an output channel).
    const long p = p0 + i;
    const bool pixel_ok = p < M;
    const int w = pixel_ok ? (int)(p % W) : 0, h = pixel_ok ? (int)(p / W % H) : 0;
    const int n = pixel_ok ? (int)(p / ((long)W * H)) : 0;
    const int kc = k0 + i;
    const bool channel_ok = kc < K;
    floatx16 acc = {};
    for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) {
            const int hh = h + r - 1, ww = w + s - 1;
            const bool inside = pixel_ok && hh >= 0 && hh < H && ww >= 0 && ww < W;
            const __half* src = inside ? input + (((long)n * H + hh) * W + ww) * C : input;
            const __half* taps = weight + ((long)(channel_ok ? kc : 0) * 9 + r * 3 + s) * C;
            for (int c0 = 0; c0 < C; c0 += 8) {
                unsigned short a[4], b[4];
                for (int e = 0; e < 4; ++e) {
                    const int c = c0 + 4 * quad + e;
                    a[e] = inside && c < C ? __half_as_ushort(src[c]) : (unsigned short)0;
                    b[e] = channel_ok && c < C ? __half_as_ushort(taps[c]) : (unsigned short)0;
                }
                half4 ra, rb;
                memcpy(&ra, a, 8);
                memcpy(&rb, b, 8);
                acc = __builtin_amdgcn_mfma_f32_32x32x8f16(ra, rb, acc, 0, 0, 0);
            }
        }
    for (int r = 0; r < 16; ++r) {
        const long row = p0 + 8 * (r / 4) + 4 * quad + r % 4;
        if (row < M && channel_ok) output[row * K + kc] = __float2half(acc[r]);
    }
}

extern "C" void solution(const __half* input, const __half* weight, __half* output, size_t N, size_t H, size_t W,
                         size_t C, size_t K) {
    const size_t M = N * H * W;
    const dim3 grid((unsigned)((K + 63) / 64), (unsigned)((M + 63) / 64));
    hipLaunchKernelGGL(conv3x3, grid, dim3(256), 0, 0, input, weight, output, (int)N, (int)H, (int)W, (int)C, (int)K);
}
