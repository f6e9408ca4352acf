// The hip* entry points: an AMD Instinct MI300X as far as a program can ask (64-lane wavefronts,
// 304 compute units, gfx942), with the emulator's limits (64 KiB of shared memory per block).
#include <climits>
#include <cstdio>

#include "../include/hjemu/hip_api.h"
#include "internal.h"

namespace {

constexpr int HJEMU_THIS_API = HJEMU_API_HIP;
constexpr int HJEMU_THIS_VERSION = 60200000;

void describe_device(hipDeviceProp_t* p) {
    hjemu::describe_common(p);
    snprintf(p->name, sizeof(p->name), "AMD Instinct MI300X (hjemu: emulated on the CPU)");
    snprintf(p->gcnArchName, sizeof(p->gcnArchName), "gfx942:sramecc+:xnack-");
    p->maxSharedMemoryPerMultiProcessor = (int)hjemu::kSharedBytes;
    p->warpSize = 64;
    p->maxThreadsDim[2] = 1024;
    p->maxGridSize[1] = p->maxGridSize[2] = 65536;
    p->clockRate = 2100000;
    p->memoryClockRate = 1300000;
    p->memoryBusWidth = 8192;
    p->minor = 4;
    p->multiProcessorCount = 304;
    p->l2CacheSize = 4 * 1024 * 1024;
    p->asyncEngineCount = 1;
    p->textureAlignment = 256;
}

bool device_attribute(const hipDeviceProp_t& p, hipDeviceAttribute_t attribute, int* value) {
    switch (attribute) {
        case hipDeviceAttributeEccEnabled: *value = p.ECCEnabled; break;
        case hipDeviceAttributeAsyncEngineCount: *value = p.asyncEngineCount; break;
        case hipDeviceAttributeCanMapHostMemory: *value = p.canMapHostMemory; break;
        case hipDeviceAttributeClockRate: *value = p.clockRate; break;
        case hipDeviceAttributeComputeMode: *value = p.computeMode; break;
        case hipDeviceAttributeConcurrentKernels: *value = p.concurrentKernels; break;
        case hipDeviceAttributeConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
        case hipDeviceAttributeCooperativeLaunch: *value = p.cooperativeLaunch; break;
        case hipDeviceAttributeIntegrated: *value = p.integrated; break;
        case hipDeviceAttributeIsMultiGpuBoard: *value = p.isMultiGpuBoard; break;
        case hipDeviceAttributeL2CacheSize: *value = p.l2CacheSize; break;
        case hipDeviceAttributeComputeCapabilityMajor: *value = p.major; break;
        case hipDeviceAttributeManagedMemory: *value = p.managedMemory; break;
        case hipDeviceAttributeMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
        case hipDeviceAttributeMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
        case hipDeviceAttributeMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
        case hipDeviceAttributeMaxGridDimX: *value = p.maxGridSize[0]; break;
        case hipDeviceAttributeMaxGridDimY: *value = p.maxGridSize[1]; break;
        case hipDeviceAttributeMaxGridDimZ: *value = p.maxGridSize[2]; break;
        case hipDeviceAttributeMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
        case hipDeviceAttributeMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
        case hipDeviceAttributeMaxPitch: *value = (int)p.memPitch; break;
        case hipDeviceAttributeMemoryBusWidth: *value = p.memoryBusWidth; break;
        case hipDeviceAttributeMemoryClockRate: *value = p.memoryClockRate; break;
        case hipDeviceAttributeComputeCapabilityMinor: *value = p.minor; break;
        case hipDeviceAttributeMultiprocessorCount: *value = p.multiProcessorCount; break;
        case hipDeviceAttributePageableMemoryAccess: *value = p.pageableMemoryAccess; break;
        case hipDeviceAttributePciBusId: *value = p.pciBusID; break;
        case hipDeviceAttributePciDeviceId: *value = p.pciDeviceID; break;
        case hipDeviceAttributePciDomainID: *value = p.pciDomainID; break;
        case hipDeviceAttributeMaxRegistersPerBlock: *value = p.regsPerBlock; break;
        case hipDeviceAttributeMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
        case hipDeviceAttributeMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
        case hipDeviceAttributeSharedMemPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
        case hipDeviceAttributeTotalConstantMemory: *value = (int)p.totalConstMem; break;
        case hipDeviceAttributeTotalGlobalMem:
            *value = p.totalGlobalMem > INT_MAX ? INT_MAX : (int)p.totalGlobalMem;
            break;
        case hipDeviceAttributeUnifiedAddressing: *value = p.unifiedAddressing; break;
        case hipDeviceAttributeWarpSize: *value = p.warpSize; break;
        case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
        default: return false;
    }
    return true;
}

}  // namespace

#include "api_common.inc"

extern "C" {
hipError_t hipInit(unsigned int) { return hipSuccess; }
hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int) { return (hipError_t)hjemu::host_alloc(ptr, size); }
hipError_t hipMallocHost(void** ptr, size_t size) { return (hipError_t)hjemu::host_alloc(ptr, size); }
hipError_t hipHostFree(void* ptr) { return (hipError_t)hjemu::host_free(ptr); }
hipError_t hipFreeHost(void* ptr) { return (hipError_t)hjemu::host_free(ptr); }
hipError_t hipMemsetD8(void* dst, unsigned char value, size_t count) {
    return (hipError_t)hjemu::fill_memory(dst, &value, 1, count);
}
hipError_t hipMemsetD16(void* dst, unsigned short value, size_t count) {
    return (hipError_t)hjemu::fill_memory(dst, &value, 2, count);
}
hipError_t hipMemsetD32(void* dst, int value, size_t count) {
    return (hipError_t)hjemu::fill_memory(dst, &value, 4, count);
}
hipError_t hipMemsetD8Async(void* dst, unsigned char value, size_t count, hipStream_t) {
    return hipMemsetD8(dst, value, count);
}
hipError_t hipMemsetD16Async(void* dst, unsigned short value, size_t count, hipStream_t) {
    return hipMemsetD16(dst, value, count);
}
hipError_t hipMemsetD32Async(void* dst, int value, size_t count, hipStream_t) {
    return hipMemsetD32(dst, value, count);
}
}
