// The error codes both runtimes share: X(hip name, cuda name, code, description). The codes and
// descriptions are those of the real runtimes, so a message reads the same as on a GPU.
#pragma once

#define HJEMU_ERRORS(X)                                                                           \
    X(hipSuccess, cudaSuccess, 0, "no error")                                                     \
    X(hipErrorInvalidValue, cudaErrorInvalidValue, 1, "invalid argument")                         \
    X(hipErrorOutOfMemory, cudaErrorMemoryAllocation, 2, "out of memory")                         \
    X(hipErrorNotInitialized, cudaErrorInitializationError, 3, "initialization error")            \
    X(hipErrorInvalidConfiguration, cudaErrorInvalidConfiguration, 9,                             \
      "invalid configuration argument")                                                           \
    X(hipErrorInvalidPitchValue, cudaErrorInvalidPitchValue, 12, "invalid pitch argument")        \
    X(hipErrorInvalidSymbol, cudaErrorInvalidSymbol, 13, "invalid device symbol")                 \
    X(hipErrorInvalidDevicePointer, cudaErrorInvalidDevicePointer, 17, "invalid device pointer")  \
    X(hipErrorInvalidMemcpyDirection, cudaErrorInvalidMemcpyDirection, 21,                        \
      "invalid copy direction for memcpy")                                                        \
    X(hipErrorInvalidDeviceFunction, cudaErrorInvalidDeviceFunction, 98, "invalid device function") \
    X(hipErrorNoDevice, cudaErrorNoDevice, 100, "no GPU device is detected")                      \
    X(hipErrorInvalidDevice, cudaErrorInvalidDevice, 101, "invalid device ordinal")               \
    X(hipErrorMapFailed, cudaErrorMapBufferObjectFailed, 205, "mapping of buffer object failed")  \
    X(hipErrorInvalidResourceHandle, cudaErrorInvalidResourceHandle, 400, "invalid resource handle") \
    X(hipErrorNotReady, cudaErrorNotReady, 600, "device not ready")                               \
    X(hipErrorIllegalAddress, cudaErrorIllegalAddress, 700, "an illegal memory access was encountered") \
    X(hipErrorLaunchOutOfResources, cudaErrorLaunchOutOfResources, 701,                           \
      "too many resources requested for launch")                                                  \
    X(hipErrorLaunchFailure, cudaErrorLaunchFailure, 719, "unspecified launch failure")           \
    X(hipErrorNotSupported, cudaErrorNotSupported, 801, "operation not supported")                \
    X(hipErrorUnknown, cudaErrorUnknown, 999, "unknown error")

// Codes the runtime returns (identical for both APIs).
enum {
    HJEMU_SUCCESS = 0,
    HJEMU_INVALID_VALUE = 1,
    HJEMU_OUT_OF_MEMORY = 2,
    HJEMU_INVALID_CONFIGURATION = 9,
    HJEMU_INVALID_PITCH = 12,
    HJEMU_INVALID_SYMBOL = 13,
    HJEMU_INVALID_MEMCPY_DIRECTION = 21,
    HJEMU_INVALID_DEVICE = 101,
    HJEMU_MAP_FAILED = 205,
    HJEMU_INVALID_HANDLE = 400,
    HJEMU_NOT_SUPPORTED = 801,
};
