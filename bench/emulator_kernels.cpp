// Throughput kernels for bench/emulator.py, compiled as HIP: one line "name threads wall_s cpu_s"
// per kernel (the repeat with the least wall time), for a barrier-free kernel, a barrier-heavy one
// and a shuffle-heavy one. CPU time counts every host thread: on a busy machine it is the steadier
// figure.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

constexpr int kBlock = 256;
constexpr int kBarriers = 16;

__global__ void barrier_free(const float* a, const float* b, float* c, size_t n) {
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void barrier_heavy(const float* a, float* c) {
    __shared__ float s[kBlock];
    const size_t i = blockIdx.x * (size_t)kBlock + threadIdx.x;
    float v = a[i];
    for (int step = 0; step < kBarriers; ++step) {
        s[threadIdx.x] = v;
        __syncthreads();
        v += s[(threadIdx.x + 1) % kBlock];
        __syncthreads();
    }
    c[i] = v;
}

__global__ void shuffle_heavy(const float* a, float* c) {
    const size_t i = blockIdx.x * (size_t)kBlock + threadIdx.x;
    float v = a[i];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
    c[i] = v;
}

static double cpu_seconds() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

template <class Launch>
static void time_it(const char* name, size_t threads, int repeats, Launch launch) {
    double best = 1e30, best_cpu = 0;
    for (int r = 0; r < repeats; ++r) {
        const double cpu = cpu_seconds();
        const auto start = std::chrono::steady_clock::now();
        launch();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (s < best) {
            best = s;
            best_cpu = cpu_seconds() - cpu;
        }
    }
    std::printf("%s %zu %.6f %.6f\n", name, threads, best, best_cpu);
}

int main(int argc, char** argv) {
    const size_t n = argc > 1 ? strtoull(argv[1], nullptr, 10) : (size_t)1 << 22;
    const int repeats = argc > 2 ? atoi(argv[2]) : 3;
    float *a, *b, *c;
    hipMalloc(&a, n * sizeof(float));
    hipMalloc(&b, n * sizeof(float));
    hipMalloc(&c, n * sizeof(float));
    hipMemset(a, 0, n * sizeof(float));
    hipMemset(b, 0, n * sizeof(float));
    const unsigned blocks = (unsigned)(n / kBlock);
    time_it("barrier-free", n, repeats,
            [&] { hipLaunchKernelGGL(barrier_free, dim3(blocks), dim3(kBlock), 0, 0, a, b, c, n); });
    const size_t heavy = n / 16;  // 2 * kBarriers barriers per thread: a smaller grid
    time_it("barrier-heavy", heavy, repeats,
            [&] { hipLaunchKernelGGL(barrier_heavy, dim3((unsigned)(heavy / kBlock)), dim3(kBlock), 0, 0, a, c); });
    const size_t shuffles = n / 4;
    time_it("shuffle-heavy", shuffles, repeats,
            [&] { hipLaunchKernelGGL(shuffle_heavy, dim3((unsigned)(shuffles / kBlock)), dim3(kBlock), 0, 0, a, c); });
    return hipGetLastError() == hipSuccess ? 0 : 1;
}
