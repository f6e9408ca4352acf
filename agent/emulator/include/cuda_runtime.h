// hjemu: CUDA on the CPU. Stands in for the CUDA toolkit's cuda_runtime.h when a kernel is compiled
// for the emulated device: warps of 32 lanes.
#pragma once

#if defined(HJEMU_API) && HJEMU_API != 1
#error "hjemu: a translation unit includes both hip/hip_runtime.h and cuda_runtime.h; use one API"
#endif
#define HJEMU_API 1
#define HJEMU_CUDA 1
#define HJEMU_WARP_SIZE 32
#define __CUDACC__ 1
#define __HJEMU__ 1

#include "hjemu/cuda_api.h"
#include "hjemu/lang.h"
#include "hjemu/api_templates.inc"
