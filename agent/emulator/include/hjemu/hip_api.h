// The HIP runtime API subset the emulator implements: types, enums and declarations.
// Enumerator values are those of the ROCm headers, so numeric codes mean the same as on a GPU.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "device_props.h"
#include "errors.h"
#include "vector_types.h"

#define HJEMU_HIP_ERROR(hip, cuda, code, text) hip = code,
typedef enum hipError_t { HJEMU_ERRORS(HJEMU_HIP_ERROR) } hipError_t;
#undef HJEMU_HIP_ERROR

typedef enum hipMemcpyKind {
    hipMemcpyHostToHost = 0,
    hipMemcpyHostToDevice = 1,
    hipMemcpyDeviceToHost = 2,
    hipMemcpyDeviceToDevice = 3,
    hipMemcpyDefault = 4,
} hipMemcpyKind;

typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;
typedef struct hipIpcMemHandle_st { char reserved[64]; } hipIpcMemHandle_t;

typedef enum hipDeviceAttribute_t {
    hipDeviceAttributeEccEnabled = 0,
    hipDeviceAttributeAsyncEngineCount = 2,
    hipDeviceAttributeCanMapHostMemory = 3,
    hipDeviceAttributeClockRate = 5,
    hipDeviceAttributeComputeMode = 6,
    hipDeviceAttributeConcurrentKernels = 8,
    hipDeviceAttributeConcurrentManagedAccess = 9,
    hipDeviceAttributeCooperativeLaunch = 10,
    hipDeviceAttributeIntegrated = 16,
    hipDeviceAttributeIsMultiGpuBoard = 17,
    hipDeviceAttributeL2CacheSize = 19,
    hipDeviceAttributeComputeCapabilityMajor = 23,
    hipDeviceAttributeManagedMemory = 24,
    hipDeviceAttributeMaxBlockDimX = 26,
    hipDeviceAttributeMaxBlockDimY = 27,
    hipDeviceAttributeMaxBlockDimZ = 28,
    hipDeviceAttributeMaxGridDimX = 29,
    hipDeviceAttributeMaxGridDimY = 30,
    hipDeviceAttributeMaxGridDimZ = 31,
    hipDeviceAttributeMaxThreadsPerBlock = 56,
    hipDeviceAttributeMaxThreadsPerMultiProcessor = 57,
    hipDeviceAttributeMaxPitch = 58,
    hipDeviceAttributeMemoryBusWidth = 59,
    hipDeviceAttributeMemoryClockRate = 60,
    hipDeviceAttributeComputeCapabilityMinor = 61,
    hipDeviceAttributeMultiprocessorCount = 63,
    hipDeviceAttributePageableMemoryAccess = 65,
    hipDeviceAttributePciBusId = 67,
    hipDeviceAttributePciDeviceId = 68,
    hipDeviceAttributePciDomainID = 69,
    hipDeviceAttributeMaxRegistersPerBlock = 71,
    hipDeviceAttributeMaxRegistersPerMultiprocessor = 72,
    hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
    hipDeviceAttributeSharedMemPerBlockOptin = 75,
    hipDeviceAttributeTotalConstantMemory = 83,
    hipDeviceAttributeTotalGlobalMem = 84,
    hipDeviceAttributeUnifiedAddressing = 85,
    hipDeviceAttributeWarpSize = 87,
    hipDeviceAttributeMaxSharedMemoryPerMultiprocessor = 10002,
} hipDeviceAttribute_t;

typedef enum hipFuncAttribute {
    hipFuncAttributeMaxDynamicSharedMemorySize = 8,
    hipFuncAttributePreferredSharedMemoryCarveout = 9,
} hipFuncAttribute;

typedef enum hipFuncCache_t {
    hipFuncCachePreferNone = 0,
    hipFuncCachePreferShared = 1,
    hipFuncCachePreferL1 = 2,
    hipFuncCachePreferEqual = 3,
} hipFuncCache_t;

typedef struct hipDeviceProp_t {
    HJEMU_DEVICE_PROP_FIELDS
    char gcnArchName[256];
    int maxSharedMemoryPerMultiProcessor;
} hipDeviceProp_t;

#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipStreamDefault 0x0
#define hipStreamNonBlocking 0x1
#define hipHostMallocDefault 0x0
#define hipMemAttachGlobal 0x1
#define hipIpcMemLazyEnablePeerAccess 0x1
#define hipStreamPerThread ((hipStream_t)2)
#define HIP_SYMBOL(x) x
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 2
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000)

#define HJEMU_FN(name) hip##name
#define HJEMU_ERR_T hipError_t
#define HJEMU_STREAM_T hipStream_t
#define HJEMU_EVENT_T hipEvent_t
#define HJEMU_KIND_T hipMemcpyKind
#define HJEMU_PROPS_T hipDeviceProp_t
#define HJEMU_ATTR_T hipDeviceAttribute_t
#define HJEMU_ATTR_UNITS hipDeviceAttributeMultiprocessorCount
#define HJEMU_CACHE_T hipFuncCache_t
#define HJEMU_FUNC_ATTR_T hipFuncAttribute
#define HJEMU_IPC_T hipIpcMemHandle_t
#include "api_decls.inc"

extern "C" {
hipError_t hipInit(unsigned int flags);
hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags = 0);
hipError_t hipMallocHost(void** ptr, size_t size);
hipError_t hipHostFree(void* ptr);
hipError_t hipFreeHost(void* ptr);
hipError_t hipMemsetD8(void* dst, unsigned char value, size_t count);
hipError_t hipMemsetD16(void* dst, unsigned short value, size_t count);
hipError_t hipMemsetD32(void* dst, int value, size_t count);
hipError_t hipMemsetD8Async(void* dst, unsigned char value, size_t count, hipStream_t stream = 0);
hipError_t hipMemsetD16Async(void* dst, unsigned short value, size_t count, hipStream_t stream = 0);
hipError_t hipMemsetD32Async(void* dst, int value, size_t count, hipStream_t stream = 0);
}
template <class T>
inline hipError_t hipHostMalloc(T** ptr, size_t size, unsigned int flags = 0) {
    return hipHostMalloc((void**)ptr, size, flags);
}
template <class T>
inline hipError_t hipMallocHost(T** ptr, size_t size) { return hipMallocHost((void**)ptr, size); }
