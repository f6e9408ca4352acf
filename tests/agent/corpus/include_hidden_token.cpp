// Include a token file the agent hid inside a bound directory (the Python tree): the mask makes
// it unreadable, so the compile fails without quoting it. Unmasked, the token's text would be a
// compile error that quotes it back.
#include "@HIDDEN_TOKEN_PATH@"
#include <cstddef>

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
