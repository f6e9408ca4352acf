#include <algorithm>
#include <cstddef>
#include <vector>

// Wrong on purpose: std::sort by key alone is not stable, so the values of equal keys come out in
// whatever order the introsort leaves them.
extern "C" void solution(const unsigned int* keys, const unsigned int* values, unsigned int* out_keys,
                         unsigned int* out_values, size_t n) {
    std::vector<std::pair<unsigned int, unsigned int>> pairs(n);
    for (size_t i = 0; i < n; ++i) pairs[i] = {keys[i], values[i]};
    std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < n; ++i) {
        out_keys[i] = pairs[i].first;
        out_values[i] = pairs[i].second;
    }
}
