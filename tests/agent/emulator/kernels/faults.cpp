// Faults the emulator must report (one `hjemu: ` line, exit 86): the first argument picks one.
// Compiled once as HIP and once as CUDA; warp masks are given in the API's own width.
#include <cstdio>
#include <cstring>
#include <stdexcept>

#if defined(__HIPCC__)
#define API(name) hip##name
#define LAUNCH(kernel, grid, block, shmem, ...) hipLaunchKernelGGL(kernel, grid, block, shmem, 0, __VA_ARGS__)
typedef unsigned long long Mask;
#else
#define API(name) cuda##name
#define LAUNCH(kernel, grid, block, shmem, ...) kernel<<<grid, block, shmem>>>(__VA_ARGS__)
typedef unsigned Mask;
#endif

__global__ void read_at(const float* p, long index, float* out) { out[0] = p[index]; }
__global__ void write_at(float* p, long index) { p[index] = 1.0f; }

__device__ int recurse(int depth) {
    volatile char pad[4096];
    pad[0] = (char)depth;
    return depth > 1000000 ? pad[0] : recurse(depth + 1) + pad[0];
}
__global__ void deep(int* out) { out[0] = recurse(0); }

__global__ void dynamic_read(float* out, int index) {
    extern __shared__ float dyn[];
    out[0] = dyn[index];
}

__global__ void divide(int* out, int by) { out[threadIdx.x] = 100 / (by - (int)threadIdx.x); }
__global__ void trap() { __trap(); }
__global__ void inner(int*) {}
__global__ void outer(int* p) { LAUNCH(inner, 1, 1, 0, p); }
__global__ void thrower() { throw std::runtime_error("no"); }

__global__ void two_barriers(int* out) {
    if (threadIdx.x < 32) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1;
}

__global__ void early_exit(int* out, int n) {
    __shared__ int s[128];
    if ((int)threadIdx.x >= n) return;
    s[threadIdx.x] = 1;
    __syncthreads();
    out[threadIdx.x] = s[0];
}

__global__ void bad_width(int* out) { out[threadIdx.x] = __shfl_sync((Mask)~0ull, (int)threadIdx.x, 0, 12); }

__global__ void mask_with_exited(int* out) {
    if (threadIdx.x >= 20) return;
    out[threadIdx.x] = __shfl_down_sync((Mask)~0ull, (int)threadIdx.x, 1);
}

__global__ void lower_half_mask(int* out) {
    out[threadIdx.x] = __shfl_down_sync((Mask)0xffffffffull, (int)threadIdx.x, 1);
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const char* what = argv[1];
    float *a, *out;
    int* ints;
    API(Malloc)(&a, 1000 * sizeof(float));
    API(Malloc)(&out, sizeof(float));
    API(Malloc)(&ints, 1024 * sizeof(int));
    hjemuNameBuffer(a, "a");
    hjemuSetBufferElementSize(a, sizeof(float));
    float* odd;
    API(Malloc)(&odd, 1001 * sizeof(float));  // 4004 bytes: 12 bytes of padding up to 4016
    hjemuNameBuffer(odd, "odd");
    std::fflush(stdout);

    if (!std::strcmp(what, "read-past-end")) LAUNCH(read_at, 1, 1, 0, a, 1000L, out);
    if (!std::strcmp(what, "write-far-past-end")) LAUNCH(write_at, 1, 1, 0, a, 1100L);
    if (!std::strcmp(what, "read-before-start")) LAUNCH(read_at, 1, 1, 0, a, -1030L, out);
    if (!std::strcmp(what, "write-padding")) LAUNCH(write_at, 1, 1, 0, odd, 1001L);
    if (!std::strcmp(what, "write-below-start")) LAUNCH(write_at, 1, 1, 0, odd, -1L);
    if (!std::strcmp(what, "null")) LAUNCH(read_at, 1, 1, 0, (const float*)nullptr, 3L, out);
    if (!std::strcmp(what, "use-after-free")) {
        API(Free)(odd);
        LAUNCH(read_at, 1, 1, 0, odd, 0L, out);
    }
    if (!std::strcmp(what, "host-read-past-end")) std::printf("%f\n", a[1024]);
    if (!std::strcmp(what, "stack-overflow")) LAUNCH(deep, 1, 1, 0, ints);
    if (!std::strcmp(what, "dynamic-shared")) LAUNCH(dynamic_read, 1, 1, 1024, out, 1024);
    if (!std::strcmp(what, "divide-by-zero")) LAUNCH(divide, 1, 64, 0, ints, 7);
    if (!std::strcmp(what, "trap")) LAUNCH(trap, 1, 1, 0);
    if (!std::strcmp(what, "nested-launch")) LAUNCH(outer, 1, 1, 0, ints);
    if (!std::strcmp(what, "exception")) LAUNCH(thrower, 1, 1, 0);
    if (!std::strcmp(what, "different-barriers")) LAUNCH(two_barriers, 1, 64, 0, ints);
    if (!std::strcmp(what, "exit-before-barrier")) LAUNCH(early_exit, 1, 128, 0, ints, 100);
    if (!std::strcmp(what, "shuffle-width")) LAUNCH(bad_width, 1, 32, 0, ints);
    if (!std::strcmp(what, "mask-names-exited-lane")) LAUNCH(mask_with_exited, 1, 32, 0, ints);
    if (!std::strcmp(what, "lane-outside-mask")) LAUNCH(lower_half_mask, 1, 64, 0, ints);
    std::printf("no fault: %d\n", (int)API(GetLastError)());
    return 0;
}
