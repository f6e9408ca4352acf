#include <cstddef>
#include <cstdint>

// Wrong on purpose: the int8 values are read as unsigned bytes (a uint8 habit), so every negative
// value is off by 256.
extern "C" void solution(const int8_t* A, const int8_t* B, int32_t* C, size_t M, size_t N, size_t K) {
    const uint8_t* a = reinterpret_cast<const uint8_t*>(A);
    const uint8_t* b = reinterpret_cast<const uint8_t*>(B);
    for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
            int32_t acc = 0;
            for (size_t k = 0; k < K; ++k) acc += a[i * K + k] * b[k * N + j];
            C[i * N + j] = acc;
        }
}
