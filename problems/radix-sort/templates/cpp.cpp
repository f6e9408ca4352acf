#include <cstddef>

extern "C" void solution(const unsigned int* keys, const unsigned int* values, unsigned int* out_keys,
                         unsigned int* out_values, size_t n) {
    // TODO: keys ascending, values carried along, equal keys in input order
}
