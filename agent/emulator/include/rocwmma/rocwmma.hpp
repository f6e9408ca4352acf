// hjemu: rocWMMA's core API on the emulated device (MI300X, 64-lane wavefronts): fragment,
// fill_fragment, load_matrix_sync, store_matrix_sync, mma_sync, synchronize_workgroup, for square
// blocks of 16x16 or 32x32 with any BlockK the block's values divide among the 64 lanes.
//
// The fragments' lane layout is rocWMMA's internal business (its documentation promises none); here
// lane l holds elements E l .. E l + E - 1 of the fragment's tile in row-major order (E =
// num_elements), so element-wise work on `x[]` is portable and anything that assumes which element
// a lane holds is not, as on a GPU. mma_sync is a wavefront-wide operation: the 64 lanes meet, each
// hands in its elements, each gets its part of D; a lane that is missing stops the kernel with a
// message. Products are exact in double (f16, bf16, f32, fp8, int8 inputs) and summed there, then
// rounded once to the accumulator's type; integer accumulators wrap at 32 bits.
// Not modelled (compile errors): the cooperative and transform APIs (rocwmma_coop.hpp,
// rocwmma_transforms.hpp), non-square blocks, BlockM other than 16 and 32.
#pragma once

#if !defined(HJEMU_HIP)
#error "hjemu: rocWMMA is a HIP library: include hip/hip_runtime.h first"
#endif

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "../hip/hip_bfloat16.h"
#include "../hip/hip_fp16.h"
#include "../hip/hip_fp8.h"

namespace rocwmma {

using float16_t = _Float16;
using hfloat16_t = __half;
using bfloat16_t = hip_bfloat16;
using float32_t = float;
using float64_t = double;
using float8_t = __hip_fp8_e4m3_fnuz;   // gfx942's fp8
using bfloat8_t = __hip_fp8_e5m2_fnuz;  // gfx942's bf8
using int8_t = std::int8_t;
using uint8_t = std::uint8_t;
using int32_t = std::int32_t;
using uint32_t = std::uint32_t;
using index_t = std::int32_t;

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t : uint32_t { mem_row_major, mem_col_major };

namespace Constants {
static constexpr uint32_t AMDGCN_WAVE_SIZE = 64;
}  // namespace Constants

template <class A, class B>
__host__ __device__ constexpr auto ceilDiv(A a, B b) {
    return (a + b - 1) / b;
}

inline void synchronize_workgroup(int line = __builtin_LINE()) { __syncthreads(line); }

template <class MatrixT, uint32_t BlockM, uint32_t BlockN, uint32_t BlockK, class DataT, class DataLayoutT = void>
class fragment {
    static_assert(BlockM == BlockN && (BlockM == 16 || BlockM == 32),
                  "hjemu: rocWMMA blocks of 16x16 or 32x32 are modelled (MI300X's)");

public:
    static constexpr uint32_t rows = std::is_same<MatrixT, matrix_b>::value ? BlockK : BlockM;
    static constexpr uint32_t cols = std::is_same<MatrixT, matrix_a>::value ? BlockK : BlockN;
    static_assert(rows * cols % 64 == 0, "hjemu: the fragment's values must divide among the 64 lanes");
    static constexpr uint32_t num_elements = rows * cols / 64;
    DataT x[num_elements];

