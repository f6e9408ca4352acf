// The C interface between the kernel-language headers (compiled into the user's solution.so) and
// libhjemu.so. Nothing here is meant to be called by user code directly.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vector_types.h"

extern "C" {

// The built-in index variables. A block runs on one host thread and the runtime rewrites
// threadIdx whenever it switches to another of the block's threads, so these are per host thread.
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;

enum { HJEMU_API_HIP = 0, HJEMU_API_CUDA = 1 };

typedef struct hjemu_launch {
    const char* kernel;  // the kernel's name as written at the launch, for messages
    dim3 grid;
    dim3 block;
    size_t shared_bytes;  // dynamic shared memory
    int warp_size;        // 64 for HIP, 32 for CUDA
    int api;              // HJEMU_API_*
    void (*thunk)(void* ctx);  // runs the kernel body for the current thread
    void* ctx;
} hjemu_launch_t;

// Validates and runs a whole grid (synchronously); returns the API's error code and records it
// for GetLastError the way a GPU runtime does.
int hjemu_launch_grid(const hjemu_launch_t* launch);

// __syncthreads and its counting forms: `kind` 0 plain, 1 count, 2 and, 3 or.
int hjemu_barrier(int line, int kind, int predicate);

// Wavefront collectives: shuffles, votes, matches, reductions, __syncwarp.
enum {
    HJEMU_SHFL_IDX, HJEMU_SHFL_UP, HJEMU_SHFL_DOWN, HJEMU_SHFL_XOR,
    HJEMU_BALLOT, HJEMU_ANY, HJEMU_ALL, HJEMU_ACTIVEMASK, HJEMU_SYNCWARP,
    HJEMU_MATCH_ANY, HJEMU_MATCH_ALL,
    HJEMU_REDUCE_ADD, HJEMU_REDUCE_MIN_S, HJEMU_REDUCE_MIN_U, HJEMU_REDUCE_MAX_S,
    HJEMU_REDUCE_MAX_U, HJEMU_REDUCE_AND, HJEMU_REDUCE_OR, HJEMU_REDUCE_XOR,
    HJEMU_MATRIX,  // a matrix instruction (mfma.h, mma.h): `value` points at the lane's hjemu_matrix_lane_t
    // gfx942's cross-lane builtins (amdgcn.h, runtime/lanes.cpp): 32-bit values.
    HJEMU_READFIRSTLANE, HJEMU_READLANE,  // arg: the lane (readlane)
    HJEMU_BPERMUTE, HJEMU_PERMUTE,        // arg: the byte address
    HJEMU_SWIZZLE,                        // arg: ds_swizzle's offset
    HJEMU_DPP,  // value: src | old << 32; arg: dpp_ctrl; width: row_mask | bank_mask << 4 | bound_ctrl << 8
    HJEMU_OP_COUNT
};
// The matrix instructions (`arg` of an HJEMU_MATRIX collective; runtime/matrix.cpp has the layouts).
enum {
    HJEMU_MFMA_F32_32X32X8_F16, HJEMU_MFMA_F32_16X16X16_F16, HJEMU_MFMA_F32_32X32X8_BF16,
    HJEMU_MFMA_F32_16X16X16_BF16, HJEMU_MFMA_F32_32X32X16_FP8, HJEMU_MFMA_F32_16X16X32_FP8,
    HJEMU_MFMA_I32_32X32X16_I8, HJEMU_MFMA_I32_16X16X32_I8, HJEMU_WMMA_16X16X16_F16, HJEMU_WMMA_16X16X16_BF16,
    HJEMU_MFMA_F32_32X32X2_F32, HJEMU_MFMA_F32_16X16X4_F32, HJEMU_MFMA_F32_32X32X1_F32, HJEMU_MFMA_F32_16X16X1_F32,
    HJEMU_MFMA_F32_4X4X1_F32, HJEMU_MFMA_F32_4X4X4_F16, HJEMU_MFMA_F32_4X4X4_BF16, HJEMU_MFMA_F32_32X32X4_F16,
    HJEMU_MFMA_F32_16X16X4_F16, HJEMU_MFMA_F32_32X32X4_BF16, HJEMU_MFMA_F32_16X16X4_BF16,
    HJEMU_MFMA_F32_32X32X4_XF32, HJEMU_MFMA_F32_16X16X8_XF32,
    HJEMU_MFMA_F64_16X16X4_F64, HJEMU_MFMA_F64_4X4X4_F64,
    HJEMU_MFMA_F32_32X32X16_FP8_BF8, HJEMU_MFMA_F32_32X32X16_BF8_FP8, HJEMU_MFMA_F32_32X32X16_BF8_BF8,
    HJEMU_MFMA_F32_16X16X32_FP8_BF8, HJEMU_MFMA_F32_16X16X32_BF8_FP8, HJEMU_MFMA_F32_16X16X32_BF8_BF8,
    HJEMU_MATRIX_COUNT
};
// One lane's registers of a matrix instruction: its part of A, B and C in, of D out.
typedef struct hjemu_matrix_lane {
    unsigned char a[16];
    unsigned char b[16];
    unsigned char c[128];  // up to 32 accumulators (32x32x1 and 32x32x4 with two blocks)
    unsigned char d[128];
    int modifiers;  // MFMA's cbsz | abid | blgp: not modelled, must be 0
} hjemu_matrix_lane_t;
typedef struct hjemu_collective {
    uint64_t value;  // the lane's operand (raw bits), or its predicate
    uint64_t mask;   // the *_sync mask (meaningful when is_sync)
    int op;          // HJEMU_*
    int arg;         // source lane, delta or xor mask for shuffles
    int width;       // shuffle segment width
    int line;        // source line of the call, which identifies the call site
    int is_sync;     // a CUDA-style *_sync form whose mask must match the converged lanes
    int value_bytes; // size of the operand (match and reduce compare this many bytes)
} hjemu_collective_t;
uint64_t hjemu_warp_collective(const hjemu_collective_t* request);
unsigned int hjemu_lane_id(void);
uint64_t hjemu_clock_ns(void);

// The calling host thread's dynamic shared memory (extern __shared__): a fixed address for the
// thread's lifetime, so a `static thread_local` reference to it stays valid across launches.
void* hjemu_dynamic_shared(void);

// A kernel called __trap(), threw an exception, or failed an emulator check: print and exit.
[[noreturn]] void hjemu_kernel_abort(const char* what);

// Shared memory declared as `__shared__` must fit the 64 KiB a block has.
enum { HJEMU_SHARED_BYTES = 64 * 1024 };

// Harness hooks: name a device buffer in fault messages, give its element size, share memory.
void hjemuNameBuffer(const void* ptr, const char* name);
void hjemuSetBufferElementSize(const void* ptr, size_t element_bytes);
int hjemuAttachArena(int fd);
int hjemuDetachArena(int fd);
int hjemuFaultExitCode(void);
}
