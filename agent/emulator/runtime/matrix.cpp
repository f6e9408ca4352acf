// Matrix instructions: gfx942's MFMA builtins (include/hjemu/mfma.h) and CUDA's WMMA fragments
// (include/mma.h), register-faithful across the wavefront.
//
// Every lane of the wavefront hands in its registers (hjemu_matrix_lane_t); the instruction reads
// A, B and C from the lanes and registers where the hardware keeps them and writes each lane's D.
// MFMA layouts (AMD Matrix Instruction Calculator, CDNA3; cbsz = abid = blgp = 0): place_d below,
// for one block and for the multi-block shapes (32x32x1 and 32x32x4 with 2 blocks, 16x16x1 and
// 16x16x4 with 4, 4x4 with 16, f64's 4x4x4 with 4). Single-block 32x32 instructions hold four values
// (f16, bf16), eight (fp8, i8), two (xf32) or one (f32) of a row of A in lane i and i + 32, and 16
// accumulators per lane; 16x16 ones four lane groups and 4 accumulators. Products of 16- and
// 8-bit values and of floats are exact in double and summed there, then rounded once to float
// (the hardware's order and internal width differ: results agree to within float rounding, which
// every problem's tolerance allows); f64 is a chain of fused multiply-adds in k order. Integer
// accumulation wraps at 32 bits as on the GPU.
// WMMA's fragment layout is unspecified by NVIDIA; here lane l holds elements 8l .. 8l+7 of the
// 16x16 matrix in row-major order (mma.h loads and stores by that rule).
#include <cstring>

#include <hipjudge/lowp.h>

#include "internal.h"

