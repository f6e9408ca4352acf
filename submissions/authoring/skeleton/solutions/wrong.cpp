#include <cstddef>

// Unrolled by four without a remainder loop: the last n % 4 elements are never written. A wrong
// solution must fail a test of every device class it targets; `problem check` makes sure it does.
extern "C" void solution(const float* x, const float* y, float* z, float alpha, size_t n) {
    for (size_t i = 0; i + 4 <= n; i += 4)
        for (size_t k = 0; k < 4; ++k) z[i + k] = alpha * x[i + k] + y[i + k];
}
