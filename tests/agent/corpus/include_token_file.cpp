// Read the agent's token at compile time: the compiler runs in the sandbox too, so the include
// fails and the compiler's message cannot quote the token.
#include "@TOKEN_PATH@"
#include <cstddef>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
