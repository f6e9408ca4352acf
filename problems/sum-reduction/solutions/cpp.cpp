#include <cstddef>

// Eight independent float accumulators (vectorisable), combined in double at the end; each chunk
// of 4096 elements is folded into a double total so the float partial sums stay small.
extern "C" void solution(const float* input, float* output, size_t n) {
    double total = 0.0;
    const size_t chunk = 4096;
    for (size_t begin = 0; begin < n; begin += chunk) {
        const size_t end = begin + chunk < n ? begin + chunk : n;
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        size_t i = begin;
        for (; i + 8 <= end; i += 8)
            for (int k = 0; k < 8; ++k) acc[k] += input[i + k];
        for (; i < end; ++i) acc[0] += input[i];
        for (int k = 0; k < 8; ++k) total += acc[k];
    }
    output[0] = (float)total;
}
