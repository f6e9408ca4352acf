#include <hipjudge/lowp.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

// Wrong on purpose: the cache's bytes decoded as OCP E4M3 (exponent bias 7, the format of NVIDIA
// and MI355X) instead of MI300X's E4M3 FNUZ (bias 8): every key and value comes out doubled, so the
// scores are twice as large and the output twice the weighted sum. Otherwise as the solution.
static float ocp_e4m3(uint8_t b) {
    const int exponent = (b >> 3) & 0xF, mantissa = b & 7;
    const float magnitude = exponent == 0 ? std::ldexp((float)mantissa, -9) : std::ldexp((float)(8 + mantissa), exponent - 10);
    return (b & 0x80) ? -magnitude : magnitude;
}

extern "C" void solution(const hj_bfloat16* q, const hj_fp8_e4m3fnuz* kv_cache, const int32_t* block_table,
                         const int32_t* seq_lens, hj_bfloat16* out, size_t B, size_t H, size_t P, float scale,
                         float kv_scale) {
    constexpr size_t PAGE = 64, DK = 576, DV = 512;
    const float qk_scale = scale * kv_scale;
    std::vector<float> kv(PAGE * P * DK), qf(DK), s(PAGE * P), o(DV);
    for (size_t b = 0; b < B; ++b) {
        const size_t n = (size_t)seq_lens[b];
        for (size_t j = 0; j < n; ++j) {
            const hj_fp8_e4m3fnuz* row = kv_cache + ((size_t)block_table[b * P + j / PAGE] * PAGE + j % PAGE) * DK;
            for (size_t d = 0; d < DK; ++d) kv[j * DK + d] = ocp_e4m3(row[d].bits);
        }
        for (size_t h = 0; h < H; ++h) {
            for (size_t d = 0; d < DK; ++d) qf[d] = float(q[(b * H + h) * DK + d]);
            float m = -INFINITY;
            for (size_t j = 0; j < n; ++j) {
                float dot = 0.0f;
                for (size_t d = 0; d < DK; ++d) dot += qf[d] * kv[j * DK + d];
                s[j] = dot * qk_scale;
                m = std::fmax(m, s[j]);
            }
            float l = 0.0f;
            for (size_t d = 0; d < DV; ++d) o[d] = 0.0f;
            for (size_t j = 0; j < n; ++j) {
                const float p = std::exp(s[j] - m);
                l += p;
                for (size_t d = 0; d < DV; ++d) o[d] += p * kv[j * DK + d];
            }
            for (size_t d = 0; d < DV; ++d) out[(b * H + h) * DV + d] = hj_bfloat16(o[d] * kv_scale / l);
        }
    }
}
