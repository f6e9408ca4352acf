// expect: WRONG_ANSWER: failed
// problem: sum-reduction
// cases: n=1000
// migraphx_dpp_block_reduce.hip with one change: each wavefront's total is taken from lane 0
// instead of lane 63. The DPP row_shr/row_bcast sequence leaves the whole wavefront's sum only in
// lane 63; every mov_dpp reads past lane 0's row start (bound_ctrl off: its write is disabled and
// the destination keeps an undefined value), so lane 0 holds no total on MI300X either.
#include <hip/hip_runtime.h>

#include <cstdint>

using index_int = uint32_t;

constexpr unsigned int dpp_row_shr(unsigned int x) { return 0x110u | x; }

constexpr unsigned int dpp_row_bcast(unsigned int x)
{
    unsigned int y = 0;
    switch(x)
    {
    case 15: y = 0x142; break;
    case 31: y = 0x143; break;
    default: break;
    }
    return y;
}

template <class T, class F>
__device__ T dpp_op(T& x, F f)
{
    static const index_int n = sizeof(T) < 4 ? 1 : sizeof(T) / 4;
    union type
    {
        uint32_t reg[n];
        T data;
    };
    type output{};
    type input{};
    input.data = x;
    for(index_int i = 0; i < n; i++)
    {
        output.reg[i] = f(input.reg[i]);
    }
    return output.data;
}

template <unsigned int DppCtrl,
          unsigned int RowMask  = 0xf,
          unsigned int BankMask = 0xf,
          bool BoundCtrl        = false,
          class T>
__device__ T dpp_mov(T& x)
{
    return dpp_op(x,
                  [](auto i) { return __hip_move_dpp(i, DppCtrl, RowMask, BankMask, BoundCtrl); });
}

template <class T, class Op>
__device__ void dpp_reduce(T& in, Op op)
{
    T out{};
    out = dpp_mov<dpp_row_shr(1)>(in);
    in  = op(in, out);
    out = dpp_mov<dpp_row_shr(2)>(in);
    in  = op(in, out);
    out = dpp_mov<dpp_row_shr(4), 0xf, 0xe>(in);
    in  = op(in, out);
    out = dpp_mov<dpp_row_shr(8), 0xf, 0xc>(in);
    in  = op(in, out);
    out = dpp_mov<dpp_row_bcast(15), 0xa>(in);
    in  = op(in, out);
    out = dpp_mov<dpp_row_bcast(31), 0xc>(in);
    in  = op(in, out);
}

constexpr index_int kBlock = 256;

__global__ void block_sum(const float* input, float* output, size_t n)
{
    constexpr index_int lanes_per_thread = 64;
    __shared__ float buffer[kBlock / lanes_per_thread];
    const index_int local = threadIdx.x;
    auto op = [](float a, float b) { return a + b; };
    float x = 0;
    for(size_t i = blockIdx.x * (size_t)kBlock + local; i < n; i += (size_t)gridDim.x * kBlock)
        x = op(x, input[i]);
    dpp_reduce(x, op);

    const auto ldsidx = local / lanes_per_thread;
    if((local % lanes_per_thread) == 0)  // the bug: lane 0 holds only its own value after dpp_reduce
    {
        buffer[ldsidx] = x;
    }
    __syncthreads();

    float y = 0;
    for(index_int i = 0; i < kBlock / lanes_per_thread; i++)
    {
        y = op(y, buffer[i]);
    }
    if(local == 0)
        atomicAdd(output, y);
}

extern "C" void solution(const float* input, float* output, size_t n) {
    hipMemset(output, 0, sizeof(float));
    const size_t blocks = (n + kBlock - 1) / kBlock;
    hipLaunchKernelGGL(block_sum, dim3((unsigned)(blocks < 64 ? blocks : 64)), dim3(kBlock), 0, 0, input, output, n);
}
