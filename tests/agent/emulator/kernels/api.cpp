// The runtime API as the judge's GPU device and typical host code use it, compiled once as HIP
// and once as CUDA: errors and their names, GetLastError, launch configuration errors, events,
// streams, copies and their range checks, device properties and attributes.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

#if defined(__HIPCC__)
#define API(name) hip##name
#define KIND(name) hipMemcpy##name
#define WARP 64
#define ATTR_WARP hipDeviceAttributeWarpSize
#define ATTR_SHARED hipDeviceAttributeMaxSharedMemoryPerBlock
#define ATTR_L2 hipDeviceAttributeL2CacheSize
#define ATTR_UNITS hipDeviceAttributeMultiprocessorCount
#define FUNC_SHARED hipFuncAttributeMaxDynamicSharedMemorySize
#define PREFIX "hip"
typedef hipEvent_t Event;
typedef hipStream_t Stream;
typedef hipDeviceProp_t Props;
#else
#define API(name) cuda##name
#define KIND(name) cudaMemcpy##name
#define WARP 32
#define ATTR_WARP cudaDevAttrWarpSize
#define ATTR_SHARED cudaDevAttrMaxSharedMemoryPerBlock
#define ATTR_L2 cudaDevAttrL2CacheSize
#define ATTR_UNITS cudaDevAttrMultiProcessorCount
#define FUNC_SHARED cudaFuncAttributeMaxDynamicSharedMemorySize
#define PREFIX "cuda"
typedef cudaEvent_t Event;
typedef cudaStream_t Stream;
typedef cudaDeviceProp Props;
#endif

__global__ void touch(int* p, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i;
}

