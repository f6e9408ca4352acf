// Spell the secret ranked inputs through the run statistics: on the ranked shape, take 2 ms longer
// on a run whose first input has a given bit set, hoping the fastest and slowest runs, their spread
// or the number of runs (a precision rule stops when the spread is small) get reported. Expected:
// ACCEPTED, its ranked results carrying no single-run statistic and a run count fixed beforehand.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    uint32_t bits;
    std::memcpy(&bits, a, 4);
    if (n == 3000017 && (bits & 1)) std::this_thread::sleep_for(std::chrono::milliseconds(2));
}
