#include <cmath>
#include <cstddef>

// Wrong on purpose: the erf form of GELU (PyTorch's default nn.GELU()), where the problem asks for
// the tanh approximation (GPT-2's, approximate="tanh"). They differ by up to 4.7e-4.
extern "C" void solution(const float* x, float* out, size_t rows, size_t cols) {
    const size_t n = rows * cols;
    for (size_t i = 0; i < n; ++i) out[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678f));
}
