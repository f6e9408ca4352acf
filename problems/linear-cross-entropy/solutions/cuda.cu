#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include <cmath>

// A plain kernel without tensor cores: a block of 256 threads takes 4 tokens, their hidden rows
// staged in shared memory (bfloat16: 32 KB at H = 4096); each thread walks the vocabulary rows tid, tid + 256, ...,
// computes the 4 tokens' logits of its row (float32, never stored) and keeps per token an online
// log-sum-exp (running maximum m, sum l rescaled when m grows) and, for the thread that meets it, the
// target's logit. The block then merges its threads' (m, l) per token.
constexpr int THREADS = 256, TOK = 4, MAX_H = 4096;

__global__ void __launch_bounds__(THREADS) linear_cross_entropy(const __nv_bfloat16* hidden,
                                                                const __nv_bfloat16* weight, const int* targets,
                                                                float* loss, int T, int V, int H) {
    __shared__ __nv_bfloat16 h[TOK][MAX_H];
    __shared__ float part_m[TOK][THREADS], part_l[TOK][THREADS], x_t[TOK];
    const int tid = threadIdx.x, t0 = blockIdx.x * TOK;
    for (int idx = tid; idx < TOK * H; idx += THREADS) {
        const int t = idx / H, k = idx % H;
        h[t][k] = t0 + t < T ? hidden[(size_t)(t0 + t) * H + k] : __float2bfloat16(0.0f);
    }
    if (tid < TOK) x_t[tid] = 0.0f;
    __syncthreads();
    int target[TOK];
    float m[TOK], l[TOK];
    for (int t = 0; t < TOK; ++t) {
        target[t] = t0 + t < T ? targets[t0 + t] : -1;
        m[t] = -INFINITY;
        l[t] = 0.0f;
    }
    for (int v = tid; v < V; v += THREADS) {
        const __nv_bfloat16* w = weight + (size_t)v * H;
        float x[TOK] = {};
        for (int k = 0; k < H; ++k) {
            const float wk = __bfloat162float(w[k]);
            for (int t = 0; t < TOK; ++t) x[t] += __bfloat162float(h[t][k]) * wk;
        }
        for (int t = 0; t < TOK; ++t) {
            if (v == target[t]) x_t[t] = x[t];
            if (x[t] > m[t]) {
                l[t] = l[t] * expf(m[t] - x[t]) + 1.0f;
                m[t] = x[t];
            } else {
                l[t] += expf(x[t] - m[t]);
            }
        }
    }
    for (int t = 0; t < TOK; ++t) {
        part_m[t][tid] = m[t];
        part_l[t][tid] = l[t];
    }
    __syncthreads();
    if (tid < TOK && t0 + tid < T) {
        float mm = -INFINITY;
        for (int j = 0; j < THREADS; ++j) mm = fmaxf(mm, part_m[tid][j]);
        float ll = 0.0f;
        for (int j = 0; j < THREADS; ++j)
            if (part_l[tid][j] > 0.0f) ll += part_l[tid][j] * expf(part_m[tid][j] - mm);
        loss[t0 + tid] = mm + logf(ll) - x_t[tid];
    }
}

extern "C" void solution(const __nv_bfloat16* hidden, const __nv_bfloat16* weight, const int* targets, float* loss,
                         size_t T, size_t V, size_t H) {
    const unsigned blocks = (unsigned)((T + TOK - 1) / TOK);
    linear_cross_entropy<<<blocks, THREADS>>>(hidden, weight, targets, loss, (int)T, (int)V, (int)H);
}
