// The CUDA runtime API subset the emulator implements: types, enums and declarations.
// Enumerator values are those of the CUDA headers, so numeric codes mean the same as on a GPU.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "device_props.h"
#include "errors.h"
#include "vector_types.h"

#define HJEMU_CUDA_ERROR(hip, cuda, code, text) cuda = code,
typedef enum cudaError { HJEMU_ERRORS(HJEMU_CUDA_ERROR) } cudaError_t;
#undef HJEMU_CUDA_ERROR

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
} cudaMemcpyKind;

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct cudaIpcMemHandle_st { char reserved[64]; } cudaIpcMemHandle_t;

typedef enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxPitch = 11,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrClockRate = 13,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrPciDeviceId = 34,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrPciDomainId = 50,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrIsMultiGpuBoard = 84,
    cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrComputePreemptionSupported = 90,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
} cudaDeviceAttr;

typedef enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
} cudaFuncAttribute;

typedef enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3,
} cudaFuncCache;

typedef struct cudaDeviceProp {
    HJEMU_DEVICE_PROP_FIELDS
} cudaDeviceProp;

#define cudaEventDefault 0x0
#define cudaEventBlockingSync 0x1
#define cudaEventDisableTiming 0x2
#define cudaStreamDefault 0x0
#define cudaStreamNonBlocking 0x1
#define cudaHostAllocDefault 0x0
#define cudaMemAttachGlobal 0x1
#define cudaIpcMemLazyEnablePeerAccess 0x1
#define cudaStreamPerThread ((cudaStream_t)2)
#define CUDART_VERSION 12080
#define CUDA_VERSION 12080

#define HJEMU_FN(name) cuda##name
#define HJEMU_ERR_T cudaError_t
#define HJEMU_STREAM_T cudaStream_t
#define HJEMU_EVENT_T cudaEvent_t
#define HJEMU_KIND_T cudaMemcpyKind
#define HJEMU_PROPS_T cudaDeviceProp
#define HJEMU_ATTR_T cudaDeviceAttr
#define HJEMU_ATTR_UNITS cudaDevAttrMultiProcessorCount
#define HJEMU_CACHE_T cudaFuncCache
#define HJEMU_FUNC_ATTR_T cudaFuncAttribute
#define HJEMU_IPC_T cudaIpcMemHandle_t
#include "api_decls.inc"

extern "C" {
cudaError_t cudaMallocHost(void** ptr, size_t size);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void* ptr);
}
template <class T>
inline cudaError_t cudaMallocHost(T** ptr, size_t size) { return cudaMallocHost((void**)ptr, size); }
template <class T>
inline cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags) {
    return cudaHostAlloc((void**)ptr, size, flags);
}
