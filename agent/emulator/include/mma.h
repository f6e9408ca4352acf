// hjemu: CUDA's nvcuda::wmma on the emulated device, m16n16k16 with half or __nv_bfloat16 inputs and
// float accumulators. load_matrix_sync and store_matrix_sync move each lane's eight elements (lane
// l holds elements 8l .. 8l+7 of the 16x16 tile in row-major order: NVIDIA leaves the layout
// unspecified, so element-wise work on `x[]` is portable and nothing else is); mma_sync is a
// warp-wide instruction computed in runtime/matrix.cpp: all 32 lanes call it together.
#pragma once

#if !defined(HJEMU_CUDA)
#error "include cuda_runtime.h before mma.h"
#endif

#include <cstring>
#include <type_traits>

#include "hjemu/bf16.h"
#include "hjemu/fp16.h"
#include "hjemu/matrix.h"

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
    static_assert(M == 16 && N == 16 && K == 16, "hjemu: wmma fragments are modelled for m16n16k16 only");
    static_assert(std::is_same<Use, accumulator>::value ? std::is_same<T, float>::value
                                                        : (std::is_same<T, __half>::value ||
                                                           std::is_same<T, __nv_bfloat16>::value),
                  "hjemu: wmma m16n16k16 takes half or __nv_bfloat16 inputs and float accumulators");
    enum { num_elements = 8 };
    T x[8];
};

template <class Use, class T, class Layout>
inline void fill_fragment(fragment<Use, 16, 16, 16, T, Layout>& f, const T& value) {
    for (int e = 0; e < 8; ++e) f.x[e] = value;
}
template <class Use, class Layout>
inline void fill_fragment(fragment<Use, 16, 16, 16, float, Layout>& f, float value) {
    for (int e = 0; e < 8; ++e) f.x[e] = value;
}

namespace detail {
inline unsigned lane() { return hjemu_lane_id(); }
// The memory offset of tile element (row, col) with leading dimension ldm.
inline size_t offset(int row, int col, unsigned ldm, bool row_major_memory) {
    return row_major_memory ? (size_t)row * ldm + col : (size_t)col * ldm + row;
}
}  // namespace detail

template <class Use, class T, class Layout>
inline void load_matrix_sync(fragment<Use, 16, 16, 16, T, Layout>& f, const T* p, unsigned ldm) {
    static_assert(!std::is_same<Use, accumulator>::value, "an accumulator is loaded with a layout_t");
    const bool row = std::is_same<Layout, row_major>::value;
    for (int e = 0; e < 8; ++e) {
        const int idx = (int)detail::lane() * 8 + e;
        f.x[e] = p[detail::offset(idx / 16, idx % 16, ldm, row)];
    }
}
inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, float>& f, const float* p, unsigned ldm,
                             layout_t layout) {
    for (int e = 0; e < 8; ++e) {
        const int idx = (int)detail::lane() * 8 + e;
        f.x[e] = p[detail::offset(idx / 16, idx % 16, ldm, layout == mem_row_major)];
    }
}
inline void store_matrix_sync(float* p, const fragment<accumulator, 16, 16, 16, float>& f, unsigned ldm,
                              layout_t layout) {
    for (int e = 0; e < 8; ++e) {
        const int idx = (int)detail::lane() * 8 + e;
        p[detail::offset(idx / 16, idx % 16, ldm, layout == mem_row_major)] = f.x[e];
    }
}

template <class T, class LA, class LB>
inline void mma_sync(fragment<accumulator, 16, 16, 16, float>& d, const fragment<matrix_a, 16, 16, 16, T, LA>& a,
                     const fragment<matrix_b, 16, 16, 16, T, LB>& b,
                     const fragment<accumulator, 16, 16, 16, float>& c, int line = __builtin_LINE()) {
    // The fragments hold the tile in row-major element order whatever their memory layout was.
    const int which = std::is_same<T, __half>::value ? HJEMU_WMMA_16X16X16_F16 : HJEMU_WMMA_16X16X16_BF16;
    struct Pack { float v[8]; } acc;
    std::memcpy(acc.v, c.x, sizeof acc.v);
    struct Half8 { T v[8]; } pa, pb;
    std::memcpy(pa.v, a.x, sizeof pa.v);
    std::memcpy(pb.v, b.x, sizeof pb.v);
    const Pack out = hjemu::matrix_instruction(which, pa, pb, acc, 0, 0, 0, line);
    std::memcpy(d.x, out.v, sizeof out.v);
}

}  // namespace wmma
}  // namespace nvcuda
