// gfx942's cross-lane builtins, scheduling hints, fp8 conversions and __ocml_* math on the emulator.
// Each expected value is written here from the CDNA3 ISA's description of the instruction, lane by
// lane on the host, independently of runtime/lanes.cpp. Prints ALL OK.
#include <hip/hip_runtime.h>
#include <hip/amd_detail/amd_hip_fp8.h>
#include <hip/amd_detail/amd_warp_functions.h>

#include <cstdint>
#include <vector>

#include "check.h"

constexpr int kTests = 24;  // values recorded per lane

// The DPP controls and masks under test (the same for every lane, as the instruction's immediates).
struct Dpp {
    int ctrl, row_mask, bank_mask;
    bool bound_ctrl;
};
constexpr Dpp kDpp[] = {
    {0x1B, 0xF, 0xF, false},   // quad_perm [3,2,1,0]
    {0x101, 0xF, 0xF, true},   // row_shl:1, zero past the row's end
    {0x104, 0xF, 0xF, false},  // row_shl:4, old kept
    {0x111, 0xF, 0xF, true},   // row_shr:1
    {0x118, 0xF, 0xC, false},  // row_shr:8, banks 0 and 1 masked off
    {0x123, 0xF, 0xF, false},  // row_ror:3
    {0x130, 0xF, 0xF, true},   // wave_shl:1
    {0x134, 0xF, 0xF, false},  // wave_rol:1
    {0x138, 0xF, 0xF, true},   // wave_shr:1
    {0x13C, 0xF, 0xF, false},  // wave_ror:1
    {0x140, 0xF, 0xF, false},  // row_mirror
    {0x141, 0xF, 0xF, false},  // row_half_mirror
    {0x142, 0xA, 0xF, false},  // row_bcast:15 into rows 1 and 3
    {0x143, 0xC, 0xF, false},  // row_bcast:31 into rows 2 and 3
    {0x111, 0x5, 0xF, true},   // row_shr:1 with rows 1 and 3 masked off
};
constexpr int kDppCount = sizeof(kDpp) / sizeof(kDpp[0]);

__global__ void cross_lane(int* out) {
    const int lane = __lane_id();
    const int v = 1000 + lane;
    int* o = out + threadIdx.x * kTests;
    o[0] = __builtin_amdgcn_readfirstlane(v);
    o[1] = __builtin_amdgcn_readlane(v, 37);
    o[2] = __builtin_amdgcn_ds_bpermute(4 * (63 - lane), v);            // reverse
    o[3] = __builtin_amdgcn_ds_bpermute(4 * (lane + 65), v);            // index wraps modulo 64
    o[4] = __builtin_amdgcn_ds_permute(4 * ((lane + 5) % 64), v);       // lane i sends to i + 5
    o[5] = __builtin_amdgcn_ds_permute(4 * (lane / 2), v);              // two writers, the higher wins
    o[6] = __builtin_amdgcn_ds_swizzle(v, 0x8000 | 0x1B);               // quad perm [3,2,1,0]
    o[7] = __builtin_amdgcn_ds_swizzle(v, (0x1F << 10) | 0x1F);         // xor 31: reverse each 32
    o[8] = __builtin_amdgcn_ds_swizzle(v, (3 << 5) | 0x1C);             // and 0x1C, or 3
    o[9] = (int)__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));  // the lane id
    o[10] = (int)__builtin_amdgcn_mbcnt_hi(0xAAAAAAAAu, __builtin_amdgcn_mbcnt_lo(0x0000FFFFu, 7u));
    o[11] = __builtin_amdgcn_readfirstlane((int)threadIdx.x);
    // 64-bit values move as two halves.
    const long long wide = ((long long)lane << 40) | (unsigned)(lane * 3);
    o[12] = (int)(__builtin_amdgcn_readlane(wide, 9) >> 40);
    o[13] = (int)__builtin_amdgcn_mov_dpp(wide, 0x13C, 0xF, 0xF, false);
    __builtin_amdgcn_s_setprio(3);
    __builtin_amdgcn_sched_barrier(0);
    __builtin_amdgcn_sched_group_barrier(0x008, 1, 0);
    __builtin_amdgcn_iglp_opt(0);
    __builtin_amdgcn_s_waitcnt(0);
    __builtin_amdgcn_s_sleep(1);
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_s_barrier();
    o[14] = __builtin_amdgcn_wavefrontsize();
    // HIP's wrappers (amd_warp_functions.h): byte addresses, as the instructions take.
    o[15] = (int)__hip_ds_bpermutef(4 * (lane ^ 1), (float)v);
    o[16] = __hip_move_dpp(v, 0x141, 0xF, 0xF, false);                  // row_half_mirror
    o[17] = (int)__hip_ds_swizzle((unsigned)v, (2 << 10) | 0x1F);       // xor 2
    o[18] = (int)__mbcnt_hi(~0u, __mbcnt_lo(~0u, 0u));
}

