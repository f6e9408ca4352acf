#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

#include <climits>
#include <cstdint>

// Two kernels on MI300X's matrix cores (__builtin_amdgcn_mfma_f32_32x32x8bf16_1k, float32
// accumulators), act carrying the activations between them. Both tile 32 tokens by 128 columns
// (four 64-lane wavefronts, a 32x32 tile each); rows of tokens that do not use the expert at hand
// are zeroed in the A tile (they add exact zeros).
// - gate_up: one block per (token tile, columns n of I, expert): it leaves at once if no token of the
//   tile uses the expert, else the gate and the up tile (rows n and I + n of w1[e]) over the H loop,
//   then act[t, j, n] = bf16(SiLU(g) * u) for the tokens with topk_ids[t, j] == e (blocks of other
//   experts write other slots of act).
// - down: columns d of H; the experts the tile's tokens use one at a time, lowest first (a token
//   uses an expert at most once): y = act[t, j] w2[e]^T over the I loop, added to the output
//   accumulators times topk_weights[t, j]; out rounded once.
// Operands are contiguous along k: LDS tiles [row][k], each lane's four consecutive k one 8-byte
// read. Register layout (CDNA3, 32x32x8): lane l holds A[l % 32][4 (l / 32) + e], B^T[4 (l / 32) + e][l % 32]
// and C[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] in accumulator r.
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float floatx16 __attribute__((ext_vector_type(16)));

constexpr int BM = 32, BN = 128, BK = 32, LD = BK + 4;

// The lowest expert above `after` that a token of the tile uses (INT_MAX: none), the same in every
// thread; then slot[r] = the j with topk_ids[t, j] == that expert, or -1.
__device__ int next_expert(const int32_t* topk_ids, int t0, int T, int topk, int after, int* lowest, int* slot) {
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64;
    __syncthreads();  // slot and lowest free again
    int next = INT_MAX;
    if (tid < BM && t0 + tid < T)
        for (int j = 0; j < topk; ++j) {
            const int e = topk_ids[(size_t)(t0 + tid) * topk + j];
            if (e > after && e < next) next = e;
        }
    for (int offset = 32; offset > 0; offset /= 2) next = min(next, __shfl_xor(next, offset));
    if (lane == 0) lowest[wave] = next;
    __syncthreads();
    const int expert = min(min(lowest[0], lowest[1]), min(lowest[2], lowest[3]));
    if (tid < BM) {
        int s = -1;
        if (t0 + tid < T)
            for (int j = 0; j < topk; ++j)
                if (topk_ids[(size_t)(t0 + tid) * topk + j] == expert) s = j;
        slot[tid] = s;
    }
    __syncthreads();
    return expert;
}

// Loads a rows x BK tile of a row-major matrix with `cols` columns (rows past `valid` or columns past
// the end are zero) into LDS, `rows` a multiple of 8 (256 threads, 4 elements each per pass).
__device__ void load_tile(short* dst, const short* src, int rows, int valid, int cols, int k0) {
    for (int idx = threadIdx.x * 4; idx < rows * BK; idx += 256 * 4) {
        const int r = idx / BK, c = idx % BK;
        for (int e = 0; e < 4; ++e)
            dst[r * LD + c + e] = r < valid && k0 + c + e < cols ? src[(size_t)r * cols + k0 + c + e] : (short)0;
    }
}

__global__ void __launch_bounds__(256) gate_up(const short* x, const short* w1, const int32_t* topk_ids,
                                               __hip_bfloat16* act, int T, int H, int I, int topk) {
    __shared__ __align__(16) short As[BM * LD], Gs[BN * LD], Us[BN * LD];
    __shared__ int slot[BM], used;
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64, i = lane % 32, q = lane / 32;
    const int t0 = blockIdx.x * BM, n0 = blockIdx.y * BN, valid_n = min(BN, I - n0), expert = blockIdx.z;
    if (tid == 0) used = 0;
    __syncthreads();
    if (tid < BM) {
        int s = -1;
        if (t0 + tid < T)
            for (int j = 0; j < topk; ++j)
                if (topk_ids[(size_t)(t0 + tid) * topk + j] == expert) s = j;
        slot[tid] = s;
        if (s >= 0) used = 1;
    }
    __syncthreads();
    if (!used) return;  // the same for every thread of the block
    floatx16 g, u;
    for (int r = 0; r < 16; ++r) g[r] = u[r] = 0.0f;
    const short* gate = w1 + ((size_t)expert * 2 * I + n0) * H;
    const short* up = gate + (size_t)I * H;
    for (int k0 = 0; k0 < H; k0 += BK) {
        // x rows of the tile's tokens that use the expert, zero elsewhere
        for (int idx = tid * 4; idx < BM * BK; idx += 256 * 4) {
            const int r = idx / BK, c = idx % BK;
            for (int e = 0; e < 4; ++e)
                As[r * LD + c + e] = slot[r] >= 0 && k0 + c + e < H ? x[(size_t)(t0 + r) * H + k0 + c + e] : (short)0;
        }
        load_tile(Gs, gate, BN, valid_n, H, k0);
        load_tile(Us, up, BN, valid_n, H, k0);
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 8) {
            const bf16x4 a = *(const bf16x4*)(As + i * LD + kk + 4 * q);
            const bf16x4 bg = *(const bf16x4*)(Gs + (32 * wave + i) * LD + kk + 4 * q);
            const bf16x4 bu = *(const bf16x4*)(Us + (32 * wave + i) * LD + kk + 4 * q);
            g = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, bg, g, 0, 0, 0);
            u = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, bu, u, 0, 0, 0);
        }
        __syncthreads();
    }
    for (int r = 0; r < 16; ++r) {
        const int row = 8 * (r / 4) + 4 * q + r % 4, col = n0 + 32 * wave + i;
        if (slot[row] >= 0 && col < I) {
            const float h = g[r] / (1.0f + expf(-g[r])) * u[r];
            act[((size_t)(t0 + row) * topk + slot[row]) * I + col] = __float2bfloat16(h);
        }
    }
}

