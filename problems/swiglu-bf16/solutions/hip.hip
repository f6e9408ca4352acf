#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// Memory-bound: every element is read once and written once. A 2D grid: blockIdx.y is the token,
// each thread of a 256-thread block (four wave64 wavefronts) takes four consecutive outputs, loaded
// as 8-byte vectors of four bfloat16 when ffn is a multiple of four (the up half is then 8-byte
// aligned too), one by one otherwise. SiLU with the fast exponential, in float32.
constexpr int kThreads = 256;
constexpr int kPerThread = 4;

__device__ inline float silu_times(float g, float u) { return g / (1.0f + __expf(-g)) * u; }

__device__ inline float bf16_bits_to_float(unsigned short b) { return __uint_as_float((unsigned)b << 16); }

__global__ void __launch_bounds__(kThreads) swiglu(const __hip_bfloat16* gate_up, __hip_bfloat16* out, size_t ffn) {
    const size_t t = blockIdx.y;
    const size_t i0 = ((size_t)blockIdx.x * kThreads + threadIdx.x) * kPerThread;
    if (i0 >= ffn) return;
    const __hip_bfloat16* gate = gate_up + t * 2 * ffn;
    const __hip_bfloat16* up = gate + ffn;
    __hip_bfloat16* o = out + t * ffn;
    if (ffn % kPerThread == 0) {
        const ushort4 g = *reinterpret_cast<const ushort4*>(gate + i0);
        const ushort4 u = *reinterpret_cast<const ushort4*>(up + i0);
        __hip_bfloat162* o2 = reinterpret_cast<__hip_bfloat162*>(o + i0);
        o2[0] = __floats2bfloat162_rn(silu_times(bf16_bits_to_float(g.x), bf16_bits_to_float(u.x)),
                                      silu_times(bf16_bits_to_float(g.y), bf16_bits_to_float(u.y)));
        o2[1] = __floats2bfloat162_rn(silu_times(bf16_bits_to_float(g.z), bf16_bits_to_float(u.z)),
                                      silu_times(bf16_bits_to_float(g.w), bf16_bits_to_float(u.w)));
    } else {
        for (size_t i = i0; i < i0 + kPerThread && i < ffn; ++i)
            o[i] = __float2bfloat16(silu_times(__bfloat162float(gate[i]), __bfloat162float(up[i])));
    }
}

extern "C" void solution(const __hip_bfloat16* gate_up, __hip_bfloat16* out, size_t tokens, size_t ffn) {
    const unsigned per_block = kThreads * kPerThread;
    const dim3 grid((unsigned)((ffn + per_block - 1) / per_block), (unsigned)tokens);
    hipLaunchKernelGGL(swiglu, grid, dim3(kThreads), 0, 0, gate_up, out, ffn);
}