__global__ void dpp(int* out) {
    const int lane = __lane_id();
    const int v = 1000 + lane, old = -lane;
    int* o = out + threadIdx.x * kDppCount;
#define HJ_DPP(I) o[I] = __builtin_amdgcn_update_dpp(old, v, kDpp[I].ctrl, kDpp[I].row_mask, kDpp[I].bank_mask, kDpp[I].bound_ctrl)
    HJ_DPP(0); HJ_DPP(1); HJ_DPP(2); HJ_DPP(3); HJ_DPP(4); HJ_DPP(5); HJ_DPP(6); HJ_DPP(7);
    HJ_DPP(8); HJ_DPP(9); HJ_DPP(10); HJ_DPP(11); HJ_DPP(12); HJ_DPP(13); HJ_DPP(14);
#undef HJ_DPP
}

// Only the odd lanes take the branch: they are the EXEC mask of every call in it.
__global__ void diverged(int* out) {
    const int lane = __lane_id();
    const int v = 1000 + lane;
    int* o = out + threadIdx.x * 4;
    o[0] = o[1] = o[2] = o[3] = -1;
    if (lane % 2 == 1) {
        o[0] = __builtin_amdgcn_readfirstlane(v);                        // lane 1
        o[1] = __builtin_amdgcn_ds_bpermute(4 * (lane - 1), v);          // an inactive lane: 0
        o[2] = __builtin_amdgcn_mov_dpp(v, 0x111, 0xF, 0xF, true);       // row_shr:1 reads an inactive lane: 0
        o[3] = __builtin_amdgcn_ds_swizzle(v, (1 << 10) | 0x1F);         // xor 1: inactive neighbour, 0
    }
}

// Lockstep code: each lane writes its LDS slot and reads its neighbour's after wave_barrier, which on
// a GPU only keeps the compiler from reordering the accesses (the lanes run together); here the
// lanes meet there, so the neighbour's value is written before it is read.
__global__ void lockstep_exchange(int* out) {
    __shared__ int slot[128];
    slot[threadIdx.x] = 1000 + (int)threadIdx.x;
    __builtin_amdgcn_wave_barrier();
    out[threadIdx.x] = slot[threadIdx.x ^ 1];
}

// The LLVM atomic optimizer's wavefront inclusive scan, in DPP (row_shr 1, 2, 4, 8 with bank masks,
// then row_bcast:15 and row_bcast:31), and a ds_swizzle butterfly sum: both against the plain sums.
__global__ void scans(const int* in, int* out) {
    const int lane = __lane_id();
    int x = in[threadIdx.x];
    x += __builtin_amdgcn_update_dpp(0, x, 0x111, 0xF, 0xF, false);
    x += __builtin_amdgcn_update_dpp(0, x, 0x112, 0xF, 0xF, false);
    x += __builtin_amdgcn_update_dpp(0, x, 0x114, 0xF, 0xE, false);
    x += __builtin_amdgcn_update_dpp(0, x, 0x118, 0xF, 0xC, false);
    x += __builtin_amdgcn_update_dpp(0, x, 0x142, 0xA, 0xF, false);
    x += __builtin_amdgcn_update_dpp(0, x, 0x143, 0xC, 0xF, false);
    out[2 * threadIdx.x] = x;
    int s = in[threadIdx.x];
    for (int m = 1; m < 32; m *= 2) s += __builtin_amdgcn_ds_swizzle(s, (m << 10) | 0x1F);
    s += __builtin_amdgcn_ds_bpermute(4 * (lane ^ 32), s);
    out[2 * threadIdx.x + 1] = s;
}

