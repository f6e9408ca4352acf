#include <hipjudge/lowp.h>

#include <cstddef>
#include <cstdint>

// Each output is a dot product of two contiguous int8 rows (A's row i, B's row j) in int32, exact;
// the epilogue converts it to float32 and applies both scales before the one rounding to bfloat16.
extern "C" void solution(const int8_t* A, const float* a_scale, const int8_t* B, const float* b_scale, hj_bfloat16* C,
                         size_t M, size_t N, size_t K) {
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            const int8_t* a = A + i * K;
            const int8_t* b = B + j * K;
            int32_t acc = 0;
            for (size_t k = 0; k < K; ++k) acc += int32_t(a[k]) * int32_t(b[k]);
            C[i * N + j] = hj_bfloat16(float(acc) * a_scale[i] * b_scale[j]);
        }
}
