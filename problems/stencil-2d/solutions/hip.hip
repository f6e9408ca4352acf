#include <hip/hip_runtime.h>

// Each thread owns one column of a 32-row strip and slides down it with the rows above, at and
// below in registers, so every element is read from memory about once. The left and right
// neighbours come from the adjacent lanes of the wave64 wavefront (__shfl_up / __shfl_down, which
// compile to DPP row shifts); only lanes 0 and 63 read their outer neighbour from memory. A block
// is 256 columns (four wavefronts) by one strip.
constexpr int kThreads = 256;
constexpr int kRows = 32;

__global__ void __launch_bounds__(kThreads) stencil(const float* u, float* out, size_t H, size_t W, float c, float d) {
    const int lane = threadIdx.x % 64;
    const size_t j = (size_t)blockIdx.x * kThreads + threadIdx.x;
    const size_t i0 = (size_t)blockIdx.y * kRows;
    const size_t i1 = i0 + kRows < H ? i0 + kRows : H;
    const bool column = j < W;  // lanes past the last column still take part in the shuffles
    float above = column && i0 > 0 ? u[(i0 - 1) * W + j] : 0.0f;
    float centre = column ? u[i0 * W + j] : 0.0f;
    for (size_t i = i0; i < i1; ++i) {
        const float below = column && i + 1 < H ? u[(i + 1) * W + j] : 0.0f;
        float left = __shfl_up(centre, 1), right = __shfl_down(centre, 1);
        if (column) {
            if (lane == 0 && j > 0) left = u[i * W + j - 1];
            if (lane == 63 && j + 1 < W) right = u[i * W + j + 1];
            const bool boundary = i == 0 || i + 1 == H || j == 0 || j + 1 == W;
            out[i * W + j] = boundary ? centre : c * centre + d * (above + below + left + right);
        }
        above = centre;
        centre = below;
    }
}

extern "C" void solution(const float* u, float* out, size_t H, size_t W, float c, float d) {
    const dim3 grid((unsigned)((W + kThreads - 1) / kThreads), (unsigned)((H + kRows - 1) / kRows));
    hipLaunchKernelGGL(stencil, grid, dim3(kThreads), 0, 0, u, out, H, W, c, d);
}
