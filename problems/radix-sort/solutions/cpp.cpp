#include <cstddef>
#include <cstring>
#include <vector>

// LSD radix sort, 8 bits a pass: count the digits, turn the counts into starting offsets, scatter
// in input order (stable). Four passes between the output and a scratch copy end in the output.
extern "C" void solution(const unsigned int* keys, const unsigned int* values, unsigned int* out_keys,
                         unsigned int* out_values, size_t n) {
    std::vector<unsigned int> tmp_keys(n), tmp_values(n);
    const unsigned int* src_k = keys;
    const unsigned int* src_v = values;
    for (int pass = 0; pass < 4; ++pass) {
        const int shift = 8 * pass;
        unsigned int* dst_k = pass % 2 == 0 ? tmp_keys.data() : out_keys;
        unsigned int* dst_v = pass % 2 == 0 ? tmp_values.data() : out_values;
        size_t offset[257] = {};
        for (size_t i = 0; i < n; ++i) ++offset[(src_k[i] >> shift & 255u) + 1];
        for (int d = 0; d < 256; ++d) offset[d + 1] += offset[d];
        for (size_t i = 0; i < n; ++i) {
            const size_t slot = offset[src_k[i] >> shift & 255u]++;
            dst_k[slot] = src_k[i];
            dst_v[slot] = src_v[i];
        }
        src_k = dst_k;
        src_v = dst_v;
    }
}
