#include <hipjudge/lowp.h>  // hj_bfloat16: bfloat16 storage, converts to and from float

#include <cmath>
#include <cstddef>
#include <vector>

// The sequential recurrence in float32, one (batch, head) at a time: S = exp(dt A) (S + dt x B^T), then
// y = S C + D x. x, y [((b * L + t) * H + h) * P + p]; dt [(b * L + t) * H + h]; B, C
// [((b * L + t) * G + g) * N + n] with g = h / (H / G).
extern "C" void solution(const hj_bfloat16* x, const float* dt, const float* A, const hj_bfloat16* B,
                         const hj_bfloat16* C, const float* D, hj_bfloat16* y, size_t batch, size_t seqlen,
                         size_t nheads, size_t headdim, size_t ngroups, size_t dstate) {
    const size_t P = headdim, N = dstate, per_group = nheads / ngroups;
    std::vector<float> state(P * N), b_row(N), c_row(N);
    for (size_t b = 0; b < batch; ++b)
        for (size_t h = 0; h < nheads; ++h) {
            const size_t g = h / per_group;
            for (float& s : state) s = 0.0f;
            for (size_t t = 0; t < seqlen; ++t) {
                const size_t bt = b * seqlen + t;
                const float step = dt[bt * nheads + h];
                const float decay = std::exp(step * A[h]);
                for (size_t n = 0; n < N; ++n) {
                    b_row[n] = static_cast<float>(B[(bt * ngroups + g) * N + n]);
                    c_row[n] = static_cast<float>(C[(bt * ngroups + g) * N + n]);
                }
                const hj_bfloat16* xt = x + (bt * nheads + h) * P;
                hj_bfloat16* yt = y + (bt * nheads + h) * P;
                for (size_t p = 0; p < P; ++p) {
                    const float xp = static_cast<float>(xt[p]);
                    const float u = step * xp;
                    float* row = state.data() + p * N;
                    float acc = 0.0f;
                    for (size_t n = 0; n < N; ++n) {
                        row[n] = decay * (row[n] + u * b_row[n]);  // the decay also scales the new input
                        acc += row[n] * c_row[n];
                    }
                    yt[p] = hj_bfloat16(acc + D[h] * xp);
                }
            }
        }
}
