#include <cmath>
#include <cstddef>

extern "C" void solution(const float* input, float* output, size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; ++r) {
        const float* x = input + r * cols;
        float* y = output + r * cols;
        float m = x[0];
        for (size_t j = 1; j < cols; ++j) m = x[j] > m ? x[j] : m;
        double sum = 0.0;
        for (size_t j = 0; j < cols; ++j) {
            y[j] = std::exp(x[j] - m);
            sum += y[j];
        }
        const float inv = (float)(1.0 / sum);
        for (size_t j = 0; j < cols; ++j) y[j] *= inv;
    }
}
