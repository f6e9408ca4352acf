// The fields hipDeviceProp_t and cudaDeviceProp share (the ones kernels and hosts commonly read).
#pragma once

#include <cstddef>

#define HJEMU_DEVICE_PROP_FIELDS                                                                  \
    char name[256];                                                                               \
    size_t totalGlobalMem;                                                                        \
    size_t sharedMemPerBlock;                                                                     \
    size_t sharedMemPerBlockOptin;                                                                \
    size_t sharedMemPerMultiprocessor;                                                            \
    int regsPerBlock;                                                                             \
    int regsPerMultiprocessor;                                                                    \
    int warpSize;                                                                                 \
    size_t memPitch;                                                                              \
    int maxThreadsPerBlock;                                                                       \
    int maxThreadsDim[3];                                                                         \
    int maxGridSize[3];                                                                           \
    int clockRate;                                                                                \
    int memoryClockRate;                                                                          \
    int memoryBusWidth;                                                                           \
    size_t totalConstMem;                                                                         \
    int major;                                                                                    \
    int minor;                                                                                    \
    int multiProcessorCount;                                                                      \
    int l2CacheSize;                                                                              \
    int maxThreadsPerMultiProcessor;                                                              \
    int maxBlocksPerMultiProcessor;                                                               \
    int computeMode;                                                                              \
    int concurrentKernels;                                                                        \
    int pciDomainID;                                                                              \
    int pciBusID;                                                                                 \
    int pciDeviceID;                                                                              \
    int isMultiGpuBoard;                                                                          \
    int canMapHostMemory;                                                                         \
    int integrated;                                                                               \
    int ECCEnabled;                                                                               \
    int unifiedAddressing;                                                                        \
    int managedMemory;                                                                            \
    int concurrentManagedAccess;                                                                  \
    int pageableMemoryAccess;                                                                     \
    int cooperativeLaunch;                                                                        \
    int asyncEngineCount;                                                                         \
    size_t textureAlignment;
