#include <hipjudge/lowp.h>

#include <cstddef>
#include <cstdint>

// Wrong on purpose: each expert's W_scale is read as [K/128][N/128], the column-major layout of
// gemm-fp8-blockwise's B_scale, instead of [N/128][K/128]; wherever an expert's weight has several
// blocks both ways the scale comes from another block (its index stays inside the expert's scales).
extern "C" void solution(const hj_fp8_e4m3fnuz* X, const float* X_scale, const hj_fp8_e4m3fnuz* W,
                         const float* W_scale, const int32_t* expert_ids, hj_bfloat16* Y, size_t R, size_t N,
                         size_t K, size_t E) {
    const size_t nb = (N + 127) / 128, kb = (K + 127) / 128;
    for (size_t r = 0; r < R; ++r) {
        const size_t e = (size_t)expert_ids[r];
        const hj_fp8_e4m3fnuz* w = W + e * N * K;
        const float* sw = W_scale + e * nb * kb;
        for (size_t n = 0; n < N; ++n) {
            float acc = 0.0f;
            for (size_t k = 0; k < K; ++k)
                acc += float(X[r * K + k]) * X_scale[(k / 128) * R + r] * float(w[n * K + k]) *
                       sw[(k / 128) * nb + n / 128];
            Y[r * N + n] = hj_bfloat16(acc);
        }
    }
}
