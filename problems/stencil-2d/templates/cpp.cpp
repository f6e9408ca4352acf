#include <cstddef>

extern "C" void solution(const float* u, float* out, size_t H, size_t W, float c, float d) {
    // TODO: interior points c u + d (sum of 4 neighbours); the boundary copied
}
