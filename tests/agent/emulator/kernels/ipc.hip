// The child side of the IPC contract: run with HJEMU_ARENA_FD naming a memfd, it allocates device
// buffers (from the arena), fills them with a kernel and prints their IPC handles in hex. With an
// argument it then does something that must fault inside the arena.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstring>

__global__ void fill(int* p, int n, int base) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}

static void print_handle(const char* label, void* ptr, size_t bytes) {
    hipIpcMemHandle_t handle;
    const hipError_t error = hipIpcGetMemHandle(&handle, ptr);
    std::printf("%s %d %zu ", label, (int)error, bytes);
    for (size_t i = 0; i < sizeof(handle.reserved); ++i) std::printf("%02x", (unsigned char)handle.reserved[i]);
    std::printf("\n");
}

int main(int argc, char** argv) {
    int *first, *second, *scratch;
    hipMalloc(&scratch, 12345);
    hipMalloc(&first, 1000 * sizeof(int));
    hipMalloc(&second, 5000 * sizeof(int));
    hipFree(scratch);  // its pages go back to the arena
    hjemuNameBuffer(second, "second");
    hipLaunchKernelGGL(fill, dim3(4), dim3(256), 0, 0, first, 1000, 0);
    hipLaunchKernelGGL(fill, dim3(20), dim3(256), 0, 0, second, 5000, 100000);
    print_handle("first", first, 1000 * sizeof(int));
    print_handle("second", second + 10, 5000 * sizeof(int));  // inside the buffer: its handle
    print_handle("host", argv, 8);                             // not device memory
    std::fflush(stdout);
    if (argc > 1 && !std::strcmp(argv[1], "overflow"))
        hipLaunchKernelGGL(fill, dim3(20), dim3(256), 0, 0, second, 5120, 0);
    if (argc > 1 && !std::strcmp(argv[1], "use-after-free")) {
        hipFree(first);
        hipLaunchKernelGGL(fill, dim3(1), dim3(1), 0, 0, first, 1, 0);
    }
    return 0;
}
