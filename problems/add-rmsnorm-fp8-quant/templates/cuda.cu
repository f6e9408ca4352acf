#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

// q is MI300X's fp8 (E4M3 FNUZ: bias 8, largest 240, 0x80 is NaN), which CUDA has no type for: each
// element is a byte (__nv_fp8_storage_t) the kernel encodes itself. __nv_fp8_e4m3 is the OCP format
// (bias 7, largest 448): its bytes are not these.
__global__ void add_rmsnorm_quant(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                                  __nv_bfloat16* residual_out, __nv_fp8_storage_t* q, float* scale, size_t cols) {
    // TODO: one row per block: h = bf16(x + residual) into residual_out; reduce sum h^2 and
    // max |h w|; rstd = rsqrt(mean h^2 + 1e-5); scale = max|h w| rstd / 240; q = fp8(h w rstd / scale)
}

extern "C" void solution(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                         __nv_bfloat16* residual_out, __nv_fp8_storage_t* q, float* scale, size_t rows, size_t cols) {
    // Every pointer is a device pointer. Launch on the default stream.
}