__global__ void __launch_bounds__(256) down(const short* act, const short* w2, const int32_t* topk_ids,
                                            const float* topk_weights, __hip_bfloat16* out, int T, int H, int I,
                                            int topk) {
    __shared__ __align__(16) short As[BM * LD], Bs[BN * LD];
    __shared__ int lowest[4], slot[BM];
    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64, i = lane % 32, q = lane / 32;
    const int t0 = blockIdx.x * BM, d0 = blockIdx.y * BN, valid_d = min(BN, H - d0);
    floatx16 acc;
    for (int r = 0; r < 16; ++r) acc[r] = 0.0f;
    for (int expert = next_expert(topk_ids, t0, T, topk, -1, lowest, slot); expert != INT_MAX;
         expert = next_expert(topk_ids, t0, T, topk, expert, lowest, slot)) {
        floatx16 y;
        for (int r = 0; r < 16; ++r) y[r] = 0.0f;
        const short* w = w2 + ((size_t)expert * H + d0) * I;
        for (int k0 = 0; k0 < I; k0 += BK) {
            for (int idx = tid * 4; idx < BM * BK; idx += 256 * 4) {
                const int r = idx / BK, c = idx % BK;
                const short* src = act + ((size_t)(t0 + r) * topk + slot[r]) * I + k0 + c;
                for (int e = 0; e < 4; ++e) As[r * LD + c + e] = slot[r] >= 0 && k0 + c + e < I ? src[e] : (short)0;
            }
            load_tile(Bs, w, BN, valid_d, I, k0);
            __syncthreads();
            for (int kk = 0; kk < BK; kk += 8) {
                const bf16x4 a = *(const bf16x4*)(As + i * LD + kk + 4 * q);
                const bf16x4 b = *(const bf16x4*)(Bs + (32 * wave + i) * LD + kk + 4 * q);
                y = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, y, 0, 0, 0);
            }
            __syncthreads();
        }
        for (int r = 0; r < 16; ++r) {
            const int row = 8 * (r / 4) + 4 * q + r % 4;
            if (slot[row] >= 0) acc[r] += topk_weights[(size_t)(t0 + row) * topk + slot[row]] * y[r];
        }
    }
    for (int r = 0; r < 16; ++r) {
        const int row = t0 + 8 * (r / 4) + 4 * q + r % 4, col = d0 + 32 * wave + i;
        if (row < T && col < H) out[(size_t)row * H + col] = __float2bfloat16(acc[r]);
    }
}

extern "C" void solution(const __hip_bfloat16* x, const __hip_bfloat16* w1, const __hip_bfloat16* w2,
                         const int32_t* topk_ids, const float* topk_weights, __hip_bfloat16* act,
                         __hip_bfloat16* out, size_t T, size_t H, size_t I, size_t E, size_t topk) {
    const unsigned tiles = (unsigned)((T + BM - 1) / BM);
    hipLaunchKernelGGL(gate_up, dim3(tiles, (unsigned)((I + BN - 1) / BN), (unsigned)E), dim3(256), 0, 0,
                       reinterpret_cast<const short*>(x), reinterpret_cast<const short*>(w1), topk_ids, act,
                       (int)T, (int)H, (int)I, (int)topk);
    hipLaunchKernelGGL(down, dim3(tiles, (unsigned)((H + BN - 1) / BN)), dim3(256), 0, 0,
                       reinterpret_cast<const short*>(act), reinterpret_cast<const short*>(w2), topk_ids,
                       topk_weights, out, (int)T, (int)H, (int)I, (int)topk);
}