    DataT& operator[](uint32_t i) { return x[i]; }
    const DataT& operator[](uint32_t i) const { return x[i]; }
};

namespace detail {
inline uint32_t lane() { return hjemu_lane_id(); }
inline size_t offset(uint32_t row, uint32_t col, uint32_t ldm, bool row_major_memory) {
    return row_major_memory ? (size_t)row * ldm + col : (size_t)col * ldm + row;
}
template <class T>
double to_double(const T& v) {
    if constexpr (std::is_class<T>::value) return (double)(float)v;
    else return (double)v;
}
template <class T>
T from_double(double v) {
    if constexpr (std::is_integral<T>::value) return (T)(int64_t)v;
    else if constexpr (std::is_class<T>::value) return T((float)v);
    else return (T)v;
}
template <class Frag, class Ptr>
void load(Frag& f, Ptr p, uint32_t ldm, bool row_major_memory) {
    const uint32_t first = lane() * Frag::num_elements;
    for (uint32_t e = 0; e < Frag::num_elements; ++e)
        f.x[e] = p[offset((first + e) / Frag::cols, (first + e) % Frag::cols, ldm, row_major_memory)];
}
template <class Frag, class Ptr>
void store(Ptr p, const Frag& f, uint32_t ldm, bool row_major_memory) {
    const uint32_t first = lane() * Frag::num_elements;
    for (uint32_t e = 0; e < Frag::num_elements; ++e)
        p[offset((first + e) / Frag::cols, (first + e) % Frag::cols, ldm, row_major_memory)] = f.x[e];
}
// Every wavefront of a block has its own exchange area on the block's host thread; blocks on one
// host thread run one after another, so the areas are reused block after block.
inline double* exchange(size_t doubles) {
    static thread_local double* area[16];
    static thread_local size_t capacity[16];
    const unsigned wave = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 64;
    if (capacity[wave] < doubles) {
        delete[] area[wave];
        area[wave] = new double[doubles];
        capacity[wave] = doubles;
    }
    return area[wave];
}
}  // namespace detail

template <class MatrixT, uint32_t M, uint32_t N, uint32_t K, class DataT, class Layout, class V>
inline void fill_fragment(fragment<MatrixT, M, N, K, DataT, Layout>& f, V value) {
    for (uint32_t e = 0; e < f.num_elements; ++e) f.x[e] = static_cast<DataT>(value);
}

template <class MatrixT, uint32_t M, uint32_t N, uint32_t K, class DataT, class Layout>
inline void load_matrix_sync(fragment<MatrixT, M, N, K, DataT, Layout>& f, const DataT* data, uint32_t ldm) {
    static_assert(!std::is_void<Layout>::value, "hjemu: an accumulator without a layout is loaded with a layout_t");
    detail::load(f, data, ldm, std::is_same<Layout, row_major>::value);
}
template <uint32_t M, uint32_t N, uint32_t K, class DataT>
inline void load_matrix_sync(fragment<accumulator, M, N, K, DataT>& f, const DataT* data, uint32_t ldm, layout_t layout) {
    detail::load(f, data, ldm, layout == mem_row_major);
}
template <class MatrixT, uint32_t M, uint32_t N, uint32_t K, class DataT, class Layout>
inline void store_matrix_sync(DataT* data, const fragment<MatrixT, M, N, K, DataT, Layout>& f, uint32_t ldm) {
    static_assert(!std::is_void<Layout>::value, "hjemu: an accumulator without a layout is stored with a layout_t");
    detail::store(data, f, ldm, std::is_same<Layout, row_major>::value);
}
template <uint32_t M, uint32_t N, uint32_t K, class DataT>
inline void store_matrix_sync(DataT* data, const fragment<accumulator, M, N, K, DataT>& f, uint32_t ldm, layout_t layout) {
    detail::store(data, f, ldm, layout == mem_row_major);
}

// D = A B + C over the wavefront: every lane writes its elements of A, B and C to the wavefront's
// exchange area, the 64 lanes meet, each computes its elements of D, and they meet again before
// the area can be written by the next mma_sync.
template <uint32_t M, uint32_t N, uint32_t K, class InputT, class ComputeT, class LayoutA, class LayoutB>
inline void mma_sync(fragment<accumulator, M, N, K, ComputeT>& d, const fragment<matrix_a, M, N, K, InputT, LayoutA>& a,
                     const fragment<matrix_b, M, N, K, InputT, LayoutB>& b,
                     const fragment<accumulator, M, N, K, ComputeT>& c, int line = __builtin_LINE()) {
    using FA = fragment<matrix_a, M, N, K, InputT, LayoutA>;
    using FB = fragment<matrix_b, M, N, K, InputT, LayoutB>;
    using FC = fragment<accumulator, M, N, K, ComputeT>;
    double* area = detail::exchange(M * K + K * N + M * N);
    double *ea = area, *eb = area + M * K, *ec = eb + K * N;
    const uint32_t l = detail::lane();
    for (uint32_t e = 0; e < FA::num_elements; ++e) ea[l * FA::num_elements + e] = detail::to_double(a.x[e]);
    for (uint32_t e = 0; e < FB::num_elements; ++e) eb[l * FB::num_elements + e] = detail::to_double(b.x[e]);
    for (uint32_t e = 0; e < FC::num_elements; ++e) ec[l * FC::num_elements + e] = detail::to_double(c.x[e]);
    const auto together = hjemu::collective(HJEMU_ACTIVEMASK, 0, 0, 64, 0, false, line, 0);
    if (together != ~0ull) {
        char what[160];
        std::snprintf(what, sizeof what, "rocwmma::mma_sync on line %d needs every lane of the wavefront (64) "
                      "together, but only %d arrived", line, __builtin_popcountll(together));
        hjemu_kernel_abort(what);
    }
    for (uint32_t e = 0; e < FC::num_elements; ++e) {
        const uint32_t i = (l * FC::num_elements + e) / N, j = (l * FC::num_elements + e) % N;
        if constexpr (std::is_integral<ComputeT>::value) {
            int64_t sum = 0;
            for (uint32_t k = 0; k < K; ++k) sum += (int64_t)ea[i * K + k] * (int64_t)eb[k * N + j];
            d.x[e] = (ComputeT)(uint32_t)((uint64_t)(int64_t)ec[i * N + j] + (uint64_t)sum);
        } else {
            double sum = ec[i * N + j];
            for (uint32_t k = 0; k < K; ++k) sum += ea[i * K + k] * eb[k * N + j];
            d.x[e] = detail::from_double<ComputeT>(sum);
        }
    }
    (void)hjemu::collective(HJEMU_SYNCWARP, 0, 0, 64, 0, false, line, 0);
}

}  // namespace rocwmma
