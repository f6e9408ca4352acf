// Every conversion of hipjudge/lowp.h, driven by tests/agent/lowp/test_conversions.py:
//   probe decode FORMAT          -> every bit pattern's value (float64), then the fast path's (float32)
//   probe encode FORMAT SATURATE -> stdin's float32 values as bits (uint16), through encode(); for
//                                   half and bfloat16 without saturation, then through the fast path
#include <hipjudge/lowp.h>

#include <cstdio>
#include <cstring>
#include <vector>

using namespace hj::lowp;

static const Format* format_named(const char* name) {
    static const struct { const char* name; const Format* format; } all[] = {
        {"half", &kHalf}, {"bfloat16", &kBfloat16}, {"fp8_e4m3fnuz", &kE4M3Fnuz},
        {"fp8_e5m2fnuz", &kE5M2Fnuz}, {"fp8_e4m3fn", &kE4M3Fn}, {"fp8_e5m2", &kE5M2}};
    for (const auto& f : all)
        if (std::strcmp(f.name, name) == 0) return f.format;
    return nullptr;
}

int main(int argc, char** argv) {
    const Format* f = argc > 2 ? format_named(argv[2]) : nullptr;
    if (f == nullptr) return 2;
    const bool is_half = f == &kHalf, is_bf16 = f == &kBfloat16;
    const uint32_t count = 1u << (1 + f->exponent_bits + f->mantissa_bits);
    if (std::strcmp(argv[1], "decode") == 0) {
        std::vector<double> values(count);
        std::vector<float> fast(count);
        for (uint32_t b = 0; b < count; ++b) {
            values[b] = decode(b, *f);
            fast[b] = is_half ? half_to_float((uint16_t)b) : is_bf16 ? bfloat16_to_float((uint16_t)b) : (float)values[b];
        }
        fwrite(values.data(), sizeof(double), count, stdout);
        fwrite(fast.data(), sizeof(float), count, stdout);
        return 0;
    }
    const bool saturate = argc > 3 && argv[3][0] == '1';
    std::vector<float> in;
    float x;
    while (fread(&x, sizeof x, 1, stdin) == 1) in.push_back(x);
    std::vector<uint16_t> out(in.size()), fast(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
        out[i] = (uint16_t)encode(in[i], *f, saturate);
        fast[i] = is_half ? float_to_half(in[i]) : is_bf16 ? float_to_bfloat16(in[i]) : out[i];
    }
    fwrite(out.data(), sizeof(uint16_t), out.size(), stdout);
    fwrite(fast.data(), sizeof(uint16_t), fast.size(), stdout);
    return 0;
}
