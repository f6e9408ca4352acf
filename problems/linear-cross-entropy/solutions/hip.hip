#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <cmath>

// The logits on MI300X's matrix cores (__builtin_amdgcn_mfma_f32_32x32x8bf16_1k), never stored. Each
// 64-lane wavefront takes 32 tokens and walks the vocabulary 32 rows at a time; a tile of logits is
// computed transposed, X^T = W hidden^T, over H in steps of 8. In the accumulators lane l then holds
// token l % 32 and vocabulary rows 8 (r / 4) + 4 (l / 32) + r % 4 in register r, so a token's online
// log-sum-exp (running maximum m, sum l rescaled when m grows) and its target's logit live in its own
// lane and the lane at l ^ 32 (one shuffle). Operands are read from global memory (L1/L2 hold the
// wavefront's hidden rows); the tails of T, V and H read as zeros.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int WAVES = 4, TW = 32, VB = 32;

__device__ bf16x4 load4(const short* row, int k, int H, bool ok) {
    bf16x4 out;
    for (int e = 0; e < 4; ++e) out[e] = ok && k + e < H ? row[k + e] : (short)0;
    return out;
}

__global__ void __launch_bounds__(256) linear_cross_entropy(const short* hidden, const short* weight,
                                                            const int* targets, float* loss, int T, int V, int H) {
    const int lane = threadIdx.x % 64, wave = threadIdx.x / 64, i = lane % 32, half = lane / 32;
    const int token = (blockIdx.x * WAVES + wave) * TW + i;
    const bool token_ok = token < T;
    const short* h_row = hidden + (size_t)(token_ok ? token : 0) * H;
    const int target = token_ok ? targets[token] : -1;
    float m = -INFINITY, l = 0.0f, x_t = 0.0f;
    for (int v0 = 0; v0 < V; v0 += VB) {
        const bool vocab_ok = v0 + i < V;
        const short* w_row = weight + (size_t)(vocab_ok ? v0 + i : 0) * H;
        floatx16 x;
        for (int r = 0; r < 16; ++r) x[r] = 0.0f;
        for (int k = 0; k < H; k += 8) {
            const bf16x4 a = load4(w_row, k + 4 * half, H, vocab_ok), b = load4(h_row, k + 4 * half, H, token_ok);
            x = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, x, 0, 0, 0);
        }
        float mx = m;
        for (int r = 0; r < 16; ++r) {
            const int v = v0 + 8 * (r / 4) + 4 * half + r % 4;
            if (v == target) x_t = x[r];
            x[r] = v < V ? x[r] : -INFINITY;
            mx = fmaxf(mx, x[r]);
        }
        mx = fmaxf(mx, __shfl_xor(mx, 32));  // the token's other 16 rows
        l *= expf(m - mx);                    // 0 on the first tile (m = -inf, mx finite: row 0 exists)
        m = mx;
        for (int r = 0; r < 16; ++r) l += expf(x[r] - m);
    }
    l += __shfl_xor(l, 32);
    x_t += __shfl_xor(x_t, 32);  // one of the two lanes saw the target's row, the other holds 0
    if (token_ok && half == 0) loss[token] = m + logf(l) - x_t;
}

extern "C" void solution(const __hip_bfloat16* hidden, const __hip_bfloat16* weight, const int* targets, float* loss,
                         size_t T, size_t V, size_t H) {
    const unsigned blocks = (unsigned)((T + WAVES * TW - 1) / (WAVES * TW));
    hipLaunchKernelGGL(linear_cross_entropy, dim3(blocks), dim3(256), 0, 0, reinterpret_cast<const short*>(hidden),
                       reinterpret_cast<const short*>(weight), targets, loss, (int)T, (int)V, (int)H);
}