int main() {
    // errors
    CHECK(std::strcmp(API(GetErrorString)((decltype(API(GetLastError)()))9), "invalid configuration argument") == 0);
    CHECK(std::strcmp(API(GetErrorName)((decltype(API(GetLastError)()))1), PREFIX "ErrorInvalidValue") == 0);
    CHECK(std::strcmp(API(GetErrorString)((decltype(API(GetLastError)()))0), "no error") == 0);

    // device
    int count = 0, device = -1, value = 0;
    CHECK_EQ(API(GetDeviceCount)(&count), 0);
    CHECK_EQ(count, 1);
    CHECK_EQ(API(SetDevice)(0), 0);
    CHECK_EQ(API(SetDevice)(1), 101);
    CHECK_EQ(API(GetLastError)(), 101);
    CHECK_EQ(API(GetDevice)(&device), 0);
    CHECK_EQ(device, 0);
    Props props;
    CHECK_EQ(API(GetDeviceProperties)(&props, 0), 0);
    CHECK_EQ(props.warpSize, WARP);
    CHECK_EQ(props.maxThreadsPerBlock, 1024);
    CHECK_EQ(props.sharedMemPerBlock, 65536u);
    CHECK(std::strstr(props.name, "emulated") != nullptr);
#if defined(__HIPCC__)
    CHECK(std::strncmp(props.gcnArchName, "gfx942", 6) == 0);
#endif
    CHECK_EQ(API(DeviceGetAttribute)(&value, ATTR_WARP, 0), 0);
    CHECK_EQ(value, WARP);
    CHECK_EQ(API(DeviceGetAttribute)(&value, ATTR_SHARED, 0), 0);
    CHECK_EQ(value, 65536);
    CHECK_EQ(API(DeviceGetAttribute)(&value, ATTR_L2, 0), 0);
    CHECK_EQ(value, props.l2CacheSize);
    CHECK_EQ(API(DeviceGetAttribute)(&value, ATTR_UNITS, 0), 0);
    CHECK_EQ(value, WARP == 64 ? 304 : 132);
    size_t free_bytes = 0, total_bytes = 0;
    CHECK_EQ(API(MemGetInfo)(&free_bytes, &total_bytes), 0);
    CHECK(total_bytes > 0 && free_bytes <= total_bytes);

    // memory and copies
    const int n = 1000;
    int* d = nullptr;
    CHECK_EQ(API(Malloc)(&d, n * sizeof(int)), 0);
    CHECK_EQ((uintptr_t)d % 16, 0u);
    void* huge = nullptr;
    CHECK_EQ(API(Malloc)(&huge, total_bytes + 1), 2);  // more than the device has: out of memory
    CHECK(huge == nullptr);
    API(GetLastError)();
    void* empty = (void*)1;
    CHECK_EQ(API(Malloc)(&empty, 0), 0);
    CHECK(empty == nullptr);
    std::vector<int> h(n, 7), back(n, 0);
    CHECK_EQ(API(Memcpy)(d, h.data(), n * sizeof(int), KIND(HostToDevice)), 0);
    CHECK_EQ(API(Memcpy)(d, h.data(), (n + 1) * sizeof(int), KIND(HostToDevice)), 1);  // past the end
    CHECK_EQ(API(GetLastError)(), 1);
    CHECK_EQ(API(Memcpy)(d + 1, h.data(), n * sizeof(int), KIND(HostToDevice)), 1);
    CHECK_EQ(API(Memcpy)(d, h.data(), 4, (decltype(KIND(Default)))7), 21);        // bad direction
    CHECK_EQ(API(Memset)(d, 0, n * sizeof(int) + 1), 1);
    CHECK_EQ(API(MemsetAsync)(d + n / 2, 0, n / 2 * sizeof(int), 0), 0);
    CHECK_EQ(API(Memcpy)(back.data(), d, n * sizeof(int), KIND(DeviceToHost)), 0);
    CHECK_EQ(back[0], 7);
    CHECK_EQ(back[n - 1], 0);
    int* d2 = nullptr;
    CHECK_EQ(API(Malloc)(&d2, n * sizeof(int)), 0);
    CHECK_EQ(API(MemcpyAsync)(d2, d, n * sizeof(int), KIND(DeviceToDevice), 0), 0);
    CHECK_EQ(API(Memcpy)(back.data(), d2, n * sizeof(int), KIND(Default)), 0);
    CHECK_EQ(back[1], 7);
    CHECK_EQ(API(Free)(d2 + 1), 1);  // not the start of an allocation
    CHECK_EQ(API(Free)(d2), 0);
    CHECK_EQ(API(Free)(d2), 1);      // already freed
    CHECK_EQ(API(Free)(nullptr), 0);
    API(GetLastError)();

    // events and streams
    Event start, stop, never;
    CHECK_EQ(API(EventCreate)(&start), 0);
    CHECK_EQ(API(EventCreate)(&stop), 0);
    CHECK_EQ(API(EventCreate)(&never), 0);
    CHECK_EQ(API(EventRecord)(start, 0), 0);
#if defined(__HIPCC__)
    hipLaunchKernelGGL(touch, dim3(4), dim3(256), 0, 0, d, n);
#else
    touch<<<4, 256>>>(d, n);
#endif
    CHECK_EQ(API(EventRecord)(stop, 0), 0);
    CHECK_EQ(API(EventSynchronize)(stop), 0);
    float ms = -1.0f;
    CHECK_EQ(API(EventElapsedTime)(&ms, start, stop), 0);
    CHECK(ms >= 0.0f);
    CHECK_EQ(API(EventElapsedTime)(&ms, start, never), 400);  // never recorded
    CHECK_EQ(API(EventDestroy)(never), 0);
    CHECK_EQ(API(EventDestroy)(never), 400);
    CHECK_EQ(API(EventQuery)((Event)&h), 400);                // not an event
    Stream stream;
    CHECK_EQ(API(StreamCreate)(&stream), 0);
    CHECK_EQ(API(StreamSynchronize)(stream), 0);
    CHECK_EQ(API(StreamSynchronize)(0), 0);
    CHECK_EQ(API(StreamDestroy)(stream), 0);
    CHECK_EQ(API(StreamDestroy)(stream), 400);
    CHECK_EQ(API(DeviceSynchronize)(), 0);
    API(GetLastError)();

    // launch configuration errors, with the codes of each runtime
#if defined(__HIPCC__)
    hipLaunchKernelGGL(touch, dim3(1u << 30), dim3(1024), 0, 0, d, n);  // 2^40 threads in x
    CHECK_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
    hipLaunchKernelGGL(touch, dim3(1), dim3(32, 32, 2), 0, 0, d, n);
    CHECK_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
    hipLaunchKernelGGL(touch, dim3(1, 0), dim3(64), 0, 0, d, n);
    CHECK_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
    hipLaunchKernelGGL(touch, dim3(1), dim3(64), 70000, 0, d, n);
    CHECK_EQ(hipGetLastError(), hipErrorInvalidValue);
    hipLaunchKernelGGL(touch, dim3(1, 70000), dim3(1), 0, 0, d, n);  // HIP has no 65535 limit on y
    CHECK_EQ(hipGetLastError(), hipSuccess);
#else
    touch<<<dim3(1, 70000), 1>>>(d, n);
    CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
    touch<<<1, dim3(32, 32, 2)>>>(d, n);
    CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
#endif
    CHECK_EQ(API(FuncSetAttribute)((const void*)touch, FUNC_SHARED, 65536), 0);
    CHECK_EQ(API(FuncSetAttribute)((const void*)touch, FUNC_SHARED, 65537), 1);
    CHECK_EQ(API(Free)(d), 0);
    return finish();
}
