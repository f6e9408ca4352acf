// expect: WRONG_ANSWER: output[512] =
// problem: prefix-sum
// cases: n=1000
// A block scan launched as if one block covered every input: elements past the first 512 are
// never written.
#include <hip/hip_runtime.h>

__global__ void scan(const int* in, int* out, size_t n) {
    __shared__ int s[512];
    const int t = threadIdx.x;
    s[t] = (size_t)t < n ? in[t] : 0;
    __syncthreads();
    for (int d = 1; d < 512; d <<= 1) {
        const int add = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += add;
        __syncthreads();
    }
    if ((size_t)t < n) out[t] = s[t];
}

extern "C" void solution(const int* input, int* output, size_t n) { scan<<<1, 512>>>(input, output, n); }
