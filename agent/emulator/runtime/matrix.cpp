// Matrix instructions: gfx942's MFMA builtins (include/hjemu/mfma.h) and CUDA's WMMA fragments
// (include/mma.h), register-faithful across the wavefront.
//
// Every lane of the wavefront hands in its registers (hjemu_matrix_lane_t); the instruction reads
// A, B and C from the lanes and registers where the hardware keeps them and writes each lane's D.
// MFMA layouts (AMD Matrix Instruction Calculator, CDNA3; a single block, cbsz = abid = blgp = 0):
//   A (M x K), K_L = K / (64 / M) values per lane: A[i][k] is value k % K_L of lane i + M * (k / K_L)
//   B (K x N):                                      B[k][j] is value k % K_L of lane j + N * (k / K_L)
//   C, D (M x N), G = 64 / N lane groups:           D[i][j] is register (i % 4) + 4 * (i / (4 G)) of
//                                                   lane j + N * ((i / 4) % G)
// so 32x32 instructions hold four values (f16, bf16) or eight (fp8, i8) of a row of A in lane i and
// i + 32, and 16 accumulators per lane; 16x16 ones four lane groups and 4 accumulators. Products of
// 16- and 8-bit values are exact in float and summed here in double, then rounded once to float
// (the hardware's order and internal width differ: results agree to within float rounding, which
// every problem's tolerance allows). Integer accumulation wraps at 32 bits as on the GPU.
// WMMA's fragment layout is unspecified by NVIDIA; here lane l holds elements 8l .. 8l+7 of the
// 16x16 matrix in row-major order (mma.h loads and stores by that rule).
#include <cstring>

#include <hipjudge/lowp.h>

#include "internal.h"

namespace hjemu {
namespace {

enum class Element { F16, BF16, FP8, I8 };

struct Shape {
    const char* name;
    int m, n, k;
    Element element;
    bool integer;  // i32 accumulators
    bool wmma;
};

const Shape kShapes[HJEMU_MATRIX_COUNT] = {
    {"__builtin_amdgcn_mfma_f32_32x32x8f16", 32, 32, 8, Element::F16, false, false},
    {"__builtin_amdgcn_mfma_f32_16x16x16f16", 16, 16, 16, Element::F16, false, false},
    {"__builtin_amdgcn_mfma_f32_32x32x8bf16_1k", 32, 32, 8, Element::BF16, false, false},
    {"__builtin_amdgcn_mfma_f32_16x16x16bf16_1k", 16, 16, 16, Element::BF16, false, false},
    {"__builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, Element::FP8, false, false},
    {"__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, Element::FP8, false, false},
    {"__builtin_amdgcn_mfma_i32_32x32x16_i8", 32, 32, 16, Element::I8, true, false},
    {"__builtin_amdgcn_mfma_i32_16x16x32_i8", 16, 16, 32, Element::I8, true, false},
    {"nvcuda::wmma::mma_sync (m16n16k16, half)", 16, 16, 16, Element::F16, false, true},
    {"nvcuda::wmma::mma_sync (m16n16k16, bfloat16)", 16, 16, 16, Element::BF16, false, true},
};

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

void mfma(const Shape& s, const Operands& in) {
    const int groups = 64 / s.n;           // lane groups of C and D
    const int per_lane = s.k / (64 / s.m);  // K_L: values of A (and B) per lane
    double a[32][32], b[32][32];
    for (int i = 0; i < s.m; ++i)
        for (int k = 0; k < s.k; ++k) a[i][k] = element(in.lane[i + s.m * (k / per_lane)]->a, k % per_lane, s.element);
    for (int k = 0; k < s.k; ++k)
        for (int j = 0; j < s.n; ++j) b[k][j] = element(in.lane[j + s.n * (k / per_lane)]->b, k % per_lane, s.element);
    for (int i = 0; i < s.m; ++i)
        for (int j = 0; j < s.n; ++j) {
            const int lane = j + s.n * ((i / 4) % groups), reg = i % 4 + 4 * (i / (4 * groups));
            unsigned char* d = const_cast<hjemu_matrix_lane_t*>(in.lane[lane])->d + 4 * reg;
            const unsigned char* c = in.lane[lane]->c + 4 * reg;
            if (s.integer) {
                int32_t acc;
                std::memcpy(&acc, c, 4);
                int64_t sum = 0;
                for (int k = 0; k < s.k; ++k) sum += (int64_t)a[i][k] * (int64_t)b[k][j];
                const int32_t out = (int32_t)(uint32_t)((uint64_t)(int64_t)acc + (uint64_t)sum);
                std::memcpy(d, &out, 4);
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

void wmma(const Shape& s, const Operands& in) {
    double a[16][16], b[16][16];
    for (int idx = 0; idx < 256; ++idx) {
        a[idx / 16][idx % 16] = element(in.lane[idx / 8]->a, idx % 8, s.element);
        b[idx / 16][idx % 16] = element(in.lane[idx / 8]->b, idx % 8, s.element);
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
