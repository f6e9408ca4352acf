#include <cstddef>
#include <cstdint>

extern "C" void solution(const int8_t* A, const int8_t* B, int32_t* C, size_t M, size_t N, size_t K) {
    // TODO
}
