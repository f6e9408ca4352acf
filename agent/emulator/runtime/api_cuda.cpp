// The cuda* entry points: an NVIDIA H100 as far as a program can ask (32-lane warps, 132 SMs,
// compute capability 9.0, 50 MiB of L2), with the emulator's limits (64 KiB of shared memory per
// block). Attribute numbers are CUDA's own (cudaDevAttrL2CacheSize is 38).
#include <climits>
#include <cstdio>

#include "../include/hjemu/cuda_api.h"
#include "internal.h"

namespace {

constexpr int HJEMU_THIS_API = HJEMU_API_CUDA;
constexpr int HJEMU_THIS_VERSION = 12080;

void describe_device(cudaDeviceProp* p) {
    hjemu::describe_common(p);
    snprintf(p->name, sizeof(p->name), "NVIDIA H100 (hjemu: emulated on the CPU)");
    p->warpSize = 32;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->clockRate = 1980000;
    p->memoryClockRate = 2619000;
    p->memoryBusWidth = 5120;
    p->minor = 0;
    p->multiProcessorCount = 132;
    p->l2CacheSize = 50 * 1024 * 1024;
    p->asyncEngineCount = 2;
    p->textureAlignment = 512;
}

bool device_attribute(const cudaDeviceProp& p, cudaDeviceAttr attribute, int* value) {
    switch (attribute) {
        case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
        case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
        case cudaDevAttrWarpSize: *value = p.warpSize; break;
        case cudaDevAttrMaxPitch: *value = (int)p.memPitch; break;
        case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
        case cudaDevAttrClockRate: *value = p.clockRate; break;
        case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
        case cudaDevAttrIntegrated: *value = p.integrated; break;
        case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
        case cudaDevAttrComputeMode: *value = p.computeMode; break;
        case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
        case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
        case cudaDevAttrPciBusId: *value = p.pciBusID; break;
        case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
        case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
        case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
        case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
        case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
        case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
        case cudaDevAttrPciDomainId: *value = p.pciDomainID; break;
        case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
        case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
        case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
        case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
        case cudaDevAttrIsMultiGpuBoard: *value = p.isMultiGpuBoard; break;
        case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
        case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
        case cudaDevAttrComputePreemptionSupported: *value = 1; break;
        case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
        case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
        default: return false;
    }
    return true;
}

}  // namespace

#include "api_common.inc"

extern "C" {
cudaError_t cudaMallocHost(void** ptr, size_t size) { return (cudaError_t)hjemu::host_alloc(ptr, size); }
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int) {
    return (cudaError_t)hjemu::host_alloc(ptr, size);
}
cudaError_t cudaFreeHost(void* ptr) { return (cudaError_t)hjemu::host_free(ptr); }
}