__global__ void conversions(float* out) {
    const int packed = __builtin_amdgcn_cvt_pk_fp8_f32(1.5f, -3.0f, 0x12345678, false);
    const int high = __builtin_amdgcn_cvt_pk_fp8_f32(1000.0f, 0.0f, 0x12345678, true);
    const int bf8 = __builtin_amdgcn_cvt_pk_bf8_f32(1.5f, 65536.0f, 0, false);
    out[0] = (float)(packed & 0xFFFF);        // 1.5 -> 0x44, -3.0 -> 0xCC
    out[1] = (float)((unsigned)packed >> 16); // old's upper word kept
    out[2] = (float)((unsigned)high >> 16);   // 1000 overflows E4M3 FNUZ without clamp: NaN 0x80
    out[3] = (float)(high & 0xFFFF);          // old's lower word kept
    out[4] = (float)bf8;                      // 1.5 -> 0x42, 65536 -> NaN 0x80
    out[5] = __builtin_amdgcn_cvt_f32_fp8(packed, 1);
    out[6] = __builtin_amdgcn_cvt_f32_bf8(bf8, 0);
    const auto pair = __builtin_amdgcn_cvt_pk_f32_fp8(packed, false);
    out[7] = pair[0] + 10 * pair[1];
    out[8] = __builtin_amdgcn_fmed3f(3.0f, -1.0f, 2.0f);
    out[9] = __builtin_amdgcn_fmed3f(5.0f, 9.0f, 7.0f);
    out[10] = __ocml_exp2_f32(3.0f) + __ocml_log2_f32(8.0f) + __ocml_rsqrt_f32(4.0f) + __ocml_sqrt_f32(9.0f);
    out[11] = __ocml_fmax_f32(2.0f, -1.0f) + __ocml_fmin_f32(2.0f, -1.0f) + (float)__ocml_fma_f64(2.0, 3.0, 1.0);
}

int expected_dpp(const Dpp& d, int lane) {
    // The ISA's description, written out: rows of 16 lanes, banks of 4; a masked lane keeps old; an
    // invalid source gives 0 with bound_ctrl, else old.
    const int old = -lane, row = lane / 16, in_row = lane % 16, bank = in_row / 4;
    if (!((d.row_mask >> row) & 1) || !((d.bank_mask >> bank) & 1)) return old;
    int src = -1;
    if (d.ctrl <= 0xFF) src = lane - lane % 4 + ((d.ctrl >> (2 * (lane % 4))) & 3);
    else if (d.ctrl > 0x100 && d.ctrl < 0x110) { const int n = d.ctrl - 0x100; if (in_row + n <= 15) src = lane + n; }
    else if (d.ctrl > 0x110 && d.ctrl < 0x120) { const int n = d.ctrl - 0x110; if (in_row - n >= 0) src = lane - n; }
    else if (d.ctrl > 0x120 && d.ctrl < 0x130) { const int n = d.ctrl - 0x120; src = row * 16 + (in_row + 16 - n) % 16; }
    else if (d.ctrl == 0x130) src = lane == 63 ? -1 : lane + 1;
    else if (d.ctrl == 0x134) src = (lane + 1) % 64;
    else if (d.ctrl == 0x138) src = lane - 1;
    else if (d.ctrl == 0x13C) src = (lane + 63) % 64;
    else if (d.ctrl == 0x140) src = row * 16 + 15 - in_row;
    else if (d.ctrl == 0x141) src = row * 16 + (in_row < 8 ? 7 - in_row : 23 - in_row);
    else if (d.ctrl == 0x142) src = row == 0 ? -1 : row * 16 - 1;
    else if (d.ctrl == 0x143) src = row < 2 ? -1 : 31;
    if (src < 0) return d.bound_ctrl ? 0 : old;
    return 1000 + src;
}