namespace hjemu {
namespace {

enum class Element { F16, BF16, FP8, BF8, I8, F32, XF32, F64 };
enum class Acc { F32, I32, F64 };

struct Shape {
    const char* name;
    int m, n, k, blocks;
    Element a, b;
    Acc acc;
    bool wmma;
};

const Shape kShapes[HJEMU_MATRIX_COUNT] = {
    {"__builtin_amdgcn_mfma_f32_32x32x8f16", 32, 32, 8, 1, Element::F16, Element::F16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x16f16", 16, 16, 16, 1, Element::F16, Element::F16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_32x32x8bf16_1k", 32, 32, 8, 1, Element::BF16, Element::BF16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x16bf16_1k", 16, 16, 16, 1, Element::BF16, Element::BF16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, 1, Element::FP8, Element::FP8, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, 1, Element::FP8, Element::FP8, Acc::F32, false},
    {"__builtin_amdgcn_mfma_i32_32x32x16_i8", 32, 32, 16, 1, Element::I8, Element::I8, Acc::I32, false},
    {"__builtin_amdgcn_mfma_i32_16x16x32_i8", 16, 16, 32, 1, Element::I8, Element::I8, Acc::I32, false},
    {"nvcuda::wmma::mma_sync (m16n16k16, half)", 16, 16, 16, 1, Element::F16, Element::F16, Acc::F32, true},
    {"nvcuda::wmma::mma_sync (m16n16k16, bfloat16)", 16, 16, 16, 1, Element::BF16, Element::BF16, Acc::F32, true},
    {"__builtin_amdgcn_mfma_f32_32x32x2f32", 32, 32, 2, 1, Element::F32, Element::F32, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x4f32", 16, 16, 4, 1, Element::F32, Element::F32, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_32x32x1f32", 32, 32, 1, 2, Element::F32, Element::F32, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x1f32", 16, 16, 1, 4, Element::F32, Element::F32, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_4x4x1f32", 4, 4, 1, 16, Element::F32, Element::F32, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_4x4x4f16", 4, 4, 4, 16, Element::F16, Element::F16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_4x4x4bf16_1k", 4, 4, 4, 16, Element::BF16, Element::BF16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_32x32x4f16", 32, 32, 4, 2, Element::F16, Element::F16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x4f16", 16, 16, 4, 4, Element::F16, Element::F16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_32x32x4bf16_1k", 32, 32, 4, 2, Element::BF16, Element::BF16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x4bf16_1k", 16, 16, 4, 4, Element::BF16, Element::BF16, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_32x32x4_xf32", 32, 32, 4, 1, Element::XF32, Element::XF32, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x8_xf32", 16, 16, 8, 1, Element::XF32, Element::XF32, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f64_16x16x4f64", 16, 16, 4, 1, Element::F64, Element::F64, Acc::F64, false},
    {"__builtin_amdgcn_mfma_f64_4x4x4f64", 4, 4, 4, 4, Element::F64, Element::F64, Acc::F64, false},
    {"__builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8", 32, 32, 16, 1, Element::FP8, Element::BF8, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8", 32, 32, 16, 1, Element::BF8, Element::FP8, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8", 32, 32, 16, 1, Element::BF8, Element::BF8, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8", 16, 16, 32, 1, Element::FP8, Element::BF8, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8", 16, 16, 32, 1, Element::BF8, Element::FP8, Acc::F32, false},
    {"__builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8", 16, 16, 32, 1, Element::BF8, Element::BF8, Acc::F32, false},
};

// xf32 inputs: float rounded to nearest even to 10 explicit mantissa bits (TF32's precision; the
// exponent range is float's). What the hardware does with the dropped bits is not documented
// publicly; this is the model the README states.
double round_to_xf32(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7F800000u) == 0x7F800000u) return (double)f;  // infinity, NaN
    const uint32_t drop = 13, half = 1u << (drop - 1), lsb = (u >> drop) & 1u;
    u = (u + half - 1 + lsb) & ~((1u << drop) - 1);
    float r;
    std::memcpy(&r, &u, 4);
    return (double)r;
}

// Value `index` of a lane's operand bytes.
double element(const unsigned char* bytes, int index, Element e) {
    switch (e) {
        case Element::F16: {
            uint16_t h;
            std::memcpy(&h, bytes + 2 * index, 2);
            return hj::lowp::half_to_float(h);
        }
        case Element::BF16: {
            uint16_t b;
            std::memcpy(&b, bytes + 2 * index, 2);
            return hj::lowp::bfloat16_to_float(b);
        }
        case Element::FP8: return hj::lowp::decode(bytes[index], hj::lowp::kE4M3Fnuz);  // gfx942: FNUZ
        case Element::BF8: return hj::lowp::decode(bytes[index], hj::lowp::kE5M2Fnuz);
        case Element::F32:
        case Element::XF32: {
            float f;
            std::memcpy(&f, bytes + 4 * index, 4);
            return e == Element::XF32 ? round_to_xf32(f) : (double)f;
        }
        case Element::F64: {
            double d;
            std::memcpy(&d, bytes + 8 * index, 8);
            return d;
        }
        default: return (double)(int8_t)bytes[index];
    }
}

struct Operands {
    const hjemu_matrix_lane_t* lane[64];
};

[[noreturn]] void not_all_lanes(const CollectiveGroup& g, const Shape& s, unsigned missing) {
    Message m;
    m.add(s.name).add(" on line ").snum(g.request[(unsigned)__builtin_ctzll(g.active)].line)
        .add(" needs every lane of the wavefront (").num(g.plan->warp_size).add(") together, but ");
    if (missing >= g.lanes) {
        m.add("the block's last wavefront has only ").num(g.lanes).add(" lanes");
    } else {
        const uint3 t = g.plan->thread_ids[g.lo + missing];
        m.add("lane ").num(missing).add(" (thread ").dim(t.x, t.y, t.z).add(")")
            .add(g.where[missing] == CollectiveGroup::kExited ? " has exited" : " is elsewhere");
    }
    die(m, false);
}

// Where the hardware keeps each value (AMD Matrix Instruction Calculator, CDNA3), for B blocks of
// M x N x K. A and B: K_L = K * B * M / 64 values per lane; A[b][i][k] is value k % K_L of lane
// i + M (b + B (k / K_L)), B[b][k][j] of lane j + N (b + B (k / K_L)). C and D, 32-bit: G =
// min(64 / N, M / 4) groups of four rows across lanes; a block spans N G lanes, 64 / (N G) blocks
// side by side, the others in further registers: D[b][i][j] is register (i % 4) + 4 (i / (4 G)) +
// (M / G) (b / (64 / (N G))) of lane j + N ((i / 4) % G) + N G (b % (64 / (N G))). C and D, f64:
// R = 64 / (N B) rows side by side: D[b][i][j] is register i / R of lane j + N b + N B (i % R).
struct Place {
    int lane, reg;
};
Place place_d(const Shape& s, int b, int i, int j) {
    if (s.acc == Acc::F64) {
        const int rows = 64 / (s.n * s.blocks);
        return {j + s.n * b + s.n * s.blocks * (i % rows), i / rows};
    }
    const int g = 64 / s.n < s.m / 4 ? 64 / s.n : s.m / 4;
    const int side = 64 / (s.n * g);  // blocks side by side across the lanes
    return {j + s.n * ((i / 4) % g) + s.n * g * (b % side), i % 4 + 4 * (i / (4 * g)) + (s.m / g) * (b / side)};
}

void mfma(const Shape& s, const Operands& in) {
    const int per_lane = s.k * s.blocks * s.m / 64;  // K_L
    const int acc_bytes = s.acc == Acc::F64 ? 8 : 4;
    static thread_local double a[32][32], b[32][32];
    for (int blk = 0; blk < s.blocks; ++blk) {
        for (int i = 0; i < s.m; ++i)
            for (int k = 0; k < s.k; ++k)
                a[i][k] = element(in.lane[i + s.m * (blk + s.blocks * (k / per_lane))]->a, k % per_lane, s.a);
        for (int k = 0; k < s.k; ++k)
            for (int j = 0; j < s.n; ++j)
                b[k][j] = element(in.lane[j + s.n * (blk + s.blocks * (k / per_lane))]->b, k % per_lane, s.b);
        for (int i = 0; i < s.m; ++i)
            for (int j = 0; j < s.n; ++j) {
                const Place p = place_d(s, blk, i, j);
                unsigned char* d = const_cast<hjemu_matrix_lane_t*>(in.lane[p.lane])->d + acc_bytes * p.reg;
                const unsigned char* c = in.lane[p.lane]->c + acc_bytes * p.reg;
                if (s.acc == Acc::I32) {
                    int32_t acc;
                    std::memcpy(&acc, c, 4);
                    int64_t sum = 0;
                    for (int k = 0; k < s.k; ++k) sum += (int64_t)a[i][k] * (int64_t)b[k][j];
                    const int32_t out = (int32_t)(uint32_t)((uint64_t)(int64_t)acc + (uint64_t)sum);
                    std::memcpy(d, &out, 4);
                } else if (s.acc == Acc::F64) {
                    double sum;  // a fused multiply-add per k, in order
                    std::memcpy(&sum, c, 8);
                    for (int k = 0; k < s.k; ++k) sum = __builtin_fma(a[i][k], b[k][j], sum);
                    std::memcpy(d, &sum, 8);
                } else {
                    float acc;
                    std::memcpy(&acc, c, 4);
                    double sum = acc;
                    for (int k = 0; k < s.k; ++k) sum += a[i][k] * b[k][j];
                    const float out = (float)sum;
                    std::memcpy(d, &out, 4);
                }
            }
    }
}

void wmma(const Shape& s, const Operands& in) {
    double a[16][16], b[16][16];
    for (int idx = 0; idx < 256; ++idx) {
        a[idx / 16][idx % 16] = element(in.lane[idx / 8]->a, idx % 8, s.a);
        b[idx / 16][idx % 16] = element(in.lane[idx / 8]->b, idx % 8, s.b);
    }
    for (int idx = 0; idx < 256; ++idx) {
        const int i = idx / 16, j = idx % 16;
        float acc;
        std::memcpy(&acc, in.lane[idx / 8]->c + 4 * (idx % 8), 4);
        double sum = acc;
        for (int k = 0; k < 16; ++k) sum += a[i][k] * b[k][j];
        const float out = (float)sum;
        std::memcpy(const_cast<hjemu_matrix_lane_t*>(in.lane[idx / 8])->d + 4 * (idx % 8), &out, 4);
    }
}

}  // namespace

void resolve_matrix(CollectiveGroup& g) {
    const unsigned first = (unsigned)__builtin_ctzll(g.active);
    const int which = g.request[first].arg;
    if (which < 0 || which >= HJEMU_MATRIX_COUNT) {
        Message m;
        m.add("internal error: unknown matrix instruction");
        die(m, false);
    }
    const Shape& s = kShapes[which];
    const unsigned lanes = g.plan->warp_size;
    if (g.lanes < lanes) not_all_lanes(g, s, g.lanes);
    for (unsigned k = 0; k < lanes; ++k)
        if (!(g.active >> k & 1) || g.request[k].arg != which) not_all_lanes(g, s, k);
    Operands in;
    for (unsigned k = 0; k < lanes; ++k) {
        in.lane[k] = reinterpret_cast<const hjemu_matrix_lane_t*>((uintptr_t)g.request[k].value);
        if (in.lane[k]->modifiers != 0) {
            Message m;
            m.add(s.name).add(" on line ").snum(g.request[k].line)
                .add(": the cbsz, abid and blgp modifiers are not modelled by the emulated device (pass 0, 0, 0)");
            die(m, false);
        }
    }
    if (s.wmma) wmma(s, in);
    else mfma(s, in);
    for (unsigned k = 0; k < lanes; ++k) g.result[k] = 0;
}

}  // namespace hjemu