int main() {
    const int threads = 128;
    int* d_out;
    hipMalloc(&d_out, threads * kTests * sizeof(int));
    hipLaunchKernelGGL(cross_lane, dim3(1), dim3(threads), 0, 0, d_out);
    CHECK_EQ(hipGetLastError(), hipSuccess);
    std::vector<int> o(threads * kTests);
    hipMemcpy(o.data(), d_out, o.size() * sizeof(int), hipMemcpyDeviceToHost);
    for (int t = 0; t < threads; ++t) {
        const int* r = &o[t * kTests];
        const int lane = t % 64, base = t - lane;
        CHECK_EQ(r[0], 1000);
        CHECK_EQ(r[1], 1037);
        CHECK_EQ(r[2], 1000 + 63 - lane);
        CHECK_EQ(r[3], 1000 + (lane + 1) % 64);
        CHECK_EQ(r[4], 1000 + (lane + 59) % 64);
        CHECK_EQ(r[5], lane < 32 ? 1000 + 2 * lane + 1 : 0);
        CHECK_EQ(r[6], 1000 + lane - lane % 4 + 3 - lane % 4);
        CHECK_EQ(r[7], 1000 + (lane & 32) + 31 - lane % 32);
        CHECK_EQ(r[8], 1000 + (lane & 32) + ((lane % 32) & 0x1C) + 3);
        CHECK_EQ(r[9], lane);
        CHECK_EQ(r[10], 7 + (lane < 16 ? lane : 16) + (lane <= 32 ? 0 : (lane - 32) / 2));
        CHECK_EQ(r[11], base);
        CHECK_EQ(r[12], 9);
        CHECK_EQ(r[13], ((lane + 63) % 64) * 3);
        CHECK_EQ(r[14], 64);
        CHECK_EQ(r[15], 1000 + (lane ^ 1));
        CHECK_EQ(r[16], 1000 + lane - lane % 8 + 7 - lane % 8);
        CHECK_EQ(r[17], 1000 + (lane ^ 2));
        CHECK_EQ(r[18], lane);
    }
    hipLaunchKernelGGL(dpp, dim3(1), dim3(64), 0, 0, d_out);
    hipMemcpy(o.data(), d_out, 64 * kDppCount * sizeof(int), hipMemcpyDeviceToHost);
    int wrong = 0;
    for (int lane = 0; lane < 64; ++lane)
        for (int i = 0; i < kDppCount; ++i)
            if (o[lane * kDppCount + i] != expected_dpp(kDpp[i], lane)) {
                if (wrong++ < 5) std::printf("dpp 0x%x lane %d: got %d want %d\n", kDpp[i].ctrl, lane,
                                             o[lane * kDppCount + i], expected_dpp(kDpp[i], lane));
            }
    CHECK(wrong == 0);
    hipLaunchKernelGGL(diverged, dim3(1), dim3(64), 0, 0, d_out);
    hipMemcpy(o.data(), d_out, 64 * 4 * sizeof(int), hipMemcpyDeviceToHost);
    for (int lane = 0; lane < 64; ++lane) {
        const int* r = &o[lane * 4];
        if (lane % 2 == 0) { CHECK_EQ(r[0], -1); continue; }
        CHECK_EQ(r[0], 1001);
        CHECK_EQ(r[1], 0);
        CHECK_EQ(r[2], 0);
        CHECK_EQ(r[3], 0);
    }
    std::vector<int> in(threads);
    for (int i = 0; i < threads; ++i) in[i] = (i * 7919) % 101 - 50;
    int* d_in;
    hipMalloc(&d_in, threads * sizeof(int));
    hipMemcpy(d_in, in.data(), threads * sizeof(int), hipMemcpyHostToDevice);
    hipLaunchKernelGGL(scans, dim3(1), dim3(threads), 0, 0, d_in, d_out);
    hipMemcpy(o.data(), d_out, 2 * threads * sizeof(int), hipMemcpyDeviceToHost);
    for (int t = 0; t < threads; ++t) {
        int prefix = 0, total = 0;
        for (int j = t - t % 64; j <= t; ++j) prefix += in[j];
        for (int j = t - t % 64; j < t - t % 64 + 64; ++j) total += in[j];
        CHECK_EQ(o[2 * t], prefix);
        CHECK_EQ(o[2 * t + 1], total);
    }
    hipLaunchKernelGGL(lockstep_exchange, dim3(1), dim3(threads), 0, 0, d_out);
    hipMemcpy(o.data(), d_out, threads * sizeof(int), hipMemcpyDeviceToHost);
    for (int t = 0; t < threads; ++t) CHECK_EQ(o[t], 1000 + (t ^ 1));
    float* d_f;
    hipMalloc(&d_f, 16 * sizeof(float));
    hipLaunchKernelGGL(conversions, dim3(1), dim3(1), 0, 0, d_f);
    std::vector<float> f(16);
    hipMemcpy(f.data(), d_f, 16 * sizeof(float), hipMemcpyDeviceToHost);
    CHECK_EQ((int)f[0], 0xCC44);
    CHECK_EQ((int)f[1], 0x1234);
    CHECK_EQ((int)f[2], 0x0080);
    CHECK_EQ((int)f[3], 0x5678);
    CHECK_EQ((int)f[4], 0x8042);
    CHECK(f[5] == -3.0f);
    CHECK(f[6] == 1.5f);
    CHECK(f[7] == 1.5f - 30.0f);
    CHECK(f[8] == 2.0f);
    CHECK(f[9] == 7.0f);
    CHECK(f[10] == 8.0f + 3.0f + 0.5f + 3.0f);
    CHECK(f[11] == 2.0f - 1.0f + 7.0f);
    if (g_failures == 0) std::printf("ALL OK\n");
    return g_failures;
}
